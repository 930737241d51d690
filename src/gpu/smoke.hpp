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
#include <map>
#include <memory>
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

    // A smoke run started ahead of its go-ahead: the child loads the driver, calls cuInit and
    // counts the devices (0.1 to 0.2 s) while the caller finds out which GPUs others compute on
    // (the machine probe); proceed() tells it which to spare (described, their probes skipped
    // with the reason, no context made on them) and watches the probes to the end. The report
    // is complete at the child's last line: its exit, where the driver tears the context down,
    // is not waited for.
    class PendingSmoke
    {
    public:
        PendingSmoke(const SmokeRequest& request, Progress progress);
        // Any child that speaks wire/events.hpp instead of the probe child (supervise_probes);
        // `request.probes` must be resolved.
        PendingSmoke(const SmokeRequest& request, const fsio::ChildMain& child, Progress progress);
        PendingSmoke(const PendingSmoke&) = delete;
        auto operator=(const PendingSmoke&) -> PendingSmoke& = delete;
        ~PendingSmoke(); // a child never given the go-ahead is stopped

        // The go-ahead, now: CUDA ordinal -> why it is left alone. The first one stands.
        void go(const std::map<int, std::string>& spared);
        // go(spared), then the report once the child's last line is in. Once.
        [[nodiscard]] auto proceed(const std::map<int, std::string>& spared) -> model::SmokeReport;

    private:
        struct State;
        std::unique_ptr<State> m_state;
    };

    // Everything at once: PendingSmoke sparing no device.
    [[nodiscard]] auto run_smoke(const SmokeRequest& request, const Progress& progress)
      -> model::SmokeReport;

    // The parent's half on its own, for any child that speaks wire/events.hpp (tests use fake
    // children that hang, crash or write garbage): PendingSmoke over that child, sparing none.
    // `request.probes` must be resolved (non-empty).
    [[nodiscard]] auto supervise_probes(const SmokeRequest& request, const fsio::ChildMain& child,
                                        const Progress& progress) -> model::SmokeReport;

    // The watchdog limits a request runs under: the probe timeout between two lines, and a total
    // that no legitimate run reaches.
    [[nodiscard]] auto limits_for(const SmokeRequest& request) -> fsio::ChildLimits;
}

#endif
