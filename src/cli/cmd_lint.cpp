// `envcheck lint FILE...` (app/lint.hpp): the CI gate for environment.yml files. Exit 0 when no
// finding is an error, 1 when one is, 2 on bad usage or an unreadable file.
#include "app/lint.hpp"
#include "app/version.hpp"
#include "cli/commands.hpp"
#include "report/lint_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct LintOptions
        {
            app::LintRequest request;
            FormatChoice format;
            bool list_rules = false;
        };

        void add_channel_check_options(CLI::App& app, app::ChannelCheckRequest& channels)
        {
            app.add_flag("--check-channels", channels.enabled,
                         "Fetch the channels' repodata and report pins that no package on the "
                         "platform satisfies");
            app.add_option("--platform", channels.platform,
                           "With --check-channels: the platform to check, e.g. linux-64 (default: "
                           "this machine's)");
            app.add_option(
              "--channel-alias", channels.channel_alias,
              "With --check-channels: where channel names live (default $ENVCHECK_CHANNEL_ALIAS, "
              "~/.condarc's channel_alias, else https://conda.anaconda.org)");
            app.add_option(
              "--cache-dir", channels.cache_dir,
              "With --check-channels: the repodata cache (default $XDG_CACHE_HOME/envcheck)");
            app.add_flag("--offline", channels.offline,
                         "With --check-channels: answer from the cache alone, without the network");
        }

        auto list_rules(const FormatChoice& format, app::Files& files) -> int
        {
            const auto parsed = report::parse_lint_format(format.name);
            if (!parsed)
            {
                return report_error(util::make_error(
                  util::ErrorKind::usage, "--list-rules prints text or json, not " + format.name));
            }
            return emit(report::render_rule_list(app::lint_rule_catalog(), *parsed), format.output,
                        files);
        }

        auto run_lint(LintOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            if (const int status = configure_format(options.format, config.config, "lint"))
            {
                return status;
            }
            options.request.config = config.config.lint;
            options.request.config_file = config.config.file;
            if (options.list_rules)
            {
                return list_rules(options.format, ports.files);
            }
            using Outcome = app::LintOutcome;
            const auto in = [](report::LintFormat format)
            {
                return [format](const Outcome& outcome)
                { return report::render_lint(outcome.report, format, app::envcheck_version()); };
            };
            const std::array<Format<Outcome>, 4> own{ {
              { "text", in(report::LintFormat::text) },
              { "json", in(report::LintFormat::json) },
              { "sarif", in(report::LintFormat::sarif) },
              { "github", in(report::LintFormat::github) },
            } };
            return conclude<Outcome>(app::run_lint(options.request, ports), own, options.format,
                                     ports);
        }
    }

    auto setup_lint(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<LintOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        app.add_option("files", request.files,
                       "Environment files to lint ('-' reads standard input)");
        add_format_options(app, options->format, { { "text", "json", "sarif", "github" }, true });
        app.add_flag("--strict", request.strict, "Make repro.unpinned an error");
        auto* driver = app.add_option(
          "--target-driver", request.target_driver,
          "The fleet's NVIDIA driver, e.g. 535.104.05: flag CUDA pins it cannot run");
        app
          .add_option("--target-cuda", request.target_cuda,
                      "The CUDA version the fleet's driver reports (nvidia-smi), e.g. 12.2")
          ->excludes(driver);
        add_channel_check_options(app, request.channels);
        app.add_flag("--list-rules", options->list_rules,
                     "Print every rule id, its severity and its fix");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_lint(*options, ports, config); };
    }
}
