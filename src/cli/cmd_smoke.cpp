// envcheck smoke (app/smoke.hpp): runs the GPU probes in a watched child process and reports
// them as text, JSON (schemas/smoke-report.schema.json) or HTML. Exit 0 when every probe passed
// or was skipped; 1 when a probe failed or errored, or no GPU could be probed (no driver, no
// usable device, built without CUDA); 2 on bad usage (an unknown probe, a device this machine
// does not have).
#include "app/smoke.hpp"
#include "cli/commands.hpp"
#include "report/html_report.hpp"
#include "report/smoke_json.hpp"
#include "report/smoke_text.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct SmokeOptions
        {
            app::SmokeRequest request;
            bool quick = false; // the default; the flag documents the choice
            FormatChoice format;
            bool list = false;
        };

        auto list_probes(app::Ports& ports, const std::string& output) -> int
        {
            const auto probes = app::smoke_probe_list(ports.smoke);
            if (probes.empty())
            {
                warn(
                  "envcheck: this envcheck was built without CUDA, so it carries no GPU probes\n");
                return code(Exit::findings);
            }
            return emit(report::render_probe_list(probes), output, ports.files);
        }

        auto run_smoke(SmokeOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            if (const int status = configure_format(options.format, config.config, "smoke"))
            {
                return status;
            }
            if (options.list)
            {
                return list_probes(ports, options.format.output);
            }
            using Outcome = app::SmokeOutcome;
            const report::SmokeTextOptions text{ options.request.full };
            const std::array<Format<Outcome>, 3> own{ {
              { "text",
                [&](const Outcome& out) { return report::render_smoke_text(out.report, text); } },
              { "json", [](const Outcome& out) { return report::render_smoke_json(out.report); } },
              { "html", [](const Outcome& out) { return report::render_smoke_html(out.report); } },
            } };
            return conclude<Outcome>(app::run_smoke(options.request, ports), own, options.format,
                                     ports);
        }
    }

    auto setup_smoke(CLI::App& app, TransferOptions& /*transfer*/) -> Run
    {
        auto options = std::make_shared<SmokeOptions>();
        auto& request = options->request;
        auto* device =
          app
            .add_option("--device", request.device, "The GPU to probe, by CUDA ordinal (default 0)")
            ->check(CLI::NonNegativeNumber);
        auto* all_devices =
          app.add_flag("--all-devices", request.all_devices, "Probe every GPU, one after another");
        device->excludes(all_devices);
        auto* quick =
          app.add_flag("--quick", options->quick,
                       "One size per probe, under 0.5 s of GPU time on an H200 (the default)");
        auto* full =
          app.add_flag("--full", request.full, "Size sweeps and more repeats, under 10 s");
        full->excludes(quick);
        add_format_options(app, options->format, { { "text", "json", "html" }, true });
        app
          .add_option("--timeout", request.timeout_seconds,
                      "Seconds a step (loading the driver, cuInit, opening a device, each probe) "
                      "may run without reporting before the probe process is killed (default 30)")
          ->check(CLI::PositiveNumber);
        app.add_option("--probe", request.probes, "Run only this probe (repeatable); see --list");
        app.add_flag("--even-if-busy", request.even_if_busy,
                     "Probe GPUs that other processes compute on too (default: skip them)");
        app.add_flag("--list", options->list, "List the probes and exit");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_smoke(*options, ports, config); };
    }
}
