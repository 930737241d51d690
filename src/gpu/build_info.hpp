// What this envcheck binary carries for the GPU: the CUDA runtime it links statically and the
// architectures its kernels were compiled for. Known without a GPU or driver.
#ifndef ENVCHECK_GPU_BUILD_INFO_HPP
#define ENVCHECK_GPU_BUILD_INFO_HPP

#include <optional>
#include <string>
#include <vector>

#include "model/cuda_version.hpp"

namespace envcheck::gpu
{
    struct BuildInfo
    {
        bool cuda_enabled = false;
        std::optional<model::CudaVersion> runtime;   // the embedded cudart
        std::vector<std::string> sass_architectures; // "sm_90", ...
        std::vector<std::string> ptx_architectures;  // "compute_120", ...
    };

    [[nodiscard]] auto build_info() -> BuildInfo;
}

#endif
