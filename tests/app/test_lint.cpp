#include <algorithm>
#include <string>
#include <vector>

#include "app/lint.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto lint(FakeWorld& world, const app::LintRequest& request) -> app::LintOutcome
    {
        auto outcome = app::run_lint(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }

    auto rules(const report::LintFile& file) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        for (const auto& diagnostic : file.diagnostics)
        {
            out.push_back(std::string(model::to_string(diagnostic.severity)) + " " +
                          diagnostic.rule);
        }
        return out;
    }

    const std::string pinned = "name: demo\nchannels: [conda-forge, nodefaults]\ndependencies:\n"
                               "  - python=3.11.7\n  - numpy=1.26.4\n";
}

TEST_CASE("run_lint", "[app][lint]")
{
    FakeWorld world;
    world.files.files["environment.yml"] = pinned;
    world.files.files["broken.yml"] = "dependencies:\n\t- numpy\n";
    app::LintRequest request;

    SECTION("a clean file")
    {
        request.files = { "environment.yml" };
        const auto outcome = lint(world, request);
        CHECK(outcome.verdict() == app::Verdict::clean);
        REQUIRE(outcome.report.files.size() == 1);
        CHECK(outcome.report.files[0].path == "environment.yml");
        CHECK(outcome.report.rules.size() == app::lint_rule_catalog().size());
        REQUIRE(outcome.fleet.runs.size() == 1);
        CHECK(outcome.fleet.runs[0].command == "lint");
        CHECK(outcome.fleet.runs[0].duration_seconds == Approx(0.5));
    }

    SECTION("an error is a finding; every file is reported")
    {
        request.files = { "environment.yml", "broken.yml" };
        const auto outcome = lint(world, request);
        CHECK(outcome.verdict() == app::Verdict::findings);
        REQUIRE(outcome.report.files.size() == 2);
        CHECK(rules(outcome.report.files[1]).front().starts_with("error yaml."));
    }

    SECTION("--strict makes an unpinned spec an error")
    {
        world.files.files["loose.yml"] = "channels: [conda-forge]\ndependencies:\n  - numpy\n";
        request.files = { "loose.yml" };
        CHECK(lint(world, request).verdict() == app::Verdict::clean);
        request.strict = true;
        CHECK(lint(world, request).verdict() == app::Verdict::findings);
    }

    SECTION("usage errors")
    {
        const auto none = app::run_lint(request, world.ports);
        REQUIRE_FALSE(none.has_value());
        CHECK(none.error().message ==
              "lint needs at least one environment file ('-' reads standard input)");

        request.files = { "environment.yml" };
        request.target_driver = "latest";
        const auto driver = app::run_lint(request, world.ports);
        REQUIRE_FALSE(driver.has_value());
        CHECK(driver.error().message ==
              "--target-driver 'latest' is not an NVIDIA driver version such as 535.104.05");

        request.target_driver.clear();
        request.target_cuda = "twelve";
        const auto cuda = app::run_lint(request, world.ports);
        REQUIRE_FALSE(cuda.has_value());
        CHECK(cuda.error().kind == util::ErrorKind::usage);

        request.target_cuda.clear();
        request.files = { "environment.yml", "nope.yml" };
        const auto missing = app::run_lint(request, world.ports);
        REQUIRE_FALSE(missing.has_value());
        CHECK(missing.error().kind == util::ErrorKind::io);
    }
}

TEST_CASE("run_lint --check-channels", "[app][lint]")
{
    FakeWorld world;
    world.files.files["environment.yml"] = pinned;
    world.environment["HOME"] = "/home/user";
    const std::string base = "https://conda.anaconda.org/conda-forge/";
    world.repodata.bodies[base + "linux-64/repodata.json"] =
      R"({"info": {"subdir": "linux-64"}, "packages": {}, "packages.conda": {
          "python-3.11.7-hab00c5b_0_cpython.conda": {"name": "python", "version": "3.11.7",
            "build": "hab00c5b_0_cpython", "build_number": 0, "depends": []}}})";
    world.repodata.bodies[base + "noarch/repodata.json"] =
      R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})";
    app::LintRequest request;
    request.files = { "environment.yml" };
    request.channels.enabled = true;
    request.channels.offline = true;

    SECTION("a pin nothing publishes is an error")
    {
        const auto outcome = lint(world, request);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(rules(outcome.report.files[0]) ==
              std::vector<std::string>{ "error channel-availability" });
        CHECK(outcome.report.files[0].diagnostics[0].line == 5); // numpy=1.26.4
        CHECK(world.repodata.opened.size() == 1);
        CHECK(world.repodata.opened[0].offline);
        CHECK(world.repodata.fetched == std::vector<std::string>{ base + "linux-64/repodata.json",
                                                                  base + "noarch/repodata.json" });
    }

    SECTION("a subdir that cannot be fetched is a warning, not a verdict")
    {
        world.repodata.failing.insert(base + "linux-64/repodata.json");
        const auto outcome = lint(world, request);
        const auto found = rules(outcome.report.files[0]);
        CHECK(std::count(found.begin(), found.end(), "warning channel-availability") >= 1);
        CHECK(std::count(found.begin(), found.end(), "error channel-availability") == 0);
    }

    SECTION("an unknown platform is bad usage")
    {
        request.channels.platform = "linux-128";
        const auto outcome = app::run_lint(request, world.ports);
        REQUIRE_FALSE(outcome.has_value());
        CHECK(world.repodata.fetched.empty());
    }

    SECTION("the channel alias of ~/.condarc")
    {
        world.files.files["/home/user/.condarc"] = "channel_alias: https://mirror.example.org\n";
        world.repodata.bodies.clear();
        (void)lint(world, request);
        REQUIRE_FALSE(world.repodata.fetched.empty());
        CHECK(world.repodata.fetched[0].starts_with("https://mirror.example.org/conda-forge/"));
    }
}

TEST_CASE("run_lint: requirements.txt and pyproject.toml as pip sections", "[app][lint]")
{
    FakeWorld world;
    app::LintRequest request;
    // Each file: the findings, as "severity rule line:column".
    struct Case
    {
        std::string path;
        std::string text;
        std::vector<std::string> findings;
    };
    const auto findings = [](const report::LintFile& file)
    {
        std::vector<std::string> out;
        for (const auto& d : file.diagnostics)
        {
            out.push_back(std::string(model::to_string(d.severity)) + " " + d.rule + " " +
                          std::to_string(d.line) + ":" + std::to_string(d.column));
        }
        return out;
    };
    const std::vector<Case> cases{
        { "requirements.txt", "numpy==1.26.4\ntorch==2.5.1\n", {} },
        { "requirements.txt",
          "numpy==1.26.4\nrequests\nnumpy==1.26.3\ntorch>=2 @@\n",
          { "warning repro.unpinned 2:1", "warning duplicate.package 3:1",
            "error conflict.unsatisfiable 3:6", "error syntax.pip-line 4:10" } },
        { "requirements-dev.in", "black>=24,<23\n", { "error conflict.unsatisfiable 1:6" } },
        { "pyproject.toml",
          "[project]\nname = \"demo\"\ndependencies = [\n  \"numpy==1.26.4\",\n  "
          "\"numpy==2.0.0\",\n]\n"
          "[project.optional-dependencies]\ngpu = [\"cupy\"]\n",
          { "warning duplicate.package 5:4", "error conflict.unsatisfiable 5:9",
            "warning repro.unpinned 8:9" } },
        { "pyproject.toml", "[project]\ndependencies = [\n", { "error file.pip-unreadable 2:18" } },
        { "pyproject.toml",
          "[project]\ndependencies = \"numpy\"\n",
          { "error file.pip-unreadable 2:16" } },
    };
    for (const auto& c : cases)
    {
        CAPTURE(c.path, c.text);
        world.files.files[c.path] = c.text;
        request.files = { c.path };
        const auto outcome = lint(world, request);
        REQUIRE(outcome.report.files.size() == 1);
        CHECK(findings(outcome.report.files[0]) == c.findings);
    }
}

TEST_CASE("run_lint suppressions: inline ignores and the configuration", "[app][lint]")
{
    FakeWorld world;
    // Line 4: numpy unpinned (repro.unpinned); no nodefaults (repro.nodefaults, line 2).
    const std::string unpinned =
      "name: demo\nchannels: [conda-forge]\ndependencies:\n  - numpy\n  - python=3.11.7\n";
    app::LintRequest request;
    request.files = { "environment.yml" };

    const auto find = [](const app::LintOutcome& outcome,
                         const std::string& rule) -> const report::LintDiagnostic&
    {
        const auto& diagnostics = outcome.report.files.at(0).diagnostics;
        const auto found = std::find_if(diagnostics.begin(), diagnostics.end(),
                                        [&](const auto& item) { return item.rule == rule; });
        REQUIRE(found != diagnostics.end());
        return *found;
    };

    SECTION("nothing suppressed")
    {
        world.files.files["environment.yml"] = unpinned;
        const auto outcome = lint(world, request);
        CHECK_FALSE(find(outcome, "repro.unpinned").suppressed.has_value());
        CHECK(outcome.report.count(model::Severity::warning) == 1);
        CHECK(outcome.report.count_suppressed() == 0);
    }

    SECTION("an ignore comment on the dependency's line")
    {
        world.files.files["environment.yml"] =
          "name: demo\nchannels: [conda-forge]\ndependencies:\n"
          "  - numpy  # envcheck: ignore[repro.unpinned]\n  - python=3.11.7\n";
        const auto outcome = lint(world, request);
        const auto& item = find(outcome, "repro.unpinned");
        REQUIRE(item.suppressed.has_value());
        CHECK(item.suppressed->kind == report::Suppression::Kind::inline_comment);
        CHECK(item.suppressed->where == "environment.yml:4:31");
        CHECK(outcome.report.count(model::Severity::warning) == 0);
        CHECK(outcome.report.count_suppressed() == 1);
        // The rule on another line is not suppressed.
        CHECK_FALSE(find(outcome, "repro.nodefaults").suppressed.has_value());
    }

    SECTION("an ignore comment at the top of the file covers the whole file")
    {
        world.files.files["environment.yml"] =
          "# envcheck: ignore[repro.unpinned, repro.nodefaults]\n" + unpinned;
        const auto outcome = lint(world, request);
        CHECK(find(outcome, "repro.unpinned").suppressed->where == "environment.yml:1:20");
        CHECK(find(outcome, "repro.nodefaults").suppressed->where == "environment.yml:1:36");
        CHECK(outcome.verdict() == app::Verdict::clean);
    }

    SECTION("an ignore comment after the first key covers its own line only")
    {
        world.files.files["environment.yml"] =
          "name: demo\n# envcheck: ignore[repro.unpinned]\n" + unpinned.substr(11);
        const auto outcome = lint(world, request);
        CHECK_FALSE(find(outcome, "repro.unpinned").suppressed.has_value());
    }

    SECTION("an ignore comment naming no such rule is an error")
    {
        world.files.files["environment.yml"] =
          "name: demo\nchannels: [conda-forge]\ndependencies:\n"
          "  - numpy  # envcheck: ignore[repro.unpined]\n  - python=3.11.7\n";
        const auto outcome = lint(world, request);
        const auto& item = find(outcome, "syntax.ignore-comment");
        CHECK(item.severity == model::Severity::error);
        CHECK(item.line == 4);
        CHECK(item.column == 31);
        CHECK(item.message.find("did you mean 'repro.unpinned'?") != std::string::npos);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK_FALSE(find(outcome, "repro.unpinned").suppressed.has_value());
    }

    SECTION("the configuration: a severity, off, ignore and per-file ignores")
    {
        world.files.files["environment.yml"] = unpinned;
        const config::Source source{ config::Source::Kind::file, "/work/project/.envcheck.toml", 3,
                                     5 };
        request.config_file = "/work/project/.envcheck.toml";

        request.config.severity["repro.unpinned"] = { model::Severity::error, source };
        auto outcome = lint(world, request);
        CHECK(find(outcome, "repro.unpinned").severity == model::Severity::error);
        CHECK(outcome.verdict() == app::Verdict::findings);

        request.config.severity["repro.unpinned"] = { std::nullopt, source }; // off
        outcome = lint(world, request);
        const auto& off = find(outcome, "repro.unpinned");
        REQUIRE(off.suppressed.has_value());
        CHECK(off.suppressed->kind == report::Suppression::Kind::config);
        CHECK(off.suppressed->where == "/work/project/.envcheck.toml:3:5");

        request.config.severity.clear();
        request.config.ignore = { { "repro.unpinned", source } };
        CHECK(find(lint(world, request), "repro.unpinned").suppressed.has_value());

        request.config.ignore.clear();
        request.config.per_file_ignores = {
            { "envs/*.yml", { { "repro.unpinned", source } }, source }
        };
        CHECK_FALSE(find(lint(world, request), "repro.unpinned").suppressed.has_value());
        world.files.files["envs/gpu.yml"] = unpinned;
        request.files = { "envs/gpu.yml" };
        CHECK(find(lint(world, request), "repro.unpinned").suppressed.has_value());
    }
}
