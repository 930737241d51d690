// NVML (libnvidia-ml.so.1) and the CUDA driver API (libcuda.so.1), each dlopen()ed in its own
// child process (fsio::run_child): never linked, never loaded into envcheck itself. A missing
// library, a failed init, a hang (a wedged GPU in cuInit, a library whose constructor never
// returns) or a crash becomes a finding that names the step it happened in.
//
// The two children run at the same time, each under the same deadline: probing the drivers
// takes at most `timeout` (and a second's grace to reap a killed child), however both behave.
#ifndef ENVCHECK_SYSTEM_DRIVER_PROBE_HPP
#define ENVCHECK_SYSTEM_DRIVER_PROBE_HPP

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/machine.hpp"
#include "wire/events.hpp"

namespace envcheck::system
{
    inline constexpr std::chrono::milliseconds default_driver_timeout{ 20000 };

    struct DriverProbes
    {
        wire::NvmlProbe nvml;
        model::CudaDriverFacts cuda;
    };

    // Both children started now and watched when finish() is called: the caller reads files
    // meanwhile (the machine probe's /proc, /sys and kernel log), while they wait in cuInit.
    // The NVML child opens each of `nodes_to_open` (O_RDWR, closed at once), then loads NVML and
    // asks it everything in model::NvmlGpu; the CUDA child loads libcuda, calls
    // cuDriverGetVersion, cuInit(0), cuDeviceGetCount and describes each device.
    class StartedDriverProbes
    {
    public:
        StartedDriverProbes(const std::vector<std::string>& nodes_to_open,
                            std::chrono::milliseconds timeout = default_driver_timeout);
        StartedDriverProbes(const StartedDriverProbes&) = delete;
        auto operator=(const StartedDriverProbes&) -> StartedDriverProbes& = delete;
        ~StartedDriverProbes();

        // NVML's facts, its child watched to its finish line now (the CUDA driver's child, still
        // in cuInit as a rule, runs on): for a caller that can act on them before the rest.
        [[nodiscard]] auto nvml() -> const model::NvmlFacts&;

        // Once.
        [[nodiscard]] auto finish() -> DriverProbes;

    private:
        struct State;
        std::unique_ptr<State> m_state;
    };

    // StartedDriverProbes(...).finish().
    [[nodiscard]] auto probe_drivers(const std::vector<std::string>& nodes_to_open,
                                     std::chrono::milliseconds timeout = default_driver_timeout)
      -> DriverProbes;

    // One of them alone.
    [[nodiscard]] auto probe_nvml(const std::vector<std::string>& nodes_to_open,
                                  std::chrono::milliseconds timeout = default_driver_timeout)
      -> wire::NvmlProbe;
    [[nodiscard]] auto probe_cuda_driver(std::chrono::milliseconds timeout = default_driver_timeout)
      -> model::CudaDriverFacts;
}

#endif
