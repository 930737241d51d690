// `envcheck lint FILE...`: the CI gate for environment.yml files (README "envcheck lint").
// Exit 0 when no finding is an error, 1 when one is, 2 on bad usage or an unreadable file.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checks/cuda_driver_table.hpp"
#include "checks/lint.hpp"
#include "cli/channel_check.hpp"
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fleet_output.hpp"
#include "cli/inputs.hpp"
#include "cli/output.hpp"
#include "fsio/files.hpp"
#include "model/cuda_version.hpp"
#include "report/lint_report.hpp"

namespace envcheck::cli
{
    struct LintOptions
    {
        std::vector<std::string> files;
        ReportFormatChoice format;
        bool strict = false;
        std::string target_driver;
        std::string target_cuda;
        bool list_rules = false;
        std::string output;
        ChannelCheckOptions channels;
    };

    namespace
    {
        auto to_report(const std::vector<formats::LoaderRule>& rules)
          -> std::vector<report::LintRuleInfo>
        {
            std::vector<report::LintRuleInfo> out;
            for (const auto& rule : rules)
            {
                out.push_back(report::LintRuleInfo{ std::string(rule.id), rule.severity,
                                                    std::string(rule.description),
                                                    std::string(rule.fix) });
            }
            return out;
        }

        auto to_report(const std::string& path,
                       const std::vector<formats::EnvDiagnostic>& diagnostics) -> report::LintFile
        {
            report::LintFile file{ path, {} };
            for (const auto& item : diagnostics)
            {
                file.diagnostics.push_back(report::LintDiagnostic{
                  item.severity, item.rule, item.message,
                  std::max<std::size_t>(item.position.line, 1),
                  std::max<std::size_t>(item.position.column, 1), item.fix });
            }
            return file;
        }

        auto usage_error(std::string message) -> int
        {
            return report_error(util::make_error(util::ErrorKind::usage, std::move(message)));
        }

        auto lint_options(const LintOptions& options) -> util::Result<checks::LintOptions>
        {
            checks::LintOptions out;
            out.strict = options.strict;
            if (!options.target_driver.empty())
            {
                out.target_driver = checks::parse_driver_version(options.target_driver);
                if (!out.target_driver)
                {
                    return util::unexpected(
                      util::make_error(util::ErrorKind::usage,
                                       "--target-driver '" + options.target_driver +
                                         "' is not an NVIDIA driver version such as 535.104.05"));
                }
            }
            if (!options.target_cuda.empty())
            {
                out.target_cuda = model::parse_cuda_version(options.target_cuda);
                if (!out.target_cuda)
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::usage, "--target-cuda '" + options.target_cuda +
                                                "' is not a CUDA version such as 12.2"));
                }
            }
            return out;
        }
    }

    auto run_lint(const LintOptions& options) -> int
    {
        const auto rules = to_report(checks::rule_catalog());
        if (options.list_rules)
        {
            const auto format = report::parse_lint_format(options.format.name);
            if (!format)
            {
                return usage_error("--list-rules prints text or json, not " + options.format.name);
            }
            return emit(report::render_rule_list(rules, *format), options.output);
        }
        if (options.files.empty())
        {
            return usage_error(
              "lint needs at least one environment file ('-' reads standard input)");
        }
        const auto settings = lint_options(options);
        if (!settings)
        {
            return report_error(settings.error());
        }
        const RunClock clock;
        report::LintReport lint_report;
        lint_report.rules = rules;
        for (const auto& path : options.files)
        {
            auto text = read_input(path);
            if (!text)
            {
                return report_error(text.error());
            }
            auto diagnostics = checks::lint_text(*text, *settings);
            if (options.channels.enabled)
            {
                auto unpublished = check_channels(*text, path, options.channels);
                if (!unpublished)
                {
                    return report_error(unpublished.error());
                }
                diagnostics.insert(diagnostics.end(), unpublished->begin(), unpublished->end());
                std::stable_sort(
                  diagnostics.begin(), diagnostics.end(),
                  [](const formats::EnvDiagnostic& a, const formats::EnvDiagnostic& b)
                  {
                      return std::pair(a.position.line, a.position.column) <
                             std::pair(b.position.line, b.position.column);
                  });
            }
            lint_report.files.push_back(to_report(path, diagnostics));
        }
        std::string rendered;
        if (const auto format = report::parse_lint_format(options.format.name))
        {
            rendered = report::render_lint(lint_report, *format, ENVCHECK_VERSION);
            if (*format == report::LintFormat::github)
            {
                append_github_job_summary({ report::to_check_run(lint_report) });
            }
        }
        else
        {
            auto run = report::to_check_run(lint_report);
            clock.stamp(run);
            rendered =
              render_fleet_report(options.format.name, { run }, {}, options.format.expiry_seconds);
        }
        const int written = emit(rendered, options.output);
        if (written != code(Exit::ok))
        {
            return written;
        }
        return lint_report.count(model::Severity::error) == 0 ? code(Exit::ok)
                                                              : code(Exit::findings);
    }

    auto setup_lint(CLI::App& app) -> Run
    {
        auto options = std::make_shared<LintOptions>();
        add_input_options(app);
        app.add_option("files", options->files,
                       "Environment files to lint ('-' reads standard input)");
        add_report_format_options(app, options->format, { "text", "json", "sarif", "github" });
        app.add_flag("--strict", options->strict, "Make repro.unpinned an error");
        auto* driver = app.add_option(
          "--target-driver", options->target_driver,
          "The fleet's NVIDIA driver, e.g. 535.104.05: flag CUDA pins it cannot run");
        app
          .add_option("--target-cuda", options->target_cuda,
                      "The CUDA version the fleet's driver reports (nvidia-smi), e.g. 12.2")
          ->excludes(driver);
        add_channel_check_options(app, options->channels);
        app.add_flag("--list-rules", options->list_rules,
                     "Print every rule id, its severity and its fix");
        app.add_option("-o,--output", options->output,
                       "Write the report to this file instead of standard output");
        return [options] { return run_lint(*options); };
    }
}
