// envcheck report (app/report.hpp): one block to paste into a bug report, the collect_env of
// environments: markdown (a fenced block of "key: value" lines under headings) or JSON
// (schemas/bug-report.schema.json). Exit 0 when the report was written, whatever it says; 2 when
// a --prefix, -n or --lock given cannot be read, --root is not a directory, or the report could
// not be written.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "app/report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "report/bug_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ReportOptions
        {
            app::ReportRequest request;
            std::string format = "markdown";
            std::string output;
        };

        auto run_report(ReportOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            options.request.skip = config.config.doctor.skip;
            return conclude(
              app::run_report(options.request, ports),
              [&](const app::ReportOutcome& outcome)
              {
                  return options.format == "json"
                           ? report::render_bug_report_json(outcome.view)
                           : report::render_bug_report_markdown(outcome.view);
              },
              options.output, ports.files);
        }
    }

    auto setup_report(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<ReportOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        add_root_option(app, request.root);
        add_prefix_options(app, request.selection);
        app
          .add_option("--lock", request.lock_file,
                      "A lock whose performance baselines are the report's smoke figures")
          ->option_text("FILE");
        app.add_option("--format", options->format, "Report format: markdown or json")
          ->transform(CLI::IsMember({ "markdown", "json" }, CLI::ignore_case))
          ->option_text("markdown|json");
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app
          .add_option("--timeout", request.timeout_seconds,
                      "Seconds NVML and cuInit may take before they count as hung (default 20)")
          ->check(CLI::PositiveNumber);
        app.add_flag("--framework-check", request.framework_check,
                     "Let the doctor run the environment's python (framework.runtime-check); "
                     "off by default: the report itself never runs python");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_report(*options, ports, config); };
    }
}
