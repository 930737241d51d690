// How the compute probes time a launch: warm-up, then event-timed repeats, summarised. Included
// by the .cu files only.
#ifndef ENVCHECK_KERNELS_DETAIL_TIMING_CUH
#define ENVCHECK_KERNELS_DETAIL_TIMING_CUH

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernels/detail/cuda_support.cuh"

namespace envcheck::kernels::detail
{
    // Warm-up until the clocks have had min_warmup_ms of load (and at least two launches: the
    // first loads the module), each launch waited for; then `repeats` launches queued back to
    // back (the host's launch work overlaps the previous launch), one event pair around each, all
    // read after one wait. `launch` enqueues one launch on `stream` and returns its CudaStatus.
    template<class Launch>
    [[nodiscard]] auto time_launches(cudaStream_t stream, Launch&& launch, double min_warmup_ms,
                                     int repeats, std::vector<float>& times_ms) -> CudaStatus
    {
        Event start;
        Event stop;
        for (auto* event : { &start, &stop })
        {
            if (auto status = event->create(); !status.ok())
            {
                return status;
            }
        }
        double warmed_ms = 0.0;
        for (int runs = 0; runs < 2 || (warmed_ms < min_warmup_ms && runs < 10000); ++runs)
        {
            float ms = 0.0f;
            if (auto status = check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
            if (auto status = launch(); !status.ok())
            {
                return status;
            }
            if (auto status = check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
            if (auto status = elapsed_ms(start, stop, ms); !status.ok())
            {
                return status;
            }
            warmed_ms += ms;
        }

        std::vector<Event> marks(2 * static_cast<std::size_t>(std::max(repeats, 0)));
        for (auto& event : marks)
        {
            if (auto status = event.create(); !status.ok())
            {
                return status;
            }
        }
        for (int r = 0; r < repeats; ++r)
        {
            if (auto status = check(cudaEventRecord(marks[2 * r].get(), stream), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
            if (auto status = launch(); !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaEventRecord(marks[2 * r + 1].get(), stream), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
        }
        for (int r = 0; r < repeats; ++r)
        {
            float ms = 0.0f;
            if (auto status = elapsed_ms(marks[2 * r], marks[2 * r + 1], ms); !status.ok())
            {
                return status;
            }
            times_ms.push_back(ms);
        }
        return {};
    }

    // The median and (max - min) / median, as util::summarize defines them (its header needs
    // C++20's std::span; the kernels compile as C++17). Zeros for no samples.
    inline void median_and_spread(std::vector<float> samples, double& median, double& spread)
    {
        median = 0.0;
        spread = 0.0;
        if (samples.empty())
        {
            return;
        }
        std::sort(samples.begin(), samples.end());
        const std::size_t middle = samples.size() / 2;
        median = samples.size() % 2 == 1
                   ? double{ samples[middle] }
                   : (double{ samples[middle - 1] } + double{ samples[middle] }) / 2.0;
        if (samples.size() >= 2 && median > 0.0)
        {
            spread = (double{ samples.back() } - double{ samples.front() }) / median;
        }
    }
}

#endif
