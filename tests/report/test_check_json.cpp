#include <nlohmann/json.hpp>

#include "report/check_json.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"
#include "tests/report/test_check_report.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("render_check_json golden", "[report][CheckJson]")
    {
        tests::check_golden("check/drift.json", report::render_check_json(tests::sample_check()));
    }

    TEST_CASE("check_report_json shape other tools rely on", "[report][CheckJson]")
    {
        const auto out = report::check_report_json(tests::sample_check());
        CHECK(out["schema_version"] == report::check_schema_version);
        CHECK(out["status"] == "fail");
        const auto& packages = out["packages"];
        REQUIRE(packages.size() == 7);
        for (const auto& package : packages)
        {
            CHECK(package.contains("name"));
            CHECK((package["manager"] == "conda" || package["manager"] == "pip"));
            CHECK(package.contains("spec"));
            CHECK(package.contains("expected"));
            CHECK(package.contains("installed"));
        }
        CHECK(packages[0]["status"] == "ok");
        CHECK(packages[1]["status"] == "changed");
        CHECK(packages[2]["status"] == "unsatisfied");
        CHECK(packages[3]["status"] == "missing");
        CHECK(packages[3]["installed"].is_null());
        CHECK(packages[4]["status"] == "extra");
        CHECK(packages[4]["expected"].is_null());
        CHECK(packages[4]["spec"].is_null());
        CHECK(packages[5]["status"] == "broken-dependency");
        CHECK(packages[6]["status"] == "conflicting-constraint");
        CHECK(out["summary"]["broken-dependency"] == 1);
        CHECK(out["summary"]["conflicting-constraint"] == 1);
        CHECK(out["summary"]["files_untracked"] == 1);
        CHECK(out["summary"]["files_wrong_record_hash"] == 1);
        CHECK(out["inputs"]["untracked"] == true);
        CHECK(out["summary"]["changed"] == 1);
        CHECK(out["summary"]["files_missing"] == 1);
        CHECK(out["machine"]["status"] == "fail");
        CHECK(out["performance"]["status"] == "pass");
        CHECK(out["performance"]["checks"][0]["metrics"]["baseline"] == 55.125);

        model::EnvironmentCheck clean;
        model::PackageFinding ok;
        ok.name = "a";
        clean.packages = { ok };
        const auto passed = report::check_report_json(clean);
        CHECK(passed["status"] == "pass");
        CHECK(passed["machine"]["status"] == "skip");
        CHECK(passed["summary"]["files_checked"].is_null()); // not --deep
    }

    TEST_CASE("render_check_json invalid UTF-8 from a dist-info", "[report][CheckJson]")
    {
        model::EnvironmentCheck check;
        model::PackageFinding finding;
        finding.name = "caf\xe9"; // Latin-1 in a METADATA file
        finding.manager = model::Manager::pip;
        finding.status = model::PackageStatus::extra;
        check.packages = { finding };
        std::string rendered;
        REQUIRE_NOTHROW(rendered = report::render_check_json(check));
        CHECK(rendered.find("caf\xef\xbf\xbd") != std::string::npos); // U+FFFD
    }
}
