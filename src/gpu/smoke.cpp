#include "gpu/smoke.hpp"

#include <algorithm>
#include <utility>

#include "gpu/build_info.hpp"
#include "gpu/cuda_errors.hpp"
#include "gpu/probes.hpp"
#include "wire/events.hpp"

namespace envcheck::gpu
{
    namespace
    {
        using model::GpuAvailability;
        using namespace wire;

        auto shorten(std::string_view text, std::size_t limit) -> std::string
        {
            if (text.size() <= limit)
            {
                return std::string(text);
            }
            return std::string(text.substr(0, limit)) + "...";
        }

        // How the driver library failed to load, as the user should read it. A missing file is
        // the common case; anything else (wrong ELF class, a missing dependency) is worth quoting.
        auto no_driver_diagnosis(const std::string& error) -> std::string
        {
            return error.find("No such file") != std::string::npos
                     ? "no NVIDIA driver (libcuda.so.1 not found)"
                     : "the NVIDIA driver library libcuda.so.1 could not be loaded: " + error;
        }

        // Builds the report from the child's events as they arrive.
        class Assembler
        {
        public:
            Assembler(const SmokeRequest& request, const Progress& progress)
              : m_request(request)
              , m_progress(progress)
            {
                m_report.mode = request.mode;
            }

            void take(std::string_view line)
            {
                if (!m_protocol_error.empty())
                {
                    return; // after garbage, nothing the child says can be trusted
                }
                auto event = decode(line);
                if (!event)
                {
                    m_protocol_error = "the probe process wrote unreadable output (" +
                                       event.error() + "): '" + shorten(line, 80) + "'";
                    return;
                }
                std::visit([this](auto& e) { on(e); }, *event);
            }

            auto finish(const fsio::ChildReport& child, const fsio::ChildLimits& limits)
              -> model::SmokeReport
            {
                const bool clean = m_finished && child.clean() && m_protocol_error.empty();
                std::string reason = m_protocol_error;
                if (reason.empty() && !clean)
                {
                    reason = "the probe process " + child.describe(limits);
                    if (!m_step.empty() && !m_running)
                    {
                        reason += " in " + m_step;
                    }
                    if (!child.unterminated.empty())
                    {
                        reason += " after writing '" + shorten(child.unterminated, 80) + "'";
                    }
                    if (const auto output = child.output_tail(160); !output.empty())
                    {
                        reason += " (its output: '" + output + "')";
                    }
                }
                if (m_driver && !m_driver->loaded)
                {
                    m_report.availability = GpuAvailability::no_driver;
                    m_report.diagnosis = no_driver_diagnosis(m_driver->error);
                    return std::move(m_report);
                }
                if (!m_runtime)
                {
                    m_report.availability = GpuAvailability::probe_process_failed;
                    m_report.diagnosis = reason + " before it reported the CUDA runtime";
                    return std::move(m_report);
                }
                classify_runtime();
                if (m_report.availability != GpuAvailability::available)
                {
                    return std::move(m_report);
                }
                if (m_report.devices.empty())
                {
                    m_report.availability = GpuAvailability::probe_process_failed;
                    m_report.diagnosis =
                      (clean ? std::string("the probe process reported no device") : reason) +
                      " before it opened a device";
                    return std::move(m_report);
                }
                if (!clean)
                {
                    fail_unfinished(reason);
                }
                return std::move(m_report);
            }

        private:
            void notify(const ProgressEvent& event) const
            {
                if (m_progress)
                {
                    m_progress(event);
                }
            }

            void on(const StepEvent& event) { m_step = event.step; }

            void on(const DriverEvent& event) { m_driver = event; }

            // The driver probes' events have no place in a smoke run.
            void on(const NvmlEvent&) { m_protocol_error = unexpected("nvml"); }
            void on(const CudaEvent&) { m_protocol_error = unexpected("cuda"); }

            static auto unexpected(std::string_view kind) -> std::string
            {
                return "the probe process wrote a '" + std::string(kind) + "' event";
            }

            void on(const RuntimeEvent& event)
            {
                m_runtime = event;
                m_report.driver_cuda = model::decode_cuda_version(event.driver_version);
                m_report.runtime_cuda = model::decode_cuda_version(event.runtime_version);
            }

            void on(const DeviceEvent& event)
            {
                if (m_report.devices.size() >= static_cast<std::size_t>(max_devices))
                {
                    m_protocol_error = "the probe process reported more than " +
                                       std::to_string(max_devices) + " devices";
                    return;
                }
                m_step.clear(); // opened: from here on, the running probe says where it is
                m_report.devices.push_back(model::DeviceSmoke{ event.device, {} });
                notify(ProgressEvent{ ProgressEvent::Kind::device,
                                      event.device,
                                      {},
                                      model::Status::skip,
                                      0,
                                      m_request.probes.size() });
            }

            void on(const StartEvent& event)
            {
                m_running = event;
                if (auto* device = m_report.device(event.device))
                {
                    notify(ProgressEvent{ ProgressEvent::Kind::probe_started, device->device,
                                          event.probe, model::Status::skip,
                                          device->probes.size() + 1, m_request.probes.size() });
                }
            }

            void on(const ResultEvent& event)
            {
                auto* device = m_report.device(event.device);
                if (device == nullptr)
                {
                    m_protocol_error = "the probe process reported a result for device " +
                                       std::to_string(event.device) + ", which it never opened";
                    return;
                }
                device->probes.push_back(event.result);
                m_running.reset();
                notify(ProgressEvent{ ProgressEvent::Kind::probe_finished, device->device,
                                      event.result.id, event.result.status, device->probes.size(),
                                      m_request.probes.size() });
            }

            void on(const FinishEvent&) { m_finished = true; }

        public:
            // The child said its last line: the report is complete.
            [[nodiscard]] auto finished() const -> bool { return m_finished; }

        private:
            void classify_runtime()
            {
                const RuntimeEvent& runtime = *m_runtime;
                if (runtime.error)
                {
                    m_report.availability = GpuAvailability::no_usable_device;
                    m_report.cuda_error = runtime.error;
                    const auto& error = *runtime.error;
                    m_report.diagnosis =
                      std::string(advice_for(classify_cuda_error(error.code)).meaning) +
                      ": cudaGetDeviceCount returned " + std::to_string(error.code) + " (" +
                      error.name + ": " + error.message + ")";
                    if (classify_cuda_error(error.code) == CudaErrorClass::driver_too_old &&
                        m_report.driver_cuda && m_report.runtime_cuda)
                    {
                        m_report.diagnosis +=
                          "; the driver supports CUDA " + m_report.driver_cuda->to_string() +
                          ", envcheck's runtime is CUDA " + m_report.runtime_cuda->to_string();
                    }
                    return;
                }
                if (runtime.device_count == 0)
                {
                    m_report.availability = GpuAvailability::no_usable_device;
                    m_report.diagnosis = "the CUDA runtime reports no devices";
                    return;
                }
                if (m_request.device && *m_request.device >= runtime.device_count)
                {
                    m_report.availability = GpuAvailability::no_such_device;
                    m_report.diagnosis =
                      "device " + std::to_string(*m_request.device) +
                      " was asked for; this machine has " + std::to_string(runtime.device_count) +
                      " CUDA device" +
                      (runtime.device_count == 1
                         ? " (0)"
                         : "s (0-" + std::to_string(runtime.device_count - 1) + ")");
                    return;
                }
                m_report.availability = GpuAvailability::available;
            }

            // The probe that was running gets the reason; every planned probe that never
            // reported is an error too, so no device ever shows fewer probes than were asked for.
            void fail_unfinished(const std::string& reason)
            {
                for (auto& device : m_report.devices)
                {
                    for (const auto& id : m_request.probes)
                    {
                        const bool reported =
                          std::any_of(device.probes.begin(), device.probes.end(),
                                      [&](const auto& probe) { return probe.id == id; });
                        if (reported)
                        {
                            continue;
                        }
                        model::ProbeResult result;
                        result.id = id;
                        result.status = model::Status::error;
                        const bool was_running = m_running &&
                                                 m_running->device == device.device.index &&
                                                 m_running->probe == id;
                        result.message =
                          was_running ? reason + " while this probe ran"
                                      : "not run: " + reason +
                                          (m_running ? " during '" + m_running->probe + "'" : "");
                        device.probes.push_back(std::move(result));
                    }
                }
            }

            const SmokeRequest& m_request;
            const Progress& m_progress;
            model::SmokeReport m_report;
            std::optional<DriverEvent> m_driver;
            std::optional<RuntimeEvent> m_runtime;
            std::optional<StartEvent> m_running;
            std::string m_step; // the last step announced: where a hang before the runtime was
            bool m_finished = false;
            std::string m_protocol_error;
        };
    }

    auto limits_for(const SmokeRequest& request) -> fsio::ChildLimits
    {
        fsio::ChildLimits limits;
        limits.idle = request.probe_timeout;
        limits.total = request.probe_timeout * 64;
        return limits;
    }

    struct PendingSmoke::State
    {
        SmokeRequest request; // probes resolved
        Progress progress;
        std::optional<Assembler> assembler;
        std::optional<fsio::RunningChild> child;
        bool went = false; // the go-ahead was sent
        bool proceeded = false;

        // Starts `main` under the request's limits; its lines build the report, and its
        // finish line is the last one watched.
        void start(const fsio::ChildMain& main)
        {
            assembler.emplace(request, progress);
            child.emplace(fsio::ChildJob{
              main, limits_for(request), [this](std::string_view line) { assembler->take(line); },
              [this](std::string_view) { return assembler->finished(); } });
        }
    };

    PendingSmoke::PendingSmoke(const SmokeRequest& request, Progress progress)
      : m_state(std::make_unique<State>())
    {
        m_state->request = request;
        m_state->progress = std::move(progress);
#ifdef ENVCHECK_WITH_CUDA
        auto& state = *m_state;
        if (state.request.probes.empty())
        {
            for (const auto& probe : probes())
            {
                state.request.probes.emplace_back(probe.id);
            }
        }
        state.start([&state](fsio::LineWriter& writer)
                    { return run_probe_child(state.request, writer); });
#endif
    }

    PendingSmoke::PendingSmoke(const SmokeRequest& request, const fsio::ChildMain& child,
                               Progress progress)
      : m_state(std::make_unique<State>())
    {
        m_state->request = request;
        m_state->progress = std::move(progress);
        m_state->start(child);
    }

    PendingSmoke::~PendingSmoke() = default;

    void PendingSmoke::go(const std::map<int, std::string>& spared)
    {
        auto& state = *m_state;
        if (state.child && !std::exchange(state.went, true))
        {
            // A child that already ended (no driver) cannot read it: its answer is in its lines.
            (void)state.child->send_line(wire::encode(wire::GoAhead{ spared }));
        }
    }

    auto PendingSmoke::proceed(const std::map<int, std::string>& spared) -> model::SmokeReport
    {
        auto& state = *m_state;
        model::SmokeReport report;
        report.mode = state.request.mode;
        report.runtime_cuda = build_info().runtime;
        if (!state.child)
        {
            report.availability = GpuAvailability::built_without_cuda;
            report.diagnosis = "this envcheck was built without CUDA, so it carries no GPU probes";
            return report;
        }
        if (std::exchange(state.proceeded, true))
        {
            report.availability = GpuAvailability::probe_process_failed;
            report.diagnosis = "this smoke run was already watched to its end";
            return report;
        }
        go(spared);
        const fsio::ChildReport outcome = state.child->finish();
        auto probed = state.assembler->finish(outcome, limits_for(state.request));
        probed.duration_seconds = static_cast<double>(outcome.elapsed.count()) / 1000.0;
        if (!probed.runtime_cuda)
        {
            probed.runtime_cuda = report.runtime_cuda;
        }
        return probed;
    }

    auto supervise_probes(const SmokeRequest& request, const fsio::ChildMain& child,
                          const Progress& progress) -> model::SmokeReport
    {
        return PendingSmoke(request, child, progress).proceed({});
    }

    auto run_smoke(const SmokeRequest& request, const Progress& progress) -> model::SmokeReport
    {
        return PendingSmoke(request, progress).proceed({});
    }
}
