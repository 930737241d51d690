#include <string>
#include <vector>

#include "app/lock.hpp"
#include "app/slurm_health.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto health(FakeWorld& world, const app::SlurmHealthRequest& request = {})
      -> app::SlurmHealthOutcome
    {
        auto outcome = app::run_slurm_health(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }

    auto node(std::vector<std::string> states, std::string reason = {}) -> formats::SlurmNode
    {
        return formats::SlurmNode{ "gpu07", std::move(states), std::move(reason) };
    }
}

TEST_CASE("run_slurm_health as HealthCheckProgram", "[app][slurm]")
{
    FakeWorld world;
    world.slurm.node = node({ "IDLE" });

    SECTION("a healthy node: asked about, left alone")
    {
        const auto outcome = health(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.view.node == "gpu07"); // the short host name
        CHECK(outcome.view.hook == "health-check");
        CHECK(outcome.view.action == "none");
        CHECK(world.slurm.calls == std::vector<std::string>{ "show gpu07" });
        CHECK(outcome.fleet.features.cuda_usable == true);
        // The driver probe gets its share of the 40 s budget.
        REQUIRE(world.machine.probes.size() == 1);
        CHECK(world.machine.probes[0].driver_timeout < std::chrono::milliseconds(20000));
    }

    SECTION("a failing check drains the node, with the check in the reason")
    {
        world.machine.facts = tests::machine_without_gpu();
        const auto outcome = health(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.view.action == "drain");
        CHECK(outcome.view.drain_reason.starts_with("envcheck: pci.nvidia-present: "));
        REQUIRE(world.slurm.calls.size() == 2);
        CHECK(world.slurm.calls[1] == "drain gpu07 " + outcome.view.drain_reason);
        CHECK(outcome.fleet.features.cuda_usable == false);
    }

    SECTION("--dry-run decides and changes nothing")
    {
        world.machine.facts = tests::machine_without_gpu();
        app::SlurmHealthRequest request;
        request.dry_run = true;
        const auto outcome = health(world, request);
        CHECK(outcome.view.action == "drain");
        CHECK(outcome.view.dry_run);
        CHECK(world.slurm.calls == std::vector<std::string>{ "show gpu07" });
    }

    SECTION("a node envcheck drained is resumed once its checks pass; others' drains stay")
    {
        world.slurm.node = node({ "IDLE", "DRAIN" }, "envcheck: pci.nvidia-present: gone");
        CHECK(health(world).view.action == "resume");
        CHECK(world.slurm.calls.back() == "resume gpu07");
        world.slurm.calls.clear();
        world.slurm.node = node({ "IDLE", "DRAIN" }, "hardware swap");
        CHECK(health(world).view.action == "none");
        CHECK(world.slurm.calls == std::vector<std::string>{ "show gpu07" });
    }

    SECTION("scontrol that cannot be run is an error, not a sick node")
    {
        world.slurm.failure =
          util::make_error(util::ErrorKind::timeout, "scontrol did not answer within 9 s");
        const auto outcome = app::run_slurm_health({}, world.ports);
        REQUIRE_FALSE(outcome.has_value());
        CHECK(outcome.error().kind == util::ErrorKind::io);
        CHECK(outcome.error().message == "scontrol failed: scontrol did not answer within 9 s");
    }
}

TEST_CASE("run_slurm_health as Prolog", "[app][slurm]")
{
    FakeWorld world;
    app::SlurmHealthRequest request;
    request.prolog = true;

    SECTION("checks that pass: Slurm is not asked")
    {
        const auto outcome = health(world, request);
        CHECK(outcome.view.hook == "prolog");
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(world.slurm.calls.empty());
    }

    SECTION("a check that fails: drained, and a finding (exit 1 makes Slurm requeue the job)")
    {
        world.machine.facts = tests::machine_without_gpu();
        world.slurm.node = node({ "ALLOCATED" });
        const auto outcome = health(world, request);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.view.action == "drain");
    }
}

TEST_CASE("run_slurm_health node names and the lock", "[app][slurm]")
{
    FakeWorld world;
    world.slurm.node = node({ "IDLE" });

    SECTION("--node, else $SLURMD_NODENAME, else the host name")
    {
        world.environment["SLURMD_NODENAME"] = "node-a";
        CHECK(health(world).view.node == "node-a");
        app::SlurmHealthRequest request;
        request.node = "node-b";
        CHECK(health(world, request).view.node == "node-b");
        world.environment.clear();
        world.machine.name.clear();
        const auto nameless = app::run_slurm_health({}, world.ports);
        REQUIRE_FALSE(nameless.has_value());
        CHECK(nameless.error().hint == "pass --node NAME");
    }

    SECTION("with a lock: the environment is checked too")
    {
        tests::make_project(world);
        app::LockRequest locking;
        locking.no_gpu = true;
        REQUIRE(app::run_lock(locking, world.ports).has_value());
        app::SlurmHealthRequest request;
        request.lock = "environment.lock.json";
        auto outcome = health(world, request);
        REQUIRE(outcome.fleet.runs.size() == 2);
        CHECK(outcome.fleet.runs[1].command == "check");
        CHECK(outcome.fleet.features.lock_matches == true);
        CHECK(outcome.verdict() == app::Verdict::clean);

        tests::rebuild(world.prefixes.environments["/envs/train"], "hello", "h1_1");
        outcome = health(world, request);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.view.action == "drain");
        CHECK(outcome.fleet.features.lock_matches == false);
    }

    SECTION("a lock that cannot be read is an error before anything is probed")
    {
        app::SlurmHealthRequest request;
        request.lock = "nope.lock.json";
        CHECK_FALSE(app::run_slurm_health(request, world.ports).has_value());
        CHECK(world.machine.probes.empty());
        CHECK(world.slurm.calls.empty());
    }
}
