#include "app/machine_state.hpp"

#include <algorithm>
#include <utility>

#include "checks/doctor_hardware.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    auto probe_machine(const std::string& root, double driver_timeout_seconds, Ports& ports,
                       std::optional<Environment> environment) -> util::Result<model::MachineFacts>
    {
        if (root.empty() || !ports.files.is_directory(root))
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::usage, "--root '" + root + "' is not a directory"));
        }
        MachineProbeRequest request;
        request.root = root;
        request.driver_timeout =
          std::chrono::milliseconds(static_cast<long long>(driver_timeout_seconds * 1000.0));
        request.environment = std::move(environment);
        return ports.machine.probe(request);
    }

    auto current_machine(bool probe_gpu, const std::optional<std::string>& python, Ports& ports)
      -> MachineState
    {
        MachineState state;
        state.machine.platform = ports.machine.platform();
        state.machine.python = python;
        if (!probe_gpu)
        {
            // The OS facts alone: --no-gpu keeps `check` to the packages' cost.
            state.machine.glibc = ports.machine.os().glibc_version;
            return state;
        }
        state.facts = ports.machine.probe(MachineProbeRequest{});
        const auto& facts = *state.facts;
        state.machine.glibc = facts.os.glibc_version;
        state.machine.driver_version = model::driver_version(facts);
        if (const auto cuda = model::driver_cuda_version(facts))
        {
            state.machine.cuda_driver_version = cuda->to_string();
        }
        // The GPU list is known only when NVML or the CUDA driver answered.
        if (facts.nvml.initialized() || facts.cuda.initialized())
        {
            std::vector<model::LockedGpu> gpus;
            for (const auto& gpu : model::gpu_summaries(facts))
            {
                gpus.push_back(model::LockedGpu{ gpu.index, gpu.name, gpu.uuid, gpu.pci_bus_id,
                                                 gpu.compute_capability(),
                                                 gpu.memory_total_bytes });
            }
            state.machine.gpus = std::move(gpus);
        }
        return state;
    }

    auto measure_quick_smoke(Ports& ports) -> model::SmokeReport
    {
        SmokeRunRequest request;
        request.mode = model::SmokeMode::quick;
        request.device = std::nullopt;
        return ports.smoke.run(request);
    }

    auto run_smoke_sparing_busy(const SmokeRunRequest& request, const model::MachineFacts& facts,
                                Ports& ports) -> model::SmokeReport
    {
        std::vector<int> ordinals;
        if (request.device)
        {
            ordinals.push_back(*request.device);
        }
        else
        {
            const int count = facts.cuda.initialized() ? facts.cuda.device_count.value_or(0)
                                                       : static_cast<int>(facts.nvml.gpus.size());
            for (int ordinal = 0; ordinal < std::min(count, 4096); ++ordinal)
            {
                ordinals.push_back(ordinal);
            }
        }
        std::vector<std::optional<std::string>> busy;
        busy.reserve(ordinals.size());
        for (const int ordinal : ordinals)
        {
            busy.push_back(checks::busy_reason(facts, ordinal));
        }
        if (std::none_of(busy.begin(), busy.end(), [](const auto& reason) { return reason; }))
        {
            return ports.smoke.run(request);
        }
        std::vector<std::string> probes = request.probes;
        if (probes.empty())
        {
            for (const auto& probe : ports.smoke.probes())
            {
                probes.push_back(probe.id);
            }
        }
        model::SmokeReport report;
        report.mode = request.mode;
        bool measured = false;
        for (std::size_t i = 0; i < ordinals.size(); ++i)
        {
            if (busy[i])
            {
                model::DeviceSmoke spared;
                spared.device.index = ordinals[i];
                for (const auto& device : facts.cuda.devices)
                {
                    if (device.index == ordinals[i])
                    {
                        spared.device = device;
                    }
                }
                for (const auto& id : probes)
                {
                    model::ProbeResult skipped;
                    skipped.id = id;
                    skipped.status = model::Status::skip;
                    skipped.message = *busy[i];
                    spared.probes.push_back(std::move(skipped));
                }
                report.devices.push_back(std::move(spared));
                continue;
            }
            auto one = request;
            one.device = ordinals[i];
            auto run = ports.smoke.run(one);
            if (!measured)
            {
                measured = true;
                report.availability = run.availability;
                report.diagnosis = run.diagnosis;
                report.cuda_error = run.cuda_error;
                report.driver_cuda = run.driver_cuda;
                report.runtime_cuda = run.runtime_cuda;
            }
            report.duration_seconds += run.duration_seconds;
            report.devices.insert(report.devices.end(), run.devices.begin(), run.devices.end());
        }
        return report;
    }

    auto record_performance(const model::MachineFacts* spare_busy, Ports& ports,
                            std::string& why_not) -> std::optional<std::vector<model::PerfBaseline>>
    {
        SmokeRunRequest request;
        request.mode = model::SmokeMode::quick;
        request.device = std::nullopt;
        std::vector<model::SmokeReport> reports;
        for (int run = 0; run < baseline_runs; ++run)
        {
            reports.push_back(spare_busy != nullptr
                                ? run_smoke_sparing_busy(request, *spare_busy, ports)
                                : ports.smoke.run(request));
            const auto& report = reports.back();
            if (report.availability != model::GpuAvailability::available)
            {
                why_not = report.diagnosis.empty()
                            ? std::string(model::to_string(report.availability))
                            : report.diagnosis;
                return std::nullopt;
            }
        }
        std::vector<model::PerfBaseline> baselines;
        std::vector<std::string> spared;
        for (const auto& device : reports.front().devices)
        {
            std::vector<model::DeviceSmoke> runs;
            for (const auto& report : reports)
            {
                for (const auto& other : report.devices)
                {
                    if (other.device.index == device.device.index)
                    {
                        runs.push_back(other);
                    }
                }
            }
            // A busy GPU's probes were skipped (run_smoke_sparing_busy): no baseline, and why.
            if (const auto busy = spare_busy != nullptr
                                    ? checks::busy_reason(*spare_busy, device.device.index)
                                    : std::nullopt)
            {
                spared.push_back(*busy); // names the GPU, the processes and --even-if-busy
                continue;
            }
            baselines.push_back(model::make_baseline(runs, model::SmokeMode::quick));
        }
        if (!spared.empty())
        {
            why_not = util::join(spared, "; ");
        }
        return baselines;
    }
}
