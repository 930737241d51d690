#include <string>
#include <vector>

#include "app/export.hpp"
#include "app/version.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto export_(FakeWorld& world, const app::ExportRequest& request) -> app::ExportOutcome
    {
        auto outcome = app::run_export(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }
}

TEST_CASE("run_export a lock", "[app][export]")
{
    FakeWorld world;
    const std::string path = "tests/data/locks/sample.lock.json";
    world.files.files[path] = tests::read_test_file("locks/sample.lock.json");
    app::ExportRequest request;
    request.lock = path;

    SECTION("as a pinned environment.yml (the README's example)")
    {
        request.format = formats::ExportFormat::environment;
        const auto outcome = export_(world, request);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.exported.text ==
              "# Written by envcheck " + std::string(app::envcheck_version()) + " from " + path +
                "\nchannels:\n  - conda-forge\ndependencies:\n  - numpy=1.26.4=py311h64a7726_0\n"
                "  - pip:\n      - requests @ "
                "git+https://github.com/psf/requests@0e322af87745eff34caffe4df68456ebc20d9068\n");
        CHECK(world.prefixes.reads.empty()); // the lock alone
    }

    SECTION("a lock that is not there")
    {
        request.lock = "nope.lock.json";
        const auto error = app::run_export(request, world.ports);
        REQUIRE_FALSE(error.has_value());
        CHECK(error.error().kind == util::ErrorKind::io);
    }
}

TEST_CASE("run_export an installed environment", "[app][export]")
{
    FakeWorld world;
    tests::make_project(world);
    app::ExportRequest request;

    SECTION("named after its directory, for this platform")
    {
        request.format = formats::ExportFormat::environment;
        const auto outcome = export_(world, request);
        CHECK(outcome.exported.text.find("\nname: train\n") != std::string::npos);
        CHECK(outcome.exported.text.find(" from /envs/train\n") != std::string::npos);
        request.name = "demo";
        CHECK(export_(world, request).exported.text.find("\nname: demo\n") != std::string::npos);
    }

    SECTION("a conda package without a URL cannot be written to an explicit file")
    {
        auto& installed = world.prefixes.environments["/envs/train"];
        tests::package(installed, "hello").url.clear();
        const auto outcome = export_(world, request);
        REQUIRE(outcome.exported.left_out.size() == 1);
        CHECK(outcome.exported.left_out[0].starts_with("hello 1.0 h0_0"));
        CHECK(outcome.verdict() == app::Verdict::findings);
    }

    SECTION("records that cannot be read: not exported")
    {
        world.prefixes.environments.erase("/envs/train");
        world.prefixes.directories["/envs/train"] = tests::FixturePrefixes::conda_basic();
        const auto outcome = export_(world, request);
        REQUIRE(outcome.unreadable.has_value());
        CHECK(outcome.unreadable->prefix == "/envs/train");
        CHECK(outcome.unreadable->problems.size() == 2);
        CHECK(outcome.exported.text.empty());
        CHECK(outcome.verdict() == app::Verdict::usage);
    }
}

TEST_CASE("run_export -o: written once, an existing file only with force, never the input lock",
          "[app][export]")
{
    FakeWorld world;
    const std::string lock = "tests/data/locks/sample.lock.json";
    world.files.files[lock] = tests::read_test_file("locks/sample.lock.json");
    app::ExportRequest request;
    request.lock = lock;
    const auto text = export_(world, request).exported.text; // what stdout would get
    request.output = "out.txt";

    SECTION("a new file")
    {
        export_(world, request);
        CHECK(world.files.written == std::vector<std::string>{ "out.txt" });
        CHECK(world.files.files.at("out.txt") == text);
    }
    SECTION("a file that holds the export already is left alone")
    {
        world.files.files["out.txt"] = text;
        export_(world, request);
        CHECK(world.files.written.empty());
    }
    SECTION("a file that differs: refused, or replaced with force")
    {
        world.files.files["out.txt"] = "other";
        const auto refused = app::run_export(request, world.ports);
        REQUIRE_FALSE(refused.has_value());
        CHECK(refused.error().to_string() == "out.txt: exists and differs; not replaced");
        CHECK(refused.error().hint == "pass --force to replace it");
        request.force = true;
        export_(world, request);
        CHECK(world.files.files.at("out.txt") == text);
    }
    SECTION("the input lock, even with force")
    {
        request.output = lock;
        request.force = true;
        const auto refused = app::run_export(request, world.ports);
        REQUIRE_FALSE(refused.has_value());
        CHECK(refused.error().kind == util::ErrorKind::usage);
        CHECK(refused.error().message == "-o names the input lock: exporting would replace it");
    }
    SECTION("'-' is standard output: no file")
    {
        request.output = "-";
        CHECK(export_(world, request).exported.text == text);
        CHECK(world.files.written.empty());
    }
}
