// envcheck probe (app/probe.hpp): facts about this machine (or a root directory), as text or
// JSON (schemas/probe.schema.json). Exit 0 when the report was written (whatever it says); 2 on
// bad usage (--root is not a directory) or when the report could not be written.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "app/probe.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "report/probe_json.hpp"
#include "report/probe_text.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ProbeOptions
        {
            app::ProbeRequest request;
            std::string format = "text";
            std::string output;
        };

        auto run_probe(const ProbeOptions& options, app::Ports& ports) -> int
        {
            return conclude(
              app::run_probe(options.request, ports),
              [&](const app::ProbeOutcome& outcome)
              {
                  return options.format == "json" ? report::render_probe_json(outcome.facts)
                                                  : report::render_probe_text(outcome.facts);
              },
              options.output, ports.files);
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
        app.add_option("--format", options->format, "Report format: text or json")
          ->transform(CLI::IsMember({ "text", "json" }, CLI::ignore_case))
          ->option_text("text|json");
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app
          .add_option("--timeout", options->request.timeout_seconds,
                      "Seconds NVML and the CUDA driver may take before the probe gives up on them "
                      "(default 20)")
          ->check(CLI::PositiveNumber);
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return run_probe(*options, ports); };
    }
}
