#include "app/machine_state.hpp"

#include <algorithm>
#include <utility>

#include "checks/doctor_hardware.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    auto probe_machine(const std::string& root, double driver_timeout_seconds, Ports& ports,
                       std::optional<Environment> environment, NvmlHeard nvml_heard)
      -> util::Result<model::MachineFacts>
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
        request.nvml_heard = std::move(nvml_heard);
        return ports.machine.probe(request);
    }

    auto current_machine(bool probe_gpu, const std::optional<std::string>& python, Ports& ports,
                         NvmlHeard nvml_heard) -> MachineState
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
        MachineProbeRequest request;
        request.nvml_heard = std::move(nvml_heard);
        state.facts = ports.machine.probe(request);
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

    auto quick_on_every_gpu() -> SmokeRunRequest
    {
        SmokeRunRequest all;
        all.mode = model::SmokeMode::quick;
        all.device = std::nullopt;
        return all;
    }

    auto gpus_to_spare(const SmokeRunRequest& request,
                       const std::optional<model::MachineFacts>& facts, bool even_if_busy)
      -> std::map<int, std::string>
    {
        std::map<int, std::string> busy;
        if (!facts || even_if_busy)
        {
            return busy;
        }
        std::vector<int> ordinals;
        if (request.device)
        {
            ordinals.push_back(*request.device);
        }
        else
        {
            const int count = facts->cuda.initialized() ? facts->cuda.device_count.value_or(0)
                                                        : static_cast<int>(facts->nvml.gpus.size());
            for (int ordinal = 0; ordinal < std::min(count, 4096); ++ordinal)
            {
                ordinals.push_back(ordinal);
            }
        }
        for (const int ordinal : ordinals)
        {
            if (auto reason = checks::busy_reason(*facts, ordinal))
            {
                busy.emplace(ordinal, std::move(*reason));
            }
        }
        return busy;
    }

    auto early_go_ahead(PendingSmoke& smoke) -> NvmlHeard
    {
        return [&smoke](const model::NvmlFacts& nvml)
        {
            if (!checks::any_gpu_busy(nvml))
            {
                smoke.go({});
            }
        };
    }

    auto record_performance(const std::map<int, std::string>& spared, Ports& ports,
                            std::string& why_not) -> std::optional<std::vector<model::PerfBaseline>>
    {
        // Every run spares the same GPUs (asked once, by the caller), and they get no baseline.
        std::vector<model::SmokeReport> reports;
        for (int run = 0; run < baseline_runs; ++run)
        {
            reports.push_back(ports.smoke.start(quick_on_every_gpu())->proceed(spared));
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
        std::vector<std::string> spared_reasons;
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
            // A busy GPU's probes were skipped: no baseline, and why.
            if (const auto reason = spared.find(device.device.index); reason != spared.end())
            {
                spared_reasons.push_back(reason->second); // the GPU, processes, --even-if-busy
                continue;
            }
            baselines.push_back(model::make_baseline(runs, model::SmokeMode::quick));
        }
        if (!spared_reasons.empty())
        {
            why_not = util::join(spared_reasons, "; ");
        }
        return baselines;
    }
}
