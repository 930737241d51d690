// envcheck smoke: runs the probe registry (gpu/probes.hpp) on one or every GPU, in a child
// process under fsio's watchdog, and assembles what the child reported into a
// model::SmokeReport. The parent never loads the driver nor calls CUDA: the child loads
// libcuda.so.1 itself (a missing driver is `no_driver`), and a hung, crashed or garbled child
// becomes `probe_process_failed` or `error` probes, naming the step or probe it stopped in.
//
// Deadlines: every step (loading the driver, cuInit, opening a device, each probe) must report
// within `probe_timeout`; the whole run is stopped at 64 times that.
#ifndef ENVCHECK_GPU_SMOKE_HPP
#define ENVCHECK_GPU_SMOKE_HPP

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fsio/child.hpp"
#include "model/smoke.hpp"

namespace envcheck::gpu
{
    struct SmokeRequest
    {
        model::SmokeMode mode = model::SmokeMode::quick;
        std::optional<int> device = 0;   // nullopt: every device
        std::vector<std::string> probes; // ids to run, in registry order; empty: all of them
        std::chrono::milliseconds probe_timeout{ 30000 }; // longest a step may run silently
    };

    struct ProgressEvent
    {
        enum class Kind
        {
            device, // a device was opened
            probe_started,
            probe_finished,
        };
        Kind kind = Kind::device;
        model::GpuDevice device;
        std::string probe;
        model::Status status = model::Status::skip; // probe_finished
        std::size_t number = 0;                     // 1-based position of the probe
        std::size_t count = 0;                      // probes per device
    };

    using Progress = std::function<void(const ProgressEvent&)>;

    // Everything: the build, the driver library, then the probes in a watched child.
    [[nodiscard]] auto run_smoke(const SmokeRequest& request, const Progress& progress)
      -> model::SmokeReport;

    // The parent's half on its own, for any child that speaks wire/events.hpp (tests use fake
    // children that hang, crash or write garbage). `request.probes` must be resolved (non-empty).
    [[nodiscard]] auto supervise_probes(const SmokeRequest& request, const fsio::ChildMain& child,
                                        const Progress& progress) -> model::SmokeReport;

    // The watchdog limits a request runs under: the probe timeout between two lines, and a total
    // that no legitimate run reaches.
    [[nodiscard]] auto limits_for(const SmokeRequest& request) -> fsio::ChildLimits;
}

#endif
