#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/lint_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck::report;
using envcheck::model::Severity;
using envcheck::tests::check_golden;

namespace
{
    auto sample_report() -> LintReport
    {
        LintReport report;
        report.rules = {
            { "syntax.matchspec", Severity::error, "A dependency that is not a MatchSpec.",
              "Write name, version and build." },
            { "repro.unpinned", Severity::warning, "A package without a version.",
              "Pin a version." },
            { "repro.nodefaults", Severity::info, "Channels without nodefaults.",
              "Add nodefaults." },
        };
        report.files.push_back(LintFile{
          "envs/broken/my env,1.yml",
          {
            { Severity::error, "syntax.matchspec",
              "'numpy>=>1' is not a MatchSpec: expected a version after '>=' at column 8", 4, 11,
              "Write name, version and build." },
            { Severity::warning, "repro.unpinned", "'scipy' has no version: 100% of releases match",
              5, 5, "Pin a version, e.g. 'scipy=1.13'." },
            { Severity::info, "repro.nodefaults", "channels do not end with 'nodefaults'", 2, 1,
              "" },
            { Severity::warning, "repro.unpinned", "'numba' has no version: 100% of releases match",
              6, 5, "Pin a version, e.g. 'numba=0.60'.",
              Suppression{ Suppression::Kind::inline_comment, "envs/broken/my env,1.yml:6:30" } },
            { Severity::error, "syntax.matchspec", "'torch>=>2' is not a MatchSpec", 7, 5,
              "Write name, version and build.",
              Suppression{ Suppression::Kind::config, ".envcheck.toml:2:11" } },
          } });
        report.files.push_back(LintFile{ "/abs/clean.yml", {} });
        return report;
    }

    TEST_CASE("render_lint_text", "[report][LintReport]")
    {
        check_golden("../envfiles/golden/lint_report.txt", render_lint_text(sample_report()));
        LintReport clean;
        clean.files.push_back(LintFile{ "environment.yml", {} });
        CHECK(render_lint_text(clean) == "checked 1 file: no problems\n");
    }

    TEST_CASE("render_lint_json", "[report][LintReport]")
    {
        const std::string text = render_lint_json(sample_report());
        check_golden("../envfiles/golden/lint_report.json", text);
        const auto document = nlohmann::json::parse(text);
        CHECK(document["summary"]["errors"] == 1);
        CHECK(document["summary"]["warnings"] == 1);
        CHECK(document["summary"]["suppressed"] == 2);
        CHECK(document["files"][0]["diagnostics"][3]["suppressed"] ==
              nlohmann::json{ { "kind", "inline" }, { "where", "envs/broken/my env,1.yml:6:30" } });
        CHECK(document["files"][0]["diagnostics"][4]["suppressed"]["kind"] == "config");
        CHECK_FALSE(document["files"][0]["diagnostics"][0].contains("suppressed"));
        CHECK(document["files"][0]["diagnostics"][0]["line"].is_number_integer());
        CHECK(document["files"][1]["diagnostics"].empty());
    }

    TEST_CASE("render_lint_sarif", "[report][LintReport]")
    {
        const std::string text = render_lint_sarif(sample_report(), "0.1.0");
        check_golden("../envfiles/golden/lint_report.sarif", text);
        const auto document = nlohmann::json::parse(text);
        CHECK(document["version"] == "2.1.0");
        const auto& run = document["runs"][0];
        CHECK(run["tool"]["driver"]["rules"].size() == 3);
        const auto& result = run["results"][0];
        CHECK(result["ruleIndex"] == 0);
        CHECK(result["level"] == "error");
        const auto& location = result["locations"][0]["physicalLocation"];
        CHECK(location["artifactLocation"]["uri"] == "envs/broken/my%20env%2C1.yml");
        CHECK(location["region"]["startLine"] == 4);
        CHECK(location["region"]["startColumn"] == 11);
        CHECK(run["results"][2]["level"] == "note");
        CHECK_FALSE(run["results"][2].contains("suppressions"));
        CHECK(run["results"][3]["suppressions"][0]["kind"] == "inSource");
        CHECK(run["results"][4]["suppressions"][0]["kind"] == "external");
    }

    TEST_CASE("render_lint_github", "[report][LintReport]")
    {
        check_golden("../envfiles/golden/lint_report.github", render_lint_github(sample_report()));
    }

    TEST_CASE("render_rule_list", "[report][LintReport]")
    {
        check_golden("../envfiles/golden/rule_list.txt",
                     render_rule_list(sample_report().rules, LintFormat::text));
        const auto list =
          nlohmann::json::parse(render_rule_list(sample_report().rules, LintFormat::json));
        REQUIRE(list.size() == 3);
        CHECK(list[1]["id"] == "repro.unpinned");
        CHECK(list[1]["severity"] == "warning");
    }

    TEST_CASE("LintFormat round trip", "[report][LintReport]")
    {
        for (const auto format :
             { LintFormat::text, LintFormat::json, LintFormat::sarif, LintFormat::github })
        {
            CHECK(parse_lint_format(to_string(format)) == format);
            CHECK_FALSE(render_lint(sample_report(), format, "0.1.0").empty());
        }
        CHECK_FALSE(parse_lint_format("xml"));
    }
}
