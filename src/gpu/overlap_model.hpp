// The ideal time of a chunked copy-compute-copy pipeline, computed from the measured time of
// each stage of each chunk: what perfect overlap would take, the yardstick for the measured
// multi-stream time. The copy engines and the SMs are three servers (two when the device has a
// single copy engine, which then carries both directions) each handling one chunk at a time.
#ifndef ENVCHECK_GPU_OVERLAP_MODEL_HPP
#define ENVCHECK_GPU_OVERLAP_MODEL_HPP

#include <span>

namespace envcheck::gpu
{
    struct StageTimes
    {
        double h2d_ms = 0.0;
        double kernel_ms = 0.0;
        double d2h_ms = 0.0;
    };

    // Two or more copy engines: the flow-shop schedule in chunk order, where a stage of chunk i
    // starts when its own server is free and chunk i's previous stage is done. One copy engine:
    // copies of both directions share it, so the ideal is the larger of all copy time and the
    // critical path first copy + every kernel + last copy. No copy engine: the serial sum.
    [[nodiscard]] auto ideal_pipeline_ms(std::span<const StageTimes> chunks, int copy_engines)
      -> double;
}

#endif
