// FP32 matrix multiply through shared memory: C = A * B, all row-major, A m x k, B k x n.
// The classic 32x32 tile (with and without +1 padding) is the correctness smoke test; the tuned
// kernel (128x128 block tile, 8x8 register tile per thread, float4 loads, A transposed into
// padded shared memory, double-buffered) is the compute probe.
#ifndef ENVCHECK_KERNELS_MATMUL_CUH
#define ENVCHECK_KERNELS_MATMUL_CUH

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    enum class MatmulKernel
    {
        classic,        // 32x32 tile, one output per thread
        classic_padded, // the same with a [32][33] tile
        tuned,          // 128x128x8 tile, 256 threads, 8x8 outputs per thread
        tuned_bk16, // the same with a 16-deep k tile: half the barriers, twice the shared memory
    };

    [[nodiscard]] auto to_string(MatmulKernel kernel) -> std::string_view;

    // Launches one multiply on the caller's device buffers (for benchmarks that time it with their
    // own events next to a peer). Checks the launch.
    [[nodiscard]] auto launch_matmul(MatmulKernel kernel, const float* a, const float* b, float* c,
                                     int m, int n, int k, Stream stream) -> CudaStatus;

    // Fills device memory with the random values run_matmul computes on (for benchmarks).
    [[nodiscard]] auto fill_random(float* data, std::size_t count, std::uint32_t seed,
                                   Stream stream) -> CudaStatus;

    struct MatmulRun
    {
        CudaStatus status;
        std::vector<float> times_ms; // one per timed repeat, after warm-up
        double relative_error = 0.0; // ||out - ref|| / ||ref|| over the sampled entries
        std::size_t sampled = 0;     // entries compared with the CPU's double-precision reference
        std::size_t unwritten = 0;   // output entries still holding the NaN poison
    };

    struct MatmulPlan
    {
        MatmulKernel kernel = MatmulKernel::tuned;
        int m = 1024;
        int n = 1024;
        int k = 1024;
        double min_warmup_ms = 20.0; // lets the clocks ramp up before timing
        int repeats = 10;
        std::uint32_t seed = 1;
    };

    // Random A and B, C poisoned, warm-up, `repeats` event-timed launches, then verification:
    // every entry written, and sampled entries (corners, edges, random) against the CPU.
    [[nodiscard]] auto run_matmul(const MatmulPlan& plan) -> MatmulRun;
}

#endif
