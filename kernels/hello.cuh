// The first kernel a probe run launches: a vector add, verified element by element. Its launch
// is where a binary without code for this GPU fails (cudaErrorNoKernelImageForDevice, 209).
#ifndef ENVCHECK_KERNELS_HELLO_CUH
#define ENVCHECK_KERNELS_HELLO_CUH

#include <cstddef>
#include <cstdint>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    struct HelloRun
    {
        CudaStatus status;
        std::size_t elements = 0;
        std::size_t mismatches = 0; // elements that differ from the CPU's a + b
        float kernel_ms = 0.0f;     // event-timed; a first launch includes loading the module
    };

    // c = a + b over `elements` random floats drawn from `seed`.
    [[nodiscard]] auto run_hello(std::size_t elements, std::uint32_t seed) -> HelloRun;
}

#endif
