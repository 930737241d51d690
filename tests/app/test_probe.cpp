#include "app/probe.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

TEST_CASE("run_probe", "[app][probe]")
{
    FakeWorld world;
    app::ProbeRequest request;

    SECTION("this machine, with the drivers under the timeout")
    {
        request.timeout_seconds = 2.5;
        const auto outcome = app::run_probe(request, world.ports);
        REQUIRE(outcome.has_value());
        CHECK(outcome->verdict() == app::Verdict::clean);
        CHECK(outcome->facts.live);
        REQUIRE(world.machine.probes.size() == 1);
        CHECK(world.machine.probes[0].driver_timeout == std::chrono::milliseconds(2500));
    }

    SECTION("another root")
    {
        world.files.directories.insert("/images/node");
        request.root = "/images/node";
        const auto outcome = app::run_probe(request, world.ports);
        REQUIRE(outcome.has_value());
        CHECK_FALSE(outcome->facts.live);
        CHECK(outcome->facts.root == "/images/node");
    }

    SECTION("a root that is not a directory")
    {
        for (const char* root : { "", "/etc/hostname" })
        {
            request.root = root;
            const auto outcome = app::run_probe(request, world.ports);
            REQUIRE_FALSE(outcome.has_value());
            CHECK(outcome.error().kind == util::ErrorKind::usage);
        }
        CHECK(world.machine.probes.empty());
    }
}
