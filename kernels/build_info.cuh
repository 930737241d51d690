// What the kernels were built with. Plain C++: included by host code compiled without nvcc.
#ifndef ENVCHECK_KERNELS_BUILD_INFO_CUH
#define ENVCHECK_KERNELS_BUILD_INFO_CUH

namespace envcheck::kernels
{
    // CUDART_VERSION of the toolkit that compiled the kernels (e.g. 13000 for 13.0).
    [[nodiscard]] auto built_cuda_runtime_version() -> int;
    // The CMAKE_CUDA_ARCHITECTURES list, comma-separated ("75-real,...,120-virtual").
    [[nodiscard]] auto built_cuda_architectures() -> const char*;
}

#endif
