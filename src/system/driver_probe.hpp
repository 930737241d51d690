// NVML (libnvidia-ml.so.1) and the CUDA driver API (libcuda.so.1), dlopen()ed in forked child
// processes with a deadline: never linked, never loaded into envcheck itself. A missing library,
// a failed init, a hang (a wedged GPU in cuInit) or a crash becomes a finding.
//
// The function types are declared here from the documented signatures (nvml.h of NVML API 13,
// cuda.h of CUDA 13; gpu-anchors.md §5): envcheck builds without either header.
#ifndef ENVCHECK_SYSTEM_DRIVER_PROBE_HPP
#define ENVCHECK_SYSTEM_DRIVER_PROBE_HPP

#include <chrono>
#include <string>
#include <vector>

#include "model/machine.hpp"
#include "system/wire.hpp"

namespace envcheck::system
{
    inline constexpr std::chrono::milliseconds default_driver_timeout{ 20000 };

    // Opens each of `nodes_to_open` (O_RDWR, closed at once), then loads NVML and asks it
    // everything in model::NvmlGpu.
    [[nodiscard]] auto probe_nvml(const std::vector<std::string>& nodes_to_open,
                                  std::chrono::milliseconds timeout = default_driver_timeout)
      -> NvmlProbe;

    // cuDriverGetVersion, cuInit(0), cuDeviceGetCount and the device attributes.
    [[nodiscard]] auto probe_cuda_driver(std::chrono::milliseconds timeout = default_driver_timeout)
      -> model::CudaDriverFacts;
}

#endif
