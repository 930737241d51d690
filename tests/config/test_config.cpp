// config::parse_config and parse_pyproject_config: every key read with the line and column it
// came from, and every mistake an error that points at it.
#include <string>
#include <vector>

#include "config/config.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto known() -> config::KnownIds
    {
        return config::KnownIds{
            { "repro.unpinned", "repro.nodefaults", "conflict.conda-and-pip", "yaml.syntax" },
            { "nvml.init", "cuda.device-count", "framework.runtime-check" },
            { "lint", "check", "doctor" },
        };
    }

    auto parse(const std::string& text) -> config::Config
    {
        auto parsed = config::parse_config(text, ".envcheck.toml", known());
        INFO((parsed ? std::string() : parsed.error().to_string()));
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    auto error_of(const std::string& text) -> util::Error
    {
        auto parsed = config::parse_config(text, ".envcheck.toml", known());
        REQUIRE_FALSE(parsed.has_value());
        return parsed.error();
    }

    const std::string full = R"([lint]
ignore = ["repro.nodefaults"]
severity = { "repro.unpinned" = "error", "conflict.conda-and-pip" = "off" }

[lint.per-file-ignores]
"envs/*.yml" = ["repro.unpinned"]

[doctor]
skip = ["framework.runtime-check"]

[check]
tolerances = { "bandwidth.h2d_pinned_gbps" = 0.05, "matmul.tflops" = 0.2 }
gpu-count = 8
fatal-xids = [48, 79]

[format]
default = "json"
lint = "sarif"
)";
}

TEST_CASE("parse_config reads every key with its position", "[config]")
{
    const auto config = parse(full);
    CHECK(config.file == ".envcheck.toml");

    REQUIRE(config.lint.ignore.size() == 1);
    CHECK(config.lint.ignore[0].value == "repro.nodefaults");
    CHECK(config.lint.ignore[0].source.to_string() == ".envcheck.toml:2:11");

    REQUIRE(config.lint.severity.size() == 2);
    const auto& unpinned = config.lint.severity.at("repro.unpinned");
    CHECK(unpinned.value == model::Severity::error);
    CHECK(unpinned.source.line == 3);
    CHECK_FALSE(config.lint.severity.at("conflict.conda-and-pip").value.has_value()); // off

    REQUIRE(config.lint.per_file_ignores.size() == 1);
    CHECK(config.lint.per_file_ignores[0].glob == "envs/*.yml");
    CHECK(config.lint.per_file_ignores[0].rules[0].value == "repro.unpinned");
    CHECK(config.lint.per_file_ignores[0].source.line == 6);

    REQUIRE(config.doctor.skip.size() == 1);
    CHECK(config.doctor.skip[0].value == "framework.runtime-check");
    CHECK(config.doctor.skip[0].source.line == 9);

    CHECK(config.check.tolerances.at("bandwidth.h2d_pinned_gbps").value == Approx(0.05));
    CHECK(config.check.tolerances.at("matmul.tflops").value == Approx(0.2));
    REQUIRE(config.check.gpu_count.has_value());
    CHECK(config.check.gpu_count->value == 8);
    CHECK(config.check.gpu_count->source.to_string() == ".envcheck.toml:13:13");
    REQUIRE(config.check.fatal_xids.has_value());
    CHECK(config.check.fatal_xids->value == std::vector<int>{ 48, 79 });

    REQUIRE(config.format_for("lint") != nullptr);
    CHECK(config.format_for("lint")->value == "sarif");
    CHECK(config.format_for("check")->value == "json"); // the default
    CHECK(config.format_for("check")->source.line == 17);
}

TEST_CASE("an empty configuration is every default", "[config]")
{
    const auto config = parse("");
    CHECK(config.lint.ignore.empty());
    CHECK(config.lint.severity.empty());
    CHECK(config.doctor.skip.empty());
    CHECK(config.check.tolerances.empty());
    CHECK_FALSE(config.check.gpu_count.has_value());
    CHECK_FALSE(config.check.fatal_xids.has_value());
    CHECK(config.format_for("lint") == nullptr);
}

TEST_CASE("configured_format: the command's own, else the default, one of its formats", "[config]")
{
    const auto config = parse("[format]\ndefault = \"json\"\nlint = \"sarif\"\n");
    CHECK(config::configured_format(config, "lint", { "text", "sarif" }).value() == "sarif");
    CHECK(config::configured_format(config, "check", { "text", "json" }).value() == "json");
    CHECK_FALSE(config::configured_format(parse(""), "check", { "text" }).value().has_value());
    const auto wrong = config::configured_format(config, "smoke", { "text", "html" });
    REQUIRE_FALSE(wrong);
    CHECK(wrong.error().kind == util::ErrorKind::usage);
    CHECK(wrong.error().message == "the configured format \"json\" is not one of smoke's");
    CHECK(wrong.error().where.line == 2);
    CHECK(wrong.error().hint ==
          "smoke writes text, html; set [format] smoke = \"...\" for it alone");
}

TEST_CASE("parse_config: mistakes are errors at their line and column", "[config]")
{
    struct Case
    {
        std::string text;
        std::string where;   // file:line:col
        std::string message; // a part of it
    };
    const std::vector<Case> cases{
        { "[lnt]\nignore = []\n", ".envcheck.toml:1:1",
          "unknown key 'lnt' in the configuration; did you mean 'lint'?" },
        { "[lint]\nignores = [\"repro.unpinned\"]\n", ".envcheck.toml:2:11",
          "did you mean 'ignore'?" },
        { "[lint]\nignore = \"repro.unpinned\"\n", ".envcheck.toml:2:10",
          "lint.ignore must be an array, not a string" },
        { "[lint]\nignore = [\"repro.unpined\"]\n", ".envcheck.toml:2:11",
          "unknown lint rule 'repro.unpined'; did you mean 'repro.unpinned'?" },
        { "[lint]\nignore = [1]\n", ".envcheck.toml:2:11", "must be a string, not an integer" },
        { "[lint.severity]\n\"repro.unpinned\" = \"fatal\"\n", ".envcheck.toml:2:20",
          "must be \"error\", \"warning\", \"info\" or \"off\"" },
        { "[lint.severity]\n\"no.such-rule\" = \"off\"\n", ".envcheck.toml:2:18",
          "unknown lint rule 'no.such-rule'" },
        { "[lint]\nseverity = { repro.unpinned = \"off\" }\n", ".envcheck.toml:2:14",
          "ids contain dots" },
        { "[lint.per-file-ignores]\n\"*.yml\" = [\"yaml.sintax\"]\n", ".envcheck.toml:2:12",
          "did you mean 'yaml.syntax'?" },
        { "[doctor]\nskip = [\"nvml.int\"]\n", ".envcheck.toml:2:9",
          "unknown doctor check 'nvml.int'; did you mean 'nvml.init'?" },
        { "[doctor]\nskipped = []\n", ".envcheck.toml:2:11", "unknown key 'skipped' in [doctor]" },
        { "[check]\ngpu-count = 0\n", ".envcheck.toml:2:13",
          "check.gpu-count must be from 1 to 1024, not 0" },
        { "[check]\ngpu-count = \"8\"\n", ".envcheck.toml:2:13",
          "must be an integer, not a string" },
        { "[check]\nfatal-xids = [48, \"79\"]\n", ".envcheck.toml:2:19",
          "must be an integer, not a string" },
        { "[check.tolerances]\n\"matmul.tflops\" = 1.5\n", ".envcheck.toml:2:19",
          "a fraction above 0 and below 1" },
        { "[check.tolerances]\n\"matmul.tflops\" = \"5%\"\n", ".envcheck.toml:2:19",
          "must be a fraction such as 0.05" },
        { "[format]\nlnt = \"json\"\n", ".envcheck.toml:2:7", "did you mean 'lint'?" },
        { "[format]\nlint = 3\n", ".envcheck.toml:2:8", "format.lint must be a string" },
        { "lint = 3\n", ".envcheck.toml:1:8", "[lint] must be a table" },
        { "[lint\n", ".envcheck.toml:1:6", "not valid TOML" },
    };
    for (const auto& item : cases)
    {
        CAPTURE(item.text);
        const auto error = error_of(item.text);
        CHECK(error.kind == util::ErrorKind::usage);
        CHECK(error.where.to_string() == item.where);
        CAPTURE(error.message);
        CHECK(error.message.find(item.message) != std::string::npos);
    }
}

TEST_CASE("parse_pyproject_config reads [tool.envcheck]", "[config]")
{
    const std::string with = "[project]\nname = \"demo\"\n\n[tool.envcheck.lint]\nignore = "
                             "[\"repro.nodefaults\"]\n";
    auto parsed = config::parse_pyproject_config(with, "pyproject.toml", known());
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->has_value());
    CHECK((*parsed)->lint.ignore[0].source.to_string() == "pyproject.toml:5:11");

    auto without =
      config::parse_pyproject_config("[project]\nname = \"demo\"\n", "pyproject.toml", known());
    REQUIRE(without.has_value());
    CHECK_FALSE(without->has_value());

    auto wrong =
      config::parse_pyproject_config("[tool.envcheck]\nlints = {}\n", "pyproject.toml", known());
    REQUIRE_FALSE(wrong.has_value());
    CHECK(wrong.error().to_string() ==
          "pyproject.toml:2:9: unknown key 'lints' in [tool.envcheck]; did you mean 'lint'?");
}

TEST_CASE("glob_matches: a glob with '/' the path, one without the file name", "[config]")
{
    struct Case
    {
        std::string glob;
        std::string path;
        bool matches;
    };
    const std::vector<Case> cases{
        { "*.yml", "environment.yml", true },
        { "*.yml", "envs/gpu.yml", true },
        { "environment.yml", "envs/environment.yml", true },
        { "envs/*.yml", "envs/gpu.yml", true },
        { "envs/*.yml", "gpu.yml", false },
        { "envs/*", "envs/a/b.yml", true },
        { "*.yaml", "environment.yml", false },
        { "legacy-*.yml", "legacy-cuda11.yml", true },
    };
    for (const auto& item : cases)
    {
        CAPTURE(item.glob, item.path);
        CHECK(config::glob_matches(item.glob, item.path) == item.matches);
    }
}
