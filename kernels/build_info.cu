#include <cuda_runtime_api.h>

#include "kernels/build_info.cuh"

namespace envcheck::kernels
{
    auto built_cuda_runtime_version() -> int
    {
        return CUDART_VERSION;
    }

    auto built_cuda_architectures() -> const char*
    {
        return ENVCHECK_CUDA_ARCHITECTURES;
    }
}
