#include <algorithm>
#include <string>
#include <vector>

#include "app/lock.hpp"
#include "app/machine_state.hpp"
#include "app/version.hpp"
#include "formats/lock.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"
#include "util/sha256.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto lock(FakeWorld& world, const app::LockRequest& request = {}) -> app::LockOutcome
    {
        auto outcome = app::run_lock(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }

    auto no_gpu() -> app::LockRequest
    {
        app::LockRequest request;
        request.no_gpu = true;
        return request;
    }

    auto written_lock(FakeWorld& world, const std::string& path) -> model::Lock
    {
        const auto parsed = formats::parse_lock(world.files.files.at(path), path);
        REQUIRE(parsed.has_value());
        return *parsed;
    }
}

TEST_CASE("run_lock writes the lock beside the environment file", "[app][lock]")
{
    FakeWorld world;
    tests::make_project(world);
    const auto outcome = lock(world, no_gpu());
    CHECK(outcome.status == app::LockStatus::written);
    CHECK(outcome.verdict() == app::Verdict::clean);
    CHECK(outcome.path == "environment.lock.json");
    CHECK(world.files.written == std::vector<std::string>{ "environment.lock.json" });

    const auto written = written_lock(world, "environment.lock.json");
    std::vector<std::string> packages;
    for (const auto& package : written.packages)
    {
        packages.push_back(package.name + " " + package.version + " " + package.sha256);
    }
    std::vector<std::string> installed;
    for (const auto& package : tests::FixturePrefixes::readable_conda_basic().packages)
    {
        installed.push_back(package.name + " " + package.version + " " + package.sha256);
    }
    CHECK(packages == installed);
    REQUIRE(written.environment_file.has_value());
    CHECK(written.environment_file->path == "environment.yml");
    CHECK(written.environment_file->sha256 ==
          util::Sha256::hex_of(std::string(tests::demo_environment_yml)));
    CHECK(written.created_at == "2026-12-01T03:08:46Z");
    CHECK(written.envcheck_version == app::envcheck_version());
    CHECK(written.machine.platform == "linux-64");
    CHECK(written.machine.glibc == "2.36");
    CHECK(written.machine.python == "3.11.7");
    // --no-gpu: unknown, not guessed, and nothing probed or measured.
    CHECK_FALSE(written.machine.driver_version.has_value());
    CHECK_FALSE(written.machine.gpus.has_value());
    CHECK_FALSE(written.performance.has_value());
    CHECK(world.machine.probes.empty());
    CHECK(world.smoke.runs.empty());
}

TEST_CASE("run_lock with the GPU", "[app][lock]")
{
    FakeWorld world;
    tests::make_project(world);

    SECTION("records the driver, the GPUs and one baseline per GPU")
    {
        const auto outcome = lock(world);
        CHECK(outcome.performance_not_recorded.empty());
        const auto written = written_lock(world, "environment.lock.json");
        CHECK(written.machine.driver_version == "580.65.06");
        CHECK(written.machine.cuda_driver_version == "13.0");
        REQUIRE(written.machine.gpus.has_value());
        CHECK(written.machine.gpus->size() == 1);
        REQUIRE(written.performance.has_value());
        REQUIRE(written.performance->size() == 1);
        CHECK(written.performance->front().metrics.front().key() == "bandwidth.h2d_pinned_gbps");
        REQUIRE(world.smoke.runs.size() ==
                app::baseline_runs); // independent runs: the spread between them
        CHECK_FALSE(world.smoke.runs[0].device.has_value());
    }

    SECTION("a GPU other processes compute on gets no baseline, and the lock says why")
    {
        world.machine.facts.nvml.gpus.at(0).compute_processes = 1;
        world.machine.facts.nvml.gpus.at(0).compute_process_ids = { 777 };
        const auto outcome = lock(world);
        REQUIRE(world.smoke.spared.size() == app::baseline_runs);
        for (const auto& spared : world.smoke.spared)
        {
            CHECK(spared.contains(0)); // every run's go-ahead spares it
        }
        CHECK(outcome.performance_not_recorded ==
              "GPU 0 is busy: 1 compute process of others (pid 777) holds it; skipped so as not "
              "to disturb them (--even-if-busy runs it anyway)");
        const auto written = written_lock(world, "environment.lock.json");
        REQUIRE(written.performance.has_value());
        CHECK(written.performance->empty());

        auto anyway = app::LockRequest{};
        anyway.output = "measured.lock.json";
        anyway.even_if_busy = true;
        CHECK(lock(world, anyway).performance_not_recorded.empty());
        REQUIRE(world.smoke.spared.size() == 2 * app::baseline_runs);
        CHECK(world.smoke.spared.back().empty());
    }

    SECTION("without a usable GPU the lock says why it has no baselines")
    {
        world.smoke.report = tests::no_gpu_report();
        const auto outcome = lock(world);
        CHECK(outcome.status == app::LockStatus::written);
        CHECK(outcome.performance_not_recorded == "no NVIDIA driver (libcuda.so.1 not found)");
        CHECK_FALSE(written_lock(world, "environment.lock.json").performance.has_value());
    }
}

TEST_CASE("run_lock an existing lock", "[app][lock]")
{
    FakeWorld world;
    tests::make_project(world);
    lock(world, no_gpu());
    const auto before = world.files.files.at("environment.lock.json");

    SECTION("unchanged: up to date and left alone")
    {
        world.clock.now += 3600; // another created_at does not make it differ
        const auto outcome = lock(world, no_gpu());
        CHECK(outcome.status == app::LockStatus::up_to_date);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(world.files.written.size() == 1);
    }

    SECTION("unchanged but measured again: still up to date, without measuring")
    {
        auto forced = app::LockRequest{};
        forced.force = true;
        CHECK(lock(world, forced).status == app::LockStatus::written); // with the GPU now
        world.smoke.report = tests::smoke_report(40.0);
        const auto outcome = lock(world);
        CHECK(outcome.status == app::LockStatus::up_to_date);
        CHECK(world.smoke.runs.size() == app::baseline_runs); // the forced lock's only
    }

    SECTION("changed: refused without force, replaced with it")
    {
        tests::rebuild(world.prefixes.environments["/envs/train"], "hello", "h1_1");
        const auto refused = lock(world, no_gpu());
        CHECK(refused.status == app::LockStatus::differs);
        CHECK(refused.packages_differ == 1);
        CHECK(refused.verdict() == app::Verdict::findings);
        CHECK(world.files.files.at("environment.lock.json") == before);

        auto forced = no_gpu();
        forced.force = true;
        CHECK(lock(world, forced).status == app::LockStatus::written);
        const auto packages = written_lock(world, "environment.lock.json").packages;
        const auto hello = std::find_if(packages.begin(), packages.end(),
                                        [](const auto& p) { return p.name == "hello"; });
        REQUIRE(hello != packages.end());
        CHECK(hello->build == "h1_1");
    }

    SECTION("not an envcheck lock: refused without force")
    {
        world.files.files["environment.lock.json"] = "not a lock\n";
        const auto outcome = lock(world, no_gpu());
        CHECK(outcome.status == app::LockStatus::not_a_lock);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.not_a_lock.where.file == "environment.lock.json");
        CHECK(world.files.files.at("environment.lock.json") == "not a lock\n");
    }
}

TEST_CASE("run_lock refusals", "[app][lock]")
{
    FakeWorld world;
    tests::make_project(world);

    SECTION("an environment that does not satisfy its file")
    {
        world.files.files["environment.yml"] = "dependencies:\n  - hello=2.0\n";
        const auto outcome = lock(world, no_gpu());
        CHECK(outcome.status == app::LockStatus::unsatisfied);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.unsatisfied.environment_file == "environment.yml");
        CHECK(outcome.unsatisfied.count(model::PackageStatus::unsatisfied) == 1);
        CHECK(world.files.written.empty());
    }

    SECTION("records that cannot be read: the lock would leave packages out")
    {
        world.prefixes.environments.erase("/envs/train");
        world.prefixes.directories["/envs/train"] = tests::FixturePrefixes::conda_basic();
        const auto outcome = lock(world, no_gpu());
        CHECK(outcome.status == app::LockStatus::unreadable_records);
        CHECK(outcome.verdict() == app::Verdict::usage);
        CHECK(outcome.unreadable.prefix == "/envs/train");
        CHECK(outcome.unreadable.problems.size() == 2);
        CHECK(world.files.written.empty());
    }

    SECTION("an environment file given as a URL, with nowhere to put the lock")
    {
        app::LockRequest request = no_gpu();
        request.env = "https://example.org/environment.yml";
        const auto error = app::run_lock(request, world.ports);
        REQUIRE_FALSE(error.has_value());
        CHECK(error.error().kind == util::ErrorKind::usage);
        CHECK(error.error().hint == "name the lock with -o FILE");
    }

    SECTION("an environment file that does not load")
    {
        world.files.files["broken.yml"] = "dependencies:\n\t- numpy\n";
        app::LockRequest request = no_gpu();
        request.env = "broken.yml";
        const auto error = app::run_lock(request, world.ports);
        REQUIRE_FALSE(error.has_value());
        CHECK(error.error().where.file == "broken.yml");
        CHECK(error.error().where.line == 2);
    }

    SECTION("a lock that cannot be written")
    {
        world.files.unwritable.insert("environment.lock.json");
        const auto error = app::run_lock(no_gpu(), world.ports);
        REQUIRE_FALSE(error.has_value());
        CHECK(error.error().kind == util::ErrorKind::io);
    }
}

TEST_CASE("run_lock paths", "[app][lock]")
{
    FakeWorld world;
    tests::make_project(world);
    world.files.files["envs/train.yml"] = tests::demo_environment_yml;
    struct Case
    {
        std::string env;
        std::string output;
        std::string path;             // of the lock
        std::string environment_file; // as the lock records it
    };
    const std::vector<Case> cases{
        { "", "", "environment.lock.json", "environment.yml" },
        { "envs/train.yml", "", "envs/train.lock.json", "train.yml" },
        { "envs/train.yml", "locks/train.json", "locks/train.json", "../envs/train.yml" },
        { "environment.yml", "/srv/locks/demo.json", "/srv/locks/demo.json",
          "../../work/project/environment.yml" },
    };
    for (const auto& item : cases)
    {
        INFO(item.env << " -o " << item.output);
        app::LockRequest request = no_gpu();
        request.env = item.env;
        request.output = item.output;
        const auto outcome = lock(world, request);
        CHECK(outcome.path == item.path);
        CHECK(written_lock(world, item.path).environment_file->path == item.environment_file);
    }

    SECTION("no environment file: ./environment.lock.json, recording none")
    {
        world.files.files.erase("environment.yml");
        world.files.files.erase("environment.lock.json");
        CHECK(lock(world, no_gpu()).path == "environment.lock.json");
        CHECK_FALSE(written_lock(world, "environment.lock.json").environment_file.has_value());
    }

    SECTION("an environment by name")
    {
        world.prefixes.environments["/envs/named"] = tests::FixturePrefixes::readable_conda_basic();
        app::LockRequest request = no_gpu();
        request.selection.name = "named";
        request.output = "named.lock.json";
        CHECK(lock(world, request).status == app::LockStatus::written);
        request.selection.name = "nope";
        const auto missing = app::run_lock(request, world.ports);
        REQUIRE_FALSE(missing.has_value());
        CHECK(missing.error().message == "no environment named 'nope'");
    }
}
