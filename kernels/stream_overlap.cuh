// A chunked pipeline over pinned memory: each chunk is copied to the device, transformed by a
// kernel and copied back. Run once in one stream (every stage timed with events, which gives the
// parts) and once spread over several streams (timed as a whole). No device-wide sync inside:
// the streams start on one event and the first stream waits for the others' last events.
#ifndef ENVCHECK_KERNELS_STREAM_OVERLAP_CUH
#define ENVCHECK_KERNELS_STREAM_OVERLAP_CUH

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    struct OverlapPlan
    {
        std::size_t bytes = std::size_t{ 32 } << 20; // the whole input (and output)
        int chunks = 8;
        int streams = 4;
        int kernel_iterations = 1024; // FMAs per element: sets the kernel's share of the work
        int repeats = 5;
        std::uint32_t seed = 1;
    };

    // One chunk's stage times in the one-stream run.
    struct ChunkTimes
    {
        float h2d_ms = 0.0f;
        float kernel_ms = 0.0f;
        float d2h_ms = 0.0f;
    };

    struct OverlapRun
    {
        CudaStatus status;
        std::vector<std::vector<ChunkTimes>> parts; // [repeat][chunk], from the one-stream runs
        std::vector<float> serial_ms;               // one stream, per repeat
        std::vector<float> overlapped_ms;           // `streams` streams, per repeat
        std::size_t unwritten = 0;                  // output elements still holding the NaN poison
        std::size_t checked = 0;                    // sampled output elements compared with the CPU
        std::size_t mismatches = 0;                 // of those, the ones that differ
    };

    [[nodiscard]] auto run_stream_overlap(const OverlapPlan& plan) -> OverlapRun;
}

#endif
