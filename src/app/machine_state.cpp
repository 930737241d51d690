#include "app/machine_state.hpp"

#include <utility>

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

    auto record_performance(Ports& ports, std::string& why_not)
      -> std::optional<std::vector<model::PerfBaseline>>
    {
        const auto report = measure_quick_smoke(ports);
        if (report.availability != model::GpuAvailability::available)
        {
            why_not = report.diagnosis.empty() ? std::string(model::to_string(report.availability))
                                               : report.diagnosis;
            return std::nullopt;
        }
        std::vector<model::PerfBaseline> baselines;
        for (const auto& device : report.devices)
        {
            baselines.push_back(model::make_baseline(device, model::SmokeMode::quick));
        }
        return baselines;
    }
}
