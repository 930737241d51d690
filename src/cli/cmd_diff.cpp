// `envcheck diff OLD NEW` (app/diff.hpp): the semantic difference between two environment
// files, or two locks. Exit 0 when they are equal, 1 when they differ (like diff(1)), 2 on
// errors.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "app/diff.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct DiffOptions
        {
            app::DiffRequest request;
            report::DiffFormat format = report::DiffFormat::text;
            std::string output;
        };

        auto run_diff(const DiffOptions& options, app::Ports& ports) -> int
        {
            return conclude(
              app::run_diff(options.request, ports),
              [&](const app::DiffOutcome& outcome)
              { return report::render_diff(outcome.report, options.format); },
              options.output, ports.files);
        }
    }

    auto setup_diff(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<DiffOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        app
          .add_option("old", request.old_path,
                      "The old environment file or lock ('-' and <(git show ...) work)")
          ->required();
        app.add_option("new", request.new_path, "The new environment file or lock")->required();
        app
          .add_option_function<std::string>(
            "--format",
            [options](const std::string& name) {
                options->format =
                  report::parse_diff_format(name).value_or(report::DiffFormat::text);
            },
            "Output: text (default), markdown (for a pull-request comment) or json")
          ->check(CLI::IsMember({ "text", "markdown", "json" }));
        app.add_option("-o,--output", options->output,
                       "Write the report to this file instead of standard output");
        app.add_option("--platform", request.platform,
                       "Locks: the platform of a multi-platform lock (default: this machine's)");
        add_python_option(app, request.python);
        app.add_option("--environment", request.environment,
                       "pixi.lock: the environment to compare (default: default)");
        app.add_option("--category", request.categories,
                       "conda-lock: read only this category (main, dev, an extra); repeat for "
                       "more (default: every category, as conda-lock install does)");
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return run_diff(*options, ports); };
    }
}
