#include "app/lint.hpp"

#include <algorithm>
#include <utility>

#include "app/environment_file.hpp"
#include "checks/channel_availability.hpp"
#include "checks/cuda_driver_table.hpp"
#include "checks/lint.hpp"
#include "checks/lint_suppression.hpp"
#include "formats/file_kind.hpp"
#include "formats/pyproject.hpp"
#include "formats/requirements_txt.hpp"
#include "model/cuda_version.hpp"

namespace envcheck::app
{
    namespace
    {
        auto to_report(const std::string& path,
                       const std::vector<formats::EnvDiagnostic>& diagnostics) -> report::LintFile
        {
            report::LintFile file{ path, {} };
            for (const auto& item : diagnostics)
            {
                file.diagnostics.push_back(report::LintDiagnostic{
                  item.severity, item.rule, item.message,
                  std::max<std::size_t>(item.position.line, 1),
                  std::max<std::size_t>(item.position.column, 1), item.fix, std::nullopt });
            }
            return file;
        }

        auto lint_options(const LintRequest& request) -> util::Result<checks::LintOptions>
        {
            checks::LintOptions out;
            out.strict = request.strict;
            if (!request.target_driver.empty())
            {
                out.target_driver = checks::parse_driver_version(request.target_driver);
                if (!out.target_driver)
                {
                    return util::unexpected(
                      util::make_error(util::ErrorKind::usage,
                                       "--target-driver '" + request.target_driver +
                                         "' is not an NVIDIA driver version such as 535.104.05"));
                }
            }
            if (!request.target_cuda.empty())
            {
                out.target_cuda = model::parse_cuda_version(request.target_cuda);
                if (!out.target_cuda)
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::usage, "--target-cuda '" + request.target_cuda +
                                                "' is not a CUDA version such as 12.2"));
                }
            }
            return out;
        }

        auto config_suppression(const config::Source& source) -> report::Suppression
        {
            return report::Suppression{ report::Suppression::Kind::config, source.to_string() };
        }

        // The configuration's verdict on one finding of `path`: a new severity, or suppressed.
        void apply_config(const LintRequest& request, const std::string& relative_path,
                          report::LintDiagnostic& item)
        {
            const auto& lint = request.config;
            if (const auto found = lint.severity.find(item.rule); found != lint.severity.end())
            {
                if (!found->second.value)
                {
                    item.suppressed = config_suppression(found->second.source);
                    return;
                }
                item.severity = *found->second.value;
            }
            for (const auto& ignore : lint.ignore)
            {
                if (ignore.value == item.rule)
                {
                    item.suppressed = config_suppression(ignore.source);
                    return;
                }
            }
            for (const auto& entry : lint.per_file_ignores)
            {
                if (!config::glob_matches(entry.glob, relative_path))
                {
                    continue;
                }
                for (const auto& rule : entry.rules)
                {
                    if (rule.value == item.rule)
                    {
                        item.suppressed = config_suppression(rule.source);
                        return;
                    }
                }
            }
        }

        // Inline ignores first (the closest to the finding), then the configuration; a bad
        // ignore comment is a finding of its own.
        void apply_suppressions(const LintRequest& request, const std::string& text, Ports& ports,
                                report::LintFile& file)
        {
            const auto inline_ignores = checks::find_inline_ignores(text, suppressible_rule_ids());
            const auto problems = to_report(file.path, inline_ignores.problems);
            file.diagnostics.insert(file.diagnostics.end(), problems.diagnostics.begin(),
                                    problems.diagnostics.end());
            std::stable_sort(file.diagnostics.begin(), file.diagnostics.end(),
                             [](const report::LintDiagnostic& a, const report::LintDiagnostic& b)
                             { return std::pair(a.line, a.column) < std::pair(b.line, b.column); });
            const std::string relative =
              request.config_file.empty() || ports.files.is_url(file.path) || file.path == "-"
                ? file.path
                : ports.files.relative_to_directory_of(file.path, request.config_file);
            for (auto& item : file.diagnostics)
            {
                if (const auto* ignore = inline_ignores.find(item.rule, item.line))
                {
                    item.suppressed =
                      report::Suppression{ report::Suppression::Kind::inline_comment,
                                           file.path + ":" + std::to_string(ignore->line) + ":" +
                                             std::to_string(ignore->column) };
                    continue;
                }
                apply_config(request, relative, item);
            }
        }

        auto lint_file_findings(const std::string& path, const checks::LintOptions& options,
                                const ChannelCheckRequest& channels, Ports& ports)
          -> util::Result<std::pair<report::LintFile, std::string>>;

        // One file's findings: the rules', then (when asked) the channels', by position; then
        // what the inline ignores and the configuration suppress.
        auto lint_file(const LintRequest& request, const std::string& path,
                       const checks::LintOptions& options, Ports& ports)
          -> util::Result<report::LintFile>
        {
            const auto& channels = request.channels;
            auto file = lint_file_findings(path, options, channels, ports);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            apply_suppressions(request, file->second, ports, file->first);
            return std::move(file->first);
        }

        // One file's findings and its text.
        auto lint_file_findings(const std::string& path, const checks::LintOptions& options,
                                const ChannelCheckRequest& channels, Ports& ports)
          -> util::Result<std::pair<report::LintFile, std::string>>
        {
            auto text = ports.files.read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            // requirements.txt and pyproject.toml: linted as the pip section of an environment
            // file (the rules that need a conda side stay quiet).
            if (formats::is_requirements_file_name(path) || formats::is_pyproject_file_name(path))
            {
                auto file = parse_environment_text(*text, path);
                if (!file)
                {
                    const auto& error = file.error();
                    auto unreadable = to_report(
                      path,
                      { formats::EnvDiagnostic{ model::Severity::error,
                                                std::string(formats::pip_file_unreadable_rule),
                                                error.message,
                                                { error.where.line, error.where.column },
                                                error.hint } });
                    return std::pair(std::move(unreadable), std::move(*text));
                }
                auto pip_options = options;
                pip_options.pip_only = true;
                auto linted = to_report(path, checks::lint_environment(*file, pip_options));
                return std::pair(std::move(linted), std::move(*text));
            }
            // A lock or conda's other YAML is said to be what it is (a lock is read as one),
            // never linted as an environment file.
            if (auto other = formats::lint_non_environment(*text, path))
            {
                return std::pair(to_report(path, *other), std::move(*text));
            }
            auto diagnostics = checks::lint_text(*text, options);
            if (channels.enabled)
            {
                auto unpublished = check_channels(*text, path, channels, ports);
                if (!unpublished)
                {
                    return util::unexpected(unpublished.error());
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
            return std::pair(to_report(path, diagnostics), std::move(*text));
        }
    }

    auto lint_rule_catalog() -> std::vector<report::LintRuleInfo>
    {
        std::vector<report::LintRuleInfo> out;
        for (const auto& rule : checks::rule_catalog())
        {
            out.push_back(report::LintRuleInfo{ std::string(rule.id), rule.severity,
                                                std::string(rule.description),
                                                std::string(rule.fix) });
        }
        return out;
    }

    auto suppressible_rule_ids() -> std::vector<std::string>
    {
        std::vector<std::string> ids;
        for (const auto& rule : checks::rule_catalog())
        {
            ids.emplace_back(rule.id);
        }
        ids.emplace_back(checks::channel_availability_rule);
        return ids;
    }

    auto LintOutcome::verdict() const -> Verdict
    {
        return report.count(model::Severity::error) == 0 ? Verdict::clean : Verdict::findings;
    }

    auto run_lint(const LintRequest& request, Ports& ports) -> util::Result<LintOutcome>
    {
        if (request.files.empty())
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "lint needs at least one environment file ('-' reads standard input)"));
        }
        const auto options = lint_options(request);
        if (!options)
        {
            return util::unexpected(options.error());
        }
        const RunClock clock(ports.clock);
        LintOutcome outcome;
        outcome.report.rules = lint_rule_catalog();
        for (const auto& path : request.files)
        {
            auto file = lint_file(request, path, *options, ports);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            outcome.report.files.push_back(std::move(*file));
        }
        outcome.fleet.runs = { report::to_check_run(outcome.report) };
        clock.stamp(outcome.fleet.runs.front());
        return outcome;
    }
}
