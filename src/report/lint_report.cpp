#include "report/lint_report.hpp"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "report/github_commands.hpp"
#include "util/enum_text.hpp"

namespace envcheck::report
{
    using model::Severity;

    namespace
    {
        using Json = nlohmann::ordered_json;

        constexpr std::string_view sarif_schema = "https://json.schemastore.org/sarif-2.1.0.json";
        constexpr std::string_view information_uri = "https://github.com/envcheck/envcheck";

        auto plural(std::size_t count, std::string_view one, std::string_view many) -> std::string
        {
            return std::to_string(count) + " " + std::string(count == 1 ? one : many);
        }

        auto sarif_level(Severity severity) -> std::string_view
        {
            switch (severity)
            {
                case Severity::error:
                    return "error";
                case Severity::warning:
                    return "warning";
                case Severity::info:
                    return "note";
            }
            return "none";
        }

        // A SARIF artifact URI for a path as the user gave it: relative paths stay relative
        // (code scanning resolves them against the checkout), absolute ones become file: URIs.
        auto to_uri(std::string_view path) -> std::string
        {
            static constexpr std::string_view unreserved =
              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/";
            static constexpr std::string_view hex = "0123456789ABCDEF";
            std::string uri = path.starts_with('/') ? "file://" : "";
            for (const char c : path)
            {
                if (unreserved.find(c) != std::string_view::npos)
                {
                    uri += c;
                    continue;
                }
                const auto byte = static_cast<unsigned char>(c);
                uri += '%';
                uri += hex[byte >> 4U];
                uri += hex[byte & 0xFU];
            }
            return uri;
        }

        auto github_command(Severity severity) -> std::string_view
        {
            switch (severity)
            {
                case Severity::error:
                    return "error";
                case Severity::warning:
                    return "warning";
                case Severity::info:
                    return "notice";
            }
            return "notice";
        }

        auto suppression_kind(const Suppression& suppression) -> std::string_view
        {
            return suppression.kind == Suppression::Kind::inline_comment ? "inline" : "config";
        }

        // SARIF's suppression object (3.35): inSource for a comment in the file, external for
        // the configuration.
        auto sarif_suppression(const Suppression& suppression) -> Json
        {
            const bool in_source = suppression.kind == Suppression::Kind::inline_comment;
            return Json{ { "kind", in_source ? "inSource" : "external" },
                         { "justification",
                           (in_source ? "envcheck: ignore comment at " : "configuration at ") +
                             suppression.where } };
        }

        auto rule_json(const LintRuleInfo& rule) -> Json
        {
            return Json{ { "id", rule.id },
                         { "severity", to_string(rule.severity) },
                         { "description", rule.description },
                         { "fix", rule.fix } };
        }
    }

    auto to_string(LintFormat format) -> std::string_view
    {
        switch (format)
        {
            case LintFormat::text:
                return "text";
            case LintFormat::json:
                return "json";
            case LintFormat::sarif:
                return "sarif";
            case LintFormat::github:
                return "github";
        }
        return "text";
    }

    auto parse_lint_format(std::string_view text) -> std::optional<LintFormat>
    {
        return util::parse_enum(
          text, { LintFormat::text, LintFormat::json, LintFormat::sarif, LintFormat::github });
    }

    auto LintReport::count(Severity severity) const -> std::size_t
    {
        std::size_t total = 0;
        for (const auto& file : files)
        {
            total += static_cast<std::size_t>(
              std::count_if(file.diagnostics.begin(), file.diagnostics.end(),
                            [&](const LintDiagnostic& item)
                            { return item.severity == severity && !item.suppressed; }));
        }
        return total;
    }

    auto LintReport::count_suppressed() const -> std::size_t
    {
        std::size_t total = 0;
        for (const auto& file : files)
        {
            total += static_cast<std::size_t>(std::count_if(
              file.diagnostics.begin(), file.diagnostics.end(),
              [](const LintDiagnostic& item) { return item.suppressed.has_value(); }));
        }
        return total;
    }

    auto render_lint_text(const LintReport& report) -> std::string
    {
        std::string out;
        for (const auto& file : report.files)
        {
            for (const auto& item : file.diagnostics)
            {
                if (item.suppressed)
                {
                    continue;
                }
                out += file.path + ":" + std::to_string(item.line) + ":" +
                       std::to_string(item.column) + ": " + std::string(to_string(item.severity)) +
                       " [" + item.rule + "] " + item.message + "\n";
                if (!item.fix.empty())
                {
                    out += "    fix: " + item.fix + "\n";
                }
            }
        }
        const std::size_t errors = report.count(Severity::error);
        const std::size_t warnings = report.count(Severity::warning);
        const std::size_t infos = report.count(Severity::info);
        out += "checked " + plural(report.files.size(), "file", "files") + ": ";
        if (errors + warnings + infos == 0)
        {
            out += "no problems\n";
        }
        else
        {
            out += plural(errors, "error", "errors") + ", " +
                   plural(warnings, "warning", "warnings") + ", " + std::to_string(infos) +
                   " info\n";
        }
        if (const auto suppressed = report.count_suppressed(); suppressed != 0)
        {
            out.insert(out.size() - 1, " (" + std::to_string(suppressed) + " suppressed)");
        }
        return out;
    }

    auto render_lint_json(const LintReport& report) -> std::string
    {
        Json files = Json::array();
        for (const auto& file : report.files)
        {
            Json diagnostics = Json::array();
            for (const auto& item : file.diagnostics)
            {
                Json diagnostic{ { "severity", to_string(item.severity) },
                                 { "rule", item.rule },
                                 { "message", item.message },
                                 { "line", item.line },
                                 { "column", item.column },
                                 { "fix", item.fix } };
                if (item.suppressed)
                {
                    diagnostic["suppressed"] = { { "kind", suppression_kind(*item.suppressed) },
                                                 { "where", item.suppressed->where } };
                }
                diagnostics.push_back(std::move(diagnostic));
            }
            files.push_back(
              Json{ { "path", file.path }, { "diagnostics", std::move(diagnostics) } });
        }
        const Json document{ { "schema_version", 1 },
                             { "files", std::move(files) },
                             { "summary",
                               { { "errors", report.count(Severity::error) },
                                 { "warnings", report.count(Severity::warning) },
                                 { "suppressed", report.count_suppressed() } } } };
        return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    }

    auto render_lint_sarif(const LintReport& report, std::string_view tool_version) -> std::string
    {
        Json rules = Json::array();
        for (const auto& rule : report.rules)
        {
            rules.push_back(
              Json{ { "id", rule.id },
                    { "shortDescription", { { "text", rule.description } } },
                    { "help", { { "text", rule.fix } } },
                    { "defaultConfiguration", { { "level", sarif_level(rule.severity) } } } });
        }
        Json results = Json::array();
        for (const auto& file : report.files)
        {
            for (const auto& item : file.diagnostics)
            {
                Json result{ { "ruleId", item.rule } };
                const auto rule =
                  std::find_if(report.rules.begin(), report.rules.end(),
                               [&](const LintRuleInfo& row) { return row.id == item.rule; });
                if (rule != report.rules.end())
                {
                    result["ruleIndex"] = rule - report.rules.begin();
                }
                result["level"] = sarif_level(item.severity);
                result["message"] = { { "text", item.fix.empty()
                                                  ? item.message
                                                  : item.message + "\nfix: " + item.fix } };
                Json artifact{ { "uri", to_uri(file.path) } };
                if (!file.path.starts_with('/'))
                {
                    artifact["uriBaseId"] = "%SRCROOT%";
                }
                result["locations"] =
                  Json::array({ { { "physicalLocation",
                                    { { "artifactLocation", std::move(artifact) },
                                      { "region",
                                        { { "startLine", item.line },
                                          { "startColumn", item.column } } } } } } });
                if (item.suppressed)
                {
                    result["suppressions"] = Json::array({ sarif_suppression(*item.suppressed) });
                }
                results.push_back(std::move(result));
            }
        }
        const Json document{ { "$schema", sarif_schema },
                             { "version", "2.1.0" },
                             { "runs",
                               Json::array({ { { "tool",
                                                 { { "driver",
                                                     { { "name", "envcheck" },
                                                       { "version", tool_version },
                                                       { "informationUri", information_uri },
                                                       { "rules", std::move(rules) } } } } },
                                               { "results", std::move(results) } } }) } };
        return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    }

    auto render_lint_github(const LintReport& report) -> std::string
    {
        std::string out;
        for (const auto& file : report.files)
        {
            for (const auto& item : file.diagnostics)
            {
                if (item.suppressed)
                {
                    continue;
                }
                std::string message = item.message;
                if (!item.fix.empty())
                {
                    message += "\nfix: " + item.fix;
                }
                out += "::" + std::string(github_command(item.severity)) +
                       " file=" + github_property(file.path) +
                       ",line=" + std::to_string(item.line) +
                       ",col=" + std::to_string(item.column) +
                       ",title=" + github_property("[" + item.rule + "]") +
                       "::" + github_data(message) + "\n";
            }
        }
        return out;
    }

    auto render_lint(const LintReport& report, LintFormat format, std::string_view tool_version)
      -> std::string
    {
        switch (format)
        {
            case LintFormat::text:
                return render_lint_text(report);
            case LintFormat::json:
                return render_lint_json(report);
            case LintFormat::sarif:
                return render_lint_sarif(report, tool_version);
            case LintFormat::github:
                return render_lint_github(report);
        }
        return render_lint_text(report);
    }

    auto render_rule_list(const std::vector<LintRuleInfo>& rules, LintFormat format) -> std::string
    {
        if (format == LintFormat::json || format == LintFormat::sarif)
        {
            Json list = Json::array();
            for (const auto& rule : rules)
            {
                list.push_back(rule_json(rule));
            }
            return list.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        }
        std::size_t width = 4;
        for (const auto& rule : rules)
        {
            width = std::max(width, rule.id.size());
        }
        auto pad = [](std::string text, std::size_t size)
        {
            text.resize(std::max(size, text.size()), ' ');
            return text;
        };
        std::string out = pad("RULE", width + 2) + pad("SEVERITY", 10) + "DESCRIPTION\n";
        for (const auto& rule : rules)
        {
            out += pad(rule.id, width + 2) + pad(std::string(to_string(rule.severity)), 10) +
                   rule.description + "\n" + std::string(width + 12, ' ') + "fix: " + rule.fix +
                   "\n";
        }
        return out;
    }

    auto to_check_run(const LintReport& report) -> model::CheckRun
    {
        model::CheckRun run;
        run.command = "lint";
        for (const auto& file : report.files)
        {
            const bool clean =
              std::all_of(file.diagnostics.begin(), file.diagnostics.end(),
                          [](const LintDiagnostic& item) { return item.suppressed.has_value(); });
            if (clean)
            {
                run.outcomes.push_back({ "lint.file",
                                         model::Status::pass,
                                         file.path + ": no findings",
                                         "",
                                         {},
                                         { { "file", file.path } } });
            }
            for (const auto& diagnostic : file.diagnostics)
            {
                if (diagnostic.suppressed)
                {
                    continue;
                }
                model::CheckOutcome outcome;
                outcome.id = diagnostic.rule;
                outcome.status = model::status_of(diagnostic.severity);
                outcome.message = file.path + ":" + std::to_string(diagnostic.line) + ":" +
                                  std::to_string(diagnostic.column) + ": " + diagnostic.message;
                outcome.fix = diagnostic.fix;
                outcome.labels = { { "file", file.path },
                                   { "line", std::to_string(diagnostic.line) },
                                   { "column", std::to_string(diagnostic.column) } };
                run.outcomes.push_back(std::move(outcome));
            }
        }
        return run;
    }
}
