// Renderers for `envcheck lint`: findings per file, as a compiler prints them (text), as the
// JSON other tools rely on (schemas/lint-report.schema.json), as SARIF 2.1.0 for code scanning,
// and as GitHub workflow annotations. Pure: the report comes in as values.
#ifndef ENVCHECK_REPORT_LINT_REPORT_HPP
#define ENVCHECK_REPORT_LINT_REPORT_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_result.hpp"
#include "model/severity.hpp"

namespace envcheck::report
{
    // Why a finding is not counted: an inline `# envcheck: ignore[...]` comment, or the
    // configuration (lint.ignore, lint.per-file-ignores, a severity of "off").
    struct Suppression
    {
        enum class Kind
        {
            inline_comment, // JSON "inline", SARIF "inSource"
            config,         // JSON "config", SARIF "external"
        };
        Kind kind = Kind::inline_comment;
        std::string where; // "environment.yml:7:30", ".envcheck.toml:3:11"
    };

    struct LintDiagnostic
    {
        model::Severity severity = model::Severity::error;
        std::string rule;
        std::string message;
        std::size_t line = 1; // 1-based
        std::size_t column = 1;
        std::string fix;
        std::optional<Suppression> suppressed =
          std::nullopt; // left out of text, counts and exit codes
    };

    struct LintFile
    {
        std::string path; // as given on the command line
        std::vector<LintDiagnostic> diagnostics;
    };

    struct LintRuleInfo
    {
        std::string id;
        model::Severity severity = model::Severity::error;
        std::string description;
        std::string fix;
    };

    struct LintReport
    {
        std::vector<LintFile> files;
        std::vector<LintRuleInfo> rules; // every rule that can fire (SARIF lists them)

        // Findings of `severity` that are not suppressed.
        [[nodiscard]] auto count(model::Severity severity) const -> std::size_t;
        [[nodiscard]] auto count_suppressed() const -> std::size_t;
    };

    enum class LintFormat
    {
        text,
        json,
        sarif,
        github,
    };

    [[nodiscard]] auto to_string(LintFormat format) -> std::string_view;
    [[nodiscard]] auto parse_lint_format(std::string_view text) -> std::optional<LintFormat>;

    // "file:line:col: severity [rule] message", an indented "fix:" line, and a summary line.
    [[nodiscard]] auto render_lint_text(const LintReport& report) -> std::string;
    // {"schema_version":1,"files":[{"path","diagnostics":[{severity,rule,message,line,column,
    //  fix[,suppressed:{kind,where}]}]}],"summary":{"errors","warnings","suppressed"}}
    [[nodiscard]] auto render_lint_json(const LintReport& report) -> std::string;
    // SARIF 2.1.0: one run, the rule table as tool.driver.rules, one result per diagnostic; a
    // suppressed one with `suppressions` (kind inSource or external).
    [[nodiscard]] auto render_lint_sarif(const LintReport& report, std::string_view tool_version)
      -> std::string;
    // "::error file=F,line=L,col=C,title=[rule]::message" workflow commands.
    [[nodiscard]] auto render_lint_github(const LintReport& report) -> std::string;
    // The fleet formats' shape: one outcome per diagnostic (error -> fail, warning -> warn,
    // info -> pass; id the rule, labels file/line/column), and a passing outcome "lint.file"
    // for each file without findings.
    [[nodiscard]] auto to_check_run(const LintReport& report) -> model::CheckRun;

    [[nodiscard]] auto render_lint(const LintReport& report, LintFormat format,
                                   std::string_view tool_version) -> std::string;

    // `envcheck lint --list-rules`: one block per rule (text) or an array of rules (json).
    [[nodiscard]] auto render_rule_list(const std::vector<LintRuleInfo>& rules, LintFormat format)
      -> std::string;
}

#endif
