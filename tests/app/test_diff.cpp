#include <string>
#include <vector>

#include "app/diff.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto diff(FakeWorld& world, const std::string& older, const std::string& newer)
      -> util::Result<app::DiffOutcome>
    {
        app::DiffRequest request;
        request.old_path = older;
        request.new_path = newer;
        return app::run_diff(request, world.ports);
    }
}

TEST_CASE("run_diff", "[app][diff]")
{
    FakeWorld world;
    world.files.files["old.yml"] =
      "channels: [pytorch, conda-forge]\ndependencies:\n  - python=3.10\n  - pytorch-cuda=11.8\n";
    world.files.files["new.yml"] =
      "channels: [conda-forge]\ndependencies:\n  - python=3.10\n  - pytorch-cuda=12.1\n  - numpy\n";
    world.files.files["sample.lock.json"] = tests::read_test_file("locks/sample.lock.json");
    world.files.files["broken.yml"] = "dependencies:\n\t- numpy\n";

    SECTION("equal files are clean")
    {
        const auto outcome = diff(world, "old.yml", "old.yml");
        REQUIRE(outcome.has_value());
        CHECK(outcome->verdict() == app::Verdict::clean);
        CHECK(outcome->report.entries.empty());
    }

    SECTION("different files are a finding, with the risky changes")
    {
        const auto outcome = diff(world, "old.yml", "new.yml");
        REQUIRE(outcome.has_value());
        CHECK(outcome->verdict() == app::Verdict::findings);
        CHECK(outcome->report.old_path == "old.yml");
        CHECK(outcome->report.count(report::DiffChange::added) == 1);
        CHECK(outcome->report.count(report::DiffChange::changed) == 1);
        CHECK(outcome->report.risky() == 1);
        CHECK(outcome->report.channels_removed == std::vector<std::string>{ "pytorch" });
    }

    SECTION("two locks")
    {
        const auto outcome = diff(world, "sample.lock.json", "sample.lock.json");
        REQUIRE(outcome.has_value());
        CHECK(outcome->verdict() == app::Verdict::clean);
    }

    SECTION("a lock and an environment file cannot be compared")
    {
        const auto outcome = diff(world, "old.yml", "sample.lock.json");
        REQUIRE_FALSE(outcome.has_value());
        CHECK(outcome.error().kind == util::ErrorKind::usage);
        CHECK(outcome.error().message ==
              "cannot compare a lock with an environment file: sample.lock.json is a lock");
    }

    SECTION("inputs that cannot be read or loaded")
    {
        const auto missing = diff(world, "nope.yml", "old.yml");
        REQUIRE_FALSE(missing.has_value());
        CHECK(missing.error().kind == util::ErrorKind::io);
        const auto broken = diff(world, "old.yml", "broken.yml");
        REQUIRE_FALSE(broken.has_value());
        CHECK(broken.error().kind == util::ErrorKind::parse);
        CHECK(broken.error().where.to_string().starts_with("broken.yml:2:"));
    }
}
