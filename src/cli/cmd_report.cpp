// envcheck report (app/report.hpp): one block to paste into a bug report, the collect_env of
// environments: markdown (a fenced block of "key: value" lines under headings) or JSON
// (schemas/bug-report.schema.json). Exit 0 when the report was written, whatever it says; 2 when
// a --prefix, -n or --lock given cannot be read, --root is not a directory, or the report could
// not be written.
#include "app/report.hpp"
#include "cli/commands.hpp"
#include "report/bug_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ReportOptions
        {
            app::ReportRequest request;
            FormatChoice format;
        };

        auto run_report(ReportOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            options.request.skip = config.config.doctor.skip;
            using Outcome = app::ReportOutcome;
            const std::array<Format<Outcome>, 2> own{ {
              { "markdown",
                [](const Outcome& out) { return report::render_bug_report_markdown(out.view); } },
              { "json",
                [](const Outcome& out) { return report::render_bug_report_json(out.view); } },
            } };
            return conclude<Outcome>(app::run_report(options.request, ports), own, options.format,
                                     ports);
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
        add_format_options(app, options->format, { { "markdown", "json" } });
        add_driver_timeout_option(app, request.timeout_seconds);
        app.add_flag("--framework-check", request.framework_check,
                     "Let the doctor run the environment's python (framework.runtime-check); "
                     "off by default: the report itself never runs python");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_report(*options, ports, config); };
    }
}
