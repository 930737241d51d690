// envcheck smoke: runs the GPU probes (src/gpu/probes.hpp) in a watched child process and
// reports them as text or JSON (schemas/smoke-report.schema.json).
//
// Exit codes: 0 every probe passed or was skipped; 1 a probe failed or errored, or no GPU could
// be probed (no driver, no usable device, built without CUDA); 2 bad usage (an unknown probe, a
// device this machine does not have).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include "checks/doctor.hpp"
#include "cli/cmd_probe.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fleet_output.hpp"
#include "cli/output.hpp"
#include "gpu/probes.hpp"
#include "gpu/smoke.hpp"
#include "report/smoke_json.hpp"
#include "report/smoke_text.hpp"
#include "util/strings.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct SmokeOptions
        {
            int device = 0;
            bool all_devices = false;
            bool quick = false; // the default; the flag documents the choice
            bool full = false;
            ReportFormatChoice format;
            std::string output;
            double timeout_seconds = 30.0;
            std::vector<std::string> probes;
            bool list = false;
        };

        auto list_probes() -> int
        {
            const auto all = gpu::probes();
            if (all.empty())
            {
                std::cerr << "envcheck: this envcheck was built without CUDA, so it carries no GPU "
                             "probes\n";
                return code(Exit::findings);
            }
            for (const auto& probe : all)
            {
                std::cout << probe.id
                          << std::string(16 - std::min<std::size_t>(probe.id.size(), 15), ' ')
                          << probe.description;
                if (!probe.requirement.empty())
                {
                    std::cout << " (requires " << probe.requirement << ")";
                }
                std::cout << '\n';
            }
            return code(Exit::ok);
        }

        // The requested probe ids in registry order; an unknown id is a usage error.
        auto resolve_probes(const std::vector<std::string>& requested,
                            std::vector<std::string>& resolved) -> int
        {
            std::vector<std::string> known;
            for (const auto& probe : gpu::probes())
            {
                known.emplace_back(probe.id);
            }
            for (const auto& id : requested)
            {
                if (gpu::find_probe(id) == nullptr)
                {
                    // A prefix ("matmul") names its probe; otherwise the closest spelling.
                    const auto prefixed =
                      std::find_if(known.begin(), known.end(),
                                   [&](const std::string& name) { return name.starts_with(id); });
                    const auto suggestion = prefixed != known.end() && !id.empty()
                                              ? std::optional<std::string>(*prefixed)
                                              : util::closest_match(id, known);
                    return report_error(util::make_error(
                      util::ErrorKind::usage, "unknown probe '" + id + "'", {},
                      suggestion
                        ? "did you mean '" + *suggestion + "'? ('envcheck smoke --list' lists them)"
                        : "'envcheck smoke --list' lists the probes"));
                }
            }
            for (const auto& id : known)
            {
                if (std::find(requested.begin(), requested.end(), id) != requested.end())
                {
                    resolved.push_back(id);
                }
            }
            return code(Exit::ok);
        }

        // "[2/5] GPU 0 matmul-shared ... pass" on a terminal's stderr, nothing otherwise.
        auto terminal_progress() -> gpu::Progress
        {
            if (isatty(STDERR_FILENO) == 0)
            {
                return {};
            }
            return [](const gpu::ProgressEvent& event)
            {
                switch (event.kind)
                {
                    case gpu::ProgressEvent::Kind::device:
                        std::cerr << "GPU " << event.device.index << ": " << event.device.name
                                  << '\n';
                        break;
                    case gpu::ProgressEvent::Kind::probe_started:
                        std::cerr << "  [" << event.number << '/' << event.count << "] "
                                  << event.probe << " ... " << std::flush;
                        break;
                    case gpu::ProgressEvent::Kind::probe_finished:
                        std::cerr << model::to_string(event.status) << '\n';
                        break;
                }
            };
        }

        // Why no GPU could be probed: the doctor's first broken link (machine checks only: the
        // environment does not matter here), else the CUDA error the probe child saw. Its driver
        // probe runs under smoke's own --timeout.
        auto no_gpu_verdict(const model::SmokeReport& report, double timeout_seconds) -> std::string
        {
            auto machine = probe_this_machine("/", timeout_seconds);
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

        auto run_smoke(const SmokeOptions& options) -> int
        {
            if (options.list)
            {
                return list_probes();
            }
            const RunClock clock;
            gpu::SmokeRequest request;
            request.mode = options.full ? model::SmokeMode::full : model::SmokeMode::quick;
            request.device =
              options.all_devices ? std::nullopt : std::optional<int>(options.device);
            request.probe_timeout =
              std::chrono::milliseconds(static_cast<long long>(options.timeout_seconds * 1000.0));
            if (!options.probes.empty() && !gpu::probes().empty())
            {
                if (const int status = resolve_probes(options.probes, request.probes);
                    status != code(Exit::ok))
                {
                    return status;
                }
            }

            auto report = gpu::run_smoke(request, terminal_progress());
            const bool probed = report.availability == model::GpuAvailability::available;
            if (!probed && report.availability != model::GpuAvailability::built_without_cuda &&
                report.availability != model::GpuAvailability::no_such_device)
            {
                report.diagnosis = no_gpu_verdict(report, options.timeout_seconds);
            }
            std::string rendered;
            if (options.format.name == "json")
            {
                rendered = report::render_smoke_json(report);
            }
            else if (options.format.name == "text")
            {
                rendered =
                  report::render_smoke_text(report, report::SmokeTextOptions{ options.full });
            }
            else
            {
                auto run = model::to_check_run(report);
                clock.stamp(run);
                report::NodeFeatures features;
                features.smoke_passed = report.passed();
                rendered = render_fleet_report(options.format.name, { run }, features,
                                               options.format.expiry_seconds);
            }
            if (const int status = emit(rendered, options.output); status != code(Exit::ok))
            {
                return status;
            }
            if (report.availability == model::GpuAvailability::no_such_device)
            {
                return code(Exit::usage);
            }
            return report.passed() ? code(Exit::ok) : code(Exit::findings);
        }
    }

    auto setup_smoke(CLI::App& app) -> Run
    {
        auto options = std::make_shared<SmokeOptions>();
        auto* device = app
                         .add_option("--device", options->device,
                                     "The GPU to probe, by CUDA ordinal (default 0)")
                         ->check(CLI::NonNegativeNumber);
        auto* all_devices =
          app.add_flag("--all-devices", options->all_devices, "Probe every GPU, one after another");
        device->excludes(all_devices);
        auto* quick =
          app.add_flag("--quick", options->quick,
                       "One size per probe, under 0.5 s of GPU time on an H200 (the default)");
        auto* full =
          app.add_flag("--full", options->full, "Size sweeps and more repeats, under 10 s");
        full->excludes(quick);
        add_report_format_options(app, options->format, { "text", "json" });
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app
          .add_option("--timeout", options->timeout_seconds,
                      "Seconds a step (loading the driver, cuInit, opening a device, each probe) "
                      "may run without reporting before the probe process is killed (default 30)")
          ->check(CLI::PositiveNumber);
        app.add_option("--probe", options->probes, "Run only this probe (repeatable); see --list");
        app.add_flag("--list", options->list, "List the probes and exit");
        return [options] { return run_smoke(*options); };
    }
}
