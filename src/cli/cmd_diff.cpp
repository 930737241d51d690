// `envcheck diff OLD NEW` (app/diff.hpp): the semantic difference between two environment
// files, or two locks. Exit 0 when they are equal, 1 when they differ (like diff(1)), 2 on
// errors.
#include "app/diff.hpp"
#include "cli/commands.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct DiffOptions
        {
            app::DiffRequest request;
            FormatChoice format;
        };

        auto run_diff(const DiffOptions& options, app::Ports& ports) -> int
        {
            using Outcome = app::DiffOutcome;
            const auto in = [](report::DiffFormat format)
            {
                return [format](const Outcome& outcome)
                { return report::render_diff(outcome.report, format); };
            };
            const std::array<Format<Outcome>, 3> own{ {
              { "text", in(report::DiffFormat::text) },
              { "markdown", in(report::DiffFormat::markdown) },
              { "json", in(report::DiffFormat::json) },
            } };
            return conclude<Outcome>(app::run_diff(options.request, ports), own, options.format,
                                     ports);
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
        add_format_options(app, options->format, { { "text", "markdown", "json" } });
        add_lock_part_options(app, request.platform, request.environment, request.categories,
                              request.python);
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return run_diff(*options, ports); };
    }
}
