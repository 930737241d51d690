#include "app/outcome.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace envcheck::app
{
    RunClock::RunClock(Clock& clock)
      : m_clock(clock)
      , m_started(clock.monotonic_seconds())
    {
    }

    void RunClock::stamp(model::CheckRun& run) const
    {
        run.duration_seconds = m_clock.monotonic_seconds() - m_started;
        run.finished_unix_seconds = static_cast<double>(m_clock.unix_seconds());
    }

    auto node_features_from(const model::MachineFacts& facts) -> report::NodeFeatures
    {
        report::NodeFeatures features;
        features.driver_version = model::driver_version(facts);
        if (const auto cuda = model::driver_cuda_version(facts))
        {
            features.cuda_driver_version = cuda->to_string();
        }
        const auto gpus = model::gpu_summaries(facts);
        if (!gpus.empty())
        {
            features.gpu_count = static_cast<int>(gpus.size());
            features.gpu_model = gpus.front().name;
            // The lowest over the GPUs, as CEP 46's __cuda_arch: what every GPU can run.
            std::optional<std::pair<int, int>> lowest;
            for (const auto& gpu : gpus)
            {
                if (gpu.compute_capability_major && gpu.compute_capability_minor)
                {
                    const std::pair<int, int> capability{ *gpu.compute_capability_major,
                                                          *gpu.compute_capability_minor };
                    lowest = lowest ? std::min(*lowest, capability) : capability;
                }
            }
            if (lowest)
            {
                features.compute_capability =
                  std::to_string(lowest->first) + "." + std::to_string(lowest->second);
            }
        }
        return features;
    }
}
