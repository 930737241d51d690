#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/diff_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck::report;
using envcheck::model::Manager;
using envcheck::tests::check_golden;

namespace
{
    auto sample_report() -> DiffReport
    {
        DiffReport report;
        report.old_path = "envs/resnet50-cuda11.8.yml";
        report.new_path = "environment.yml";
        report.old_channels = { "pytorch", "nvidia", "defaults" };
        report.new_channels = { "nvidia", "pytorch", "conda-forge" };
        report.channels_added = { "conda-forge" };
        report.channels_removed = { "defaults" };
        report.channels_reordered = true;
        report.entries = {
            { DiffChange::added, "jupyterlab", Manager::conda, std::nullopt, "jupyterlab=4.2", {} },
            { DiffChange::removed, "ipykernel", Manager::conda, "ipykernel", std::nullopt, {} },
            { DiffChange::changed,
              "pytorch-cuda",
              Manager::conda,
              "pytorch-cuda=11.8",
              "pytorch-cuda=12.1",
              { { "cuda", "CUDA 11.8 -> 12.1 (minor)" } } },
            { DiffChange::changed,
              "python",
              Manager::conda,
              "python=3.9",
              "python=3.10",
              { { "python", "python 3.9 -> 3.10" } } },
            { DiffChange::changed, "markers", Manager::pip, "a|b", "a | c", {} },
        };
        return report;
    }

    TEST_CASE("render_diff_text", "[report][DiffReport]")
    {
        check_golden("../envfiles/golden/diff_report.txt", render_diff_text(sample_report()));
        DiffReport same;
        same.old_path = "a.yml";
        same.new_path = "b.yml";
        CHECK(render_diff_text(same) == "--- a.yml\n+++ b.yml\nno differences\n");
    }

    TEST_CASE("render_diff_markdown", "[report][DiffReport]")
    {
        check_golden("../envfiles/golden/diff_report.md", render_diff_markdown(sample_report()));
        DiffReport same;
        same.old_path = "a.yml";
        same.new_path = "b.yml";
        CHECK(render_diff_markdown(same) ==
              "**envcheck diff** `a.yml` → `b.yml`: no differences\n");
    }

    TEST_CASE("render_diff_json", "[report][DiffReport]")
    {
        const std::string text = render_diff_json(sample_report());
        check_golden("../envfiles/golden/diff_report.json", text);
        const auto document = nlohmann::json::parse(text);
        CHECK(document["equal"] == false);
        CHECK(document["packages"][0]["old"].is_null());
        CHECK(document["summary"]["changed"] == 3);
        CHECK(document["summary"]["risky"] == 2);
    }

    TEST_CASE("DiffReport counts", "[report][DiffReport]")
    {
        const DiffReport report = sample_report();
        CHECK_FALSE(report.equal());
        CHECK(report.count(DiffChange::added) == 1);
        CHECK(report.count(DiffChange::removed) == 1);
        CHECK(report.risky() == 2);
        DiffReport reordered;
        reordered.channels_reordered = true;
        CHECK_FALSE(reordered.equal());
        for (const auto format : { DiffFormat::text, DiffFormat::markdown, DiffFormat::json })
        {
            CHECK(parse_diff_format(to_string(format)) == format);
        }
        CHECK_FALSE(parse_diff_format("html"));
    }
}
