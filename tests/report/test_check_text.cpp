#include "report/check_text.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"
#include "tests/report/test_check_report.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("render_check_text golden", "[report][CheckText]")
    {
        SECTION("every category")
        {
            tests::check_golden("check/drift.txt",
                                report::render_check_text(tests::sample_check()));
        }
        SECTION("verbose lists the matching packages too")
        {
            const auto text =
              report::render_check_text(tests::sample_check(), report::CheckTextOptions{ true });
            CHECK(text.find("ok (1)\n  conda numpy") != std::string::npos);
        }
        SECTION("a clean environment")
        {
            model::EnvironmentCheck check;
            check.prefix = "/opt/envs/ml";
            check.lock_file = "conda-lock.yml";
            check.lock_format = "conda-lock";
            model::PackageFinding ok;
            ok.name = "numpy";
            check.packages = { ok, ok };
            tests::check_golden("check/clean.txt", report::render_check_text(check));
        }
    }
}
