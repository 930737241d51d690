// Copy bandwidth measured as nvbandwidth does: pinned buffers; per sample, a latch kernel holds
// the stream until every copy of the sample is enqueued, so the events around the copies time
// the copies and not their enqueueing; warm-up copies first; several samples (the caller takes
// the median); the data verified after timing. Pageable copies cannot sit behind a latch (the
// driver stages them through the host thread), so their events bracket the copies directly.
#ifndef ENVCHECK_KERNELS_BANDWIDTH_CUH
#define ENVCHECK_KERNELS_BANDWIDTH_CUH

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    enum class CopyKind
    {
        h2d_pinned,
        d2h_pinned,
        h2d_pageable,
        d2h_pageable,
        d2d_memcpy, // cudaMemcpyAsync device to device
        d2d_kernel, // a copy kernel on the SMs (16-byte loads and stores)
    };

    [[nodiscard]] auto to_string(CopyKind kind) -> std::string_view;

    struct CopyRequest
    {
        CopyKind kind = CopyKind::h2d_pinned;
        std::size_t bytes = 0; // a multiple of 4
    };

    struct CopyMeasurement
    {
        CopyRequest request;
        int copies_per_sample = 0;
        std::vector<float> sample_ms; // each: `copies_per_sample` copies back to back
        std::size_t mismatches = 0;   // destination words that differ from the source pattern
        bool latch_timed_out = false; // the host took longer than the latch's timeout to enqueue
    };

    struct BandwidthPlan
    {
        std::vector<CopyRequest> copies;
        int copies_per_sample = 8;
        int samples = 5;
        int warmup_copies = 4;
        std::uint32_t seed = 1;
    };

    struct BandwidthRun
    {
        CudaStatus status;
        std::vector<CopyMeasurement> measurements; // in the plan's order
    };

    [[nodiscard]] auto run_bandwidth(const BandwidthPlan& plan) -> BandwidthRun;

    // Shapes of the SM copy kernel, compared by the benchmark (tests/bench/RESULTS.md).
    enum class CopyKernel
    {
        grid_stride,          // 4 loads in flight per thread, a grid-wide stride apart
        tiled_streaming,      // 8 loads in flight, each block on contiguous tiles, evict-first
        grid_stride_prefetch, // grid_stride, loads asking L2 for 256-byte blocks (sm_80+)
        tiled_prefetch,       // tiled, 8 loads, 256-byte L2 fetches
        one_tile_prefetch,    // one 16 KiB tile per block (no persistent loop), 256-byte fetches
        one_tile_prefetch_x8, // one 32 KiB tile per block (8 loads in flight), 256-byte fetches
        one_tile_streaming,   // one 16 KiB tile per block, evict-first loads and stores
    };

    [[nodiscard]] auto to_string(CopyKernel kernel) -> std::string_view;

    // The shape the d2d_kernel probe uses.
    inline constexpr CopyKernel probe_copy_kernel = CopyKernel::grid_stride_prefetch;

    // The SM copy kernel on the caller's buffers (for benchmarks).
    [[nodiscard]] auto launch_copy_kernel(const void* source, void* destination, std::size_t bytes,
                                          Stream stream, CopyKernel kernel) -> CudaStatus;
}

#endif
