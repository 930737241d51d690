#include "app/smoke.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "app/machine_state.hpp"
#include "checks/doctor.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    namespace
    {
        // The requested probe ids in registry order; an unknown id is a usage error.
        auto resolve_probes(const std::vector<std::string>& requested,
                            const std::vector<SmokeProbeInfo>& registry)
          -> util::Result<std::vector<std::string>>
        {
            std::vector<std::string> known;
            known.reserve(registry.size());
            for (const auto& probe : registry)
            {
                known.push_back(probe.id);
            }
            for (const auto& id : requested)
            {
                if (std::find(known.begin(), known.end(), id) != known.end())
                {
                    continue;
                }
                // A prefix ("matmul") names its probe; otherwise the closest spelling.
                const auto prefixed =
                  std::find_if(known.begin(), known.end(),
                               [&](const std::string& name) { return name.starts_with(id); });
                const auto suggestion = prefixed != known.end() && !id.empty()
                                          ? std::optional<std::string>(*prefixed)
                                          : util::closest_match(id, known);
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage, "unknown probe '" + id + "'", {},
                  suggestion
                    ? "did you mean '" + *suggestion + "'? ('envcheck smoke --list' lists them)"
                    : "'envcheck smoke --list' lists the probes"));
            }
            std::vector<std::string> resolved;
            for (const auto& id : known)
            {
                if (std::find(requested.begin(), requested.end(), id) != requested.end())
                {
                    resolved.push_back(id);
                }
            }
            return resolved;
        }

        // Why no GPU could be probed: the doctor's first broken link (machine checks only: the
        // environment does not matter here), else the CUDA error the probe child saw. Its driver
        // probe runs under smoke's own --timeout.
        auto no_gpu_verdict(const model::SmokeReport& report, double timeout_seconds,
                            std::optional<model::MachineFacts> probed, Ports& ports) -> std::string
        {
            auto machine = probed ? util::Result<model::MachineFacts>(std::move(*probed))
                                  : probe_machine("/", timeout_seconds, ports);
            if (machine)
            {
                const auto doctor =
                  checks::run_doctor(checks::DoctorInput{ std::move(*machine), std::nullopt });
                if (doctor.first_broken_link)
                {
                    const auto* broken = doctor.outcome(*doctor.first_broken_link);
                    std::string verdict = "envcheck doctor: " + *doctor.first_broken_link +
                                          " failed: " + broken->message;
                    if (!broken->fix.empty())
                    {
                        verdict += " (fix: " + broken->fix + ")";
                    }
                    return verdict + "; the probe saw: " + report.diagnosis;
                }
            }
            return report.diagnosis + "; run 'envcheck doctor' to find the first broken link";
        }
    }

    auto SmokeOutcome::verdict() const -> Verdict
    {
        if (report.availability == model::GpuAvailability::no_such_device)
        {
            return Verdict::usage;
        }
        return report.passed() ? Verdict::clean : Verdict::findings;
    }

    auto run_smoke(const SmokeRequest& request, Ports& ports) -> util::Result<SmokeOutcome>
    {
        const RunClock clock(ports.clock);
        SmokeRunRequest run;
        run.mode = request.full ? model::SmokeMode::full : model::SmokeMode::quick;
        run.device = request.all_devices ? std::nullopt : std::optional<int>(request.device);
        run.probe_timeout =
          std::chrono::milliseconds(static_cast<long long>(request.timeout_seconds * 1000.0));
        run.progress = true;
        const auto registry = ports.smoke.probes();
        if (!request.probes.empty() && !registry.empty())
        {
            auto resolved = resolve_probes(request.probes, registry);
            if (!resolved)
            {
                return util::unexpected(resolved.error());
            }
            run.probes = std::move(*resolved);
        }
        SmokeOutcome outcome;
        // Passive when busy: the child loads the driver while NVML is asked (a driver probe
        // under smoke's own --timeout) which GPUs others compute on; it opens only the rest.
        auto smoke = ports.smoke.start(run);
        std::optional<model::MachineFacts> facts;
        if (!request.even_if_busy && !registry.empty())
        {
            if (auto probed = probe_machine("/", request.timeout_seconds, ports, std::nullopt,
                                            early_go_ahead(*smoke)))
            {
                facts = std::move(*probed);
            }
        }
        outcome.report = smoke->proceed(gpus_to_spare(run, facts, request.even_if_busy));
        const auto availability = outcome.report.availability;
        if (availability != model::GpuAvailability::available &&
            availability != model::GpuAvailability::built_without_cuda &&
            availability != model::GpuAvailability::no_such_device)
        {
            outcome.report.diagnosis =
              no_gpu_verdict(outcome.report, request.timeout_seconds, std::move(facts), ports);
        }
        auto fleet_run = model::to_check_run(outcome.report);
        clock.stamp(fleet_run);
        outcome.fleet.runs = { std::move(fleet_run) };
        outcome.fleet.features.smoke_passed = outcome.report.passed();
        return outcome;
    }

    auto smoke_probe_list(const GpuSmoke& smoke) -> std::vector<report::RegistryRow>
    {
        std::vector<report::RegistryRow> rows;
        for (auto& probe : smoke.probes())
        {
            rows.push_back(
              { std::move(probe.id), std::move(probe.description), std::move(probe.requirement) });
        }
        return rows;
    }
}
