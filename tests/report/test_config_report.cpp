// `envcheck config`: every setting with its source (text), and the JSON of
// schemas/config-report.schema.json; golden files.
#include <string>

#include <nlohmann/json.hpp>

#include "report/config_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck;
using envcheck::tests::check_golden;

namespace
{
    auto at(std::size_t line, std::size_t column) -> config::Source
    {
        return config::Source{ config::Source::Kind::file, "/work/project/.envcheck.toml", line,
                               column };
    }

    auto sample() -> config::Config
    {
        config::Config config;
        config.file = "/work/project/.envcheck.toml";
        config.lint.ignore = { { "repro.nodefaults", at(2, 11) } };
        config.lint.severity["repro.unpinned"] = { model::Severity::error, at(3, 32) };
        config.lint.severity["conflict.conda-and-pip"] = { std::nullopt, at(3, 60) };
        config.lint.per_file_ignores = {
            { "legacy-*.yml", { { "repro.unpinned", at(6, 19) } }, at(6, 18) }
        };
        config.doctor.skip = { { "framework.runtime-check", at(9, 9) } };
        config.check.tolerances["bandwidth.h2d_pinned_gbps"] = { 0.05, at(12, 46) };
        config.check.gpu_count = config::Setting<int>{ 8, at(13, 13) };
        config.formats["lint"] = { "sarif", at(16, 8) };
        return config;
    }
}

TEST_CASE("render_config_text", "[report][config]")
{
    check_golden("config/config.txt",
                 report::render_config_text(sample(), "found in /work/project"));
    const auto none = report::render_config_text(config::Config{}, "none in /tmp or above it");
    CHECK(none.starts_with("# configuration: none (none in /tmp or above it)\n"));
    CHECK(none.find("lint.ignore = []") != std::string::npos);
}

TEST_CASE("render_config_json", "[report][config]")
{
    const auto text = report::render_config_json(sample(), "found in /work/project");
    check_golden("config/config.json", text);
    const auto document = nlohmann::json::parse(text);
    CHECK(document["file"] == "/work/project/.envcheck.toml");
    const auto& first = document["settings"][0];
    CHECK(first["key"] == "lint.ignore");
    CHECK(first["value"] == nlohmann::json::array({ "repro.nodefaults" }));
    CHECK(first["source"]["line"] == 2);
    const auto none = nlohmann::json::parse(report::render_config_json({}, "none"));
    CHECK(none["file"].is_null());
    for (const auto& setting : none["settings"])
    {
        CHECK(setting["source"].is_null());
    }
}
