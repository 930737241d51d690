// envcheck probe (app/probe.hpp): facts about this machine (or a root directory), as text or
// JSON (schemas/probe.schema.json). Exit 0 when the report was written (whatever it says); 2 on
// bad usage (--root is not a directory) or when the report could not be written.
#include "app/probe.hpp"
#include "cli/commands.hpp"
#include "report/probe_json.hpp"
#include "report/probe_text.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ProbeOptions
        {
            app::ProbeRequest request;
            FormatChoice format;
        };

        auto run_probe(const ProbeOptions& options, app::Ports& ports) -> int
        {
            using Outcome = app::ProbeOutcome;
            const std::array<Format<Outcome>, 2> own{ {
              { "text", [](const Outcome& out) { return report::render_probe_text(out.facts); } },
              { "json", [](const Outcome& out) { return report::render_probe_json(out.facts); } },
            } };
            return conclude<Outcome>(app::run_probe(options.request, ports), own, options.format,
                                     ports);
        }
    }

    auto run_default_probe(app::Ports& ports) -> int
    {
        return run_probe(ProbeOptions{}, ports);
    }

    auto setup_probe(CLI::App& app, TransferOptions& /*transfer*/) -> Run
    {
        auto options = std::make_shared<ProbeOptions>();
        add_root_option(app, options->request.root);
        add_format_options(app, options->format, { { "text", "json" } });
        app
          .add_option("--timeout", options->request.timeout_seconds,
                      "Seconds NVML and the CUDA driver may take before the probe gives up on them "
                      "(default 20)")
          ->check(CLI::PositiveNumber);
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return run_probe(*options, ports); };
    }
}
