// The outcome of the CUDA calls behind one launcher. Plain C++: included by host code that g++
// compiles (src/gpu, the benchmarks), which never sees a CUDA header.
#ifndef ENVCHECK_KERNELS_STATUS_CUH
#define ENVCHECK_KERNELS_STATUS_CUH

#include <string>

struct CUstream_st; // cudaStream_t is CUstream_st*; declared here so no CUDA header is needed

namespace envcheck::kernels
{
    using Stream = CUstream_st*;

    // cudaSuccess, or the first CUDA call that failed: its cudaError_t code, the error's name
    // and message (cudaGetErrorName/String), and which call or launch it was.
    struct CudaStatus
    {
        int code = 0;
        std::string call;
        std::string name;
        std::string message;

        [[nodiscard]] auto ok() const -> bool { return code == 0; }
        // "cudaMalloc: cudaErrorMemoryAllocation (2): out of memory"
        [[nodiscard]] auto to_string() const -> std::string
        {
            return call + ": " + name + " (" + std::to_string(code) + "): " + message;
        }
    };
}

#endif
