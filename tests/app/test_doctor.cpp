#include <string>
#include <vector>

#include "app/doctor.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto doctor(FakeWorld& world, const app::DoctorRequest& request = {}) -> app::DoctorOutcome
    {
        auto outcome = app::run_doctor(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }

    auto framework_check(const app::DoctorOutcome& outcome) -> const model::CheckOutcome&
    {
        const auto* check = outcome.result.outcome("framework.runtime-check");
        REQUIRE(check != nullptr);
        return *check;
    }

    // An environment with torch at /envs/torch, activated.
    void with_torch(FakeWorld& world, bool python = true)
    {
        auto environment = tests::FixturePrefixes::readable_conda_basic();
        auto torch = tests::package(environment, "hello");
        torch.name = "pytorch";
        torch.version = "2.5.1";
        environment.packages.push_back(torch);
        world.prefixes.environments["/envs/torch"] = environment;
        world.environment["CONDA_PREFIX"] = "/envs/torch";
        if (python)
        {
            world.frameworks.pythons.insert("/envs/torch");
        }
    }
}

TEST_CASE("run_doctor on a healthy machine", "[app][doctor]")
{
    FakeWorld world;
    const auto outcome = doctor(world);
    CHECK(outcome.verdict() == app::Verdict::clean);
    CHECK_FALSE(outcome.result.first_broken_link.has_value());
    CHECK_FALSE(outcome.view.environment.has_value());
    REQUIRE(world.machine.probes.size() == 1);
    CHECK(world.machine.probes[0].root == "/");
    CHECK(world.machine.probes[0].driver_timeout == std::chrono::milliseconds(20000));
    REQUIRE(outcome.fleet.runs.size() == 1);
    CHECK(outcome.fleet.runs[0].command == "doctor");
    CHECK(outcome.fleet.runs[0].outcomes.size() == outcome.result.outcomes.size());
    CHECK(outcome.fleet.features.cuda_usable == true);
    CHECK(outcome.fleet.features.compute_capability == "9.0");
    CHECK(outcome.fleet.features.gpu_count == 1);
}

TEST_CASE("run_doctor names the first broken link", "[app][doctor]")
{
    FakeWorld world;
    world.machine.facts = tests::machine_without_gpu();
    with_torch(world);
    const auto outcome = doctor(world);
    CHECK(outcome.verdict() == app::Verdict::findings);
    CHECK(outcome.result.first_broken_link == "pci.nvidia-present");
    CHECK(outcome.fleet.features.cuda_usable == false);
    // The chain does not hold up to the devices: the environment's python is not run.
    CHECK(world.frameworks.checked.empty());
    CHECK(framework_check(outcome).status == model::Status::skip);
}

TEST_CASE("run_doctor environments", "[app][doctor]")
{
    FakeWorld world;

    SECTION("the activated environment's python is asked about its frameworks")
    {
        with_torch(world);
        const auto outcome = doctor(world);
        CHECK(outcome.view.environment == "$CONDA_PREFIX (/envs/torch)");
        CHECK(world.frameworks.checked ==
              std::vector<std::string>{ "/envs/torch/bin/python torch" });
        CHECK(framework_check(outcome).status == model::Status::pass);
        CHECK(outcome.verdict() == app::Verdict::clean);
    }

    SECTION("$VIRTUAL_ENV before $CONDA_PREFIX, --prefix before both")
    {
        with_torch(world);
        world.environment["VIRTUAL_ENV"] = "/envs/venv";
        world.prefixes.directories["/envs/venv"] = tests::test_data("prefixes/venv-basic");
        CHECK(doctor(world).view.environment == "$VIRTUAL_ENV (/envs/venv)");
        app::DoctorRequest request;
        request.prefix = "/envs/torch";
        CHECK(doctor(world, request).view.environment == "--prefix /envs/torch");
    }

    SECTION("--no-framework-check, no python, --root: not run, and why")
    {
        app::DoctorRequest request;
        request.no_framework_check = true;
        with_torch(world);
        CHECK(framework_check(doctor(world, request)).message == "--no-framework-check");
        with_torch(world, /*python=*/false);
        world.frameworks.pythons.clear();
        CHECK(framework_check(doctor(world)).message == "no bin/python in /envs/torch");
        world.files.directories.insert("/images/node");
        request = {};
        request.root = "/images/node";
        CHECK(framework_check(doctor(world, request)).message == "--root: nothing is run");
        CHECK(world.frameworks.checked.empty());
    }

    SECTION("--env: the specs' pins, nothing to run")
    {
        world.files.files["environment.yml"] =
          "dependencies:\n  - pytorch=2.1.0\n  - pytorch-cuda=11.8\n  - pip:\n"
          "      - jax==0.4.30\n";
        app::DoctorRequest request;
        request.env_file = "environment.yml";
        const auto outcome = doctor(world, request);
        CHECK(outcome.view.environment == "--env environment.yml");
        CHECK(framework_check(outcome).message ==
              "--env names specs, not an installed environment: nothing to run");
        CHECK(world.prefixes.reads.empty());
    }

    SECTION("--lock: the locked packages, nothing to run")
    {
        world.files.files["sample.lock.json"] = tests::read_test_file("locks/sample.lock.json");
        app::DoctorRequest request;
        request.lock_file = "sample.lock.json";
        const auto outcome = doctor(world, request);
        CHECK(outcome.view.environment == "--lock sample.lock.json");
        CHECK(framework_check(outcome).message ==
              "--lock describes an environment, not an installed one: nothing to run");
    }
}

TEST_CASE("run_doctor errors", "[app][doctor]")
{
    FakeWorld world;
    app::DoctorRequest request;

    SECTION("--root that is not a directory")
    {
        request.root = "/nowhere";
        const auto outcome = app::run_doctor(request, world.ports);
        REQUIRE_FALSE(outcome.has_value());
        CHECK(outcome.error().kind == util::ErrorKind::usage);
        CHECK(outcome.error().message == "--root '/nowhere' is not a directory");
        CHECK(world.machine.probes.empty());
    }

    SECTION("an environment that cannot be read")
    {
        request.prefix = "/envs/missing";
        CHECK(app::run_doctor(request, world.ports).error().kind == util::ErrorKind::io);
        request.prefix.clear();
        request.lock_file = "nope.lock";
        CHECK(app::run_doctor(request, world.ports).error().kind == util::ErrorKind::io);
    }
}

TEST_CASE("run_doctor skips the checks the configuration names", "[app][doctor]")
{
    FakeWorld world;
    app::DoctorRequest request;
    request.skip = { { "nvml.init",
                       { config::Source::Kind::file, "/work/project/.envcheck.toml", 2, 9 } } };
    const auto outcome = doctor(world, request);
    const auto* skipped = outcome.result.outcome("nvml.init");
    REQUIRE(skipped != nullptr);
    CHECK(skipped->status == model::Status::skip);
    CHECK(skipped->message == "skipped: doctor.skip in /work/project/.envcheck.toml:2:9");
    // The checks after it run as if it had passed.
    const auto* devices = outcome.result.outcome("cuda.device-count");
    REQUIRE(devices != nullptr);
    CHECK(devices->status == model::Status::pass);
    CHECK(outcome.verdict() == app::Verdict::clean);
}

TEST_CASE("doctor_check_list is the doctor's registry, in walk order", "[app][doctor]")
{
    const auto rows = app::doctor_check_list();
    const auto& registry = checks::doctor_checks();
    REQUIRE(rows.size() == registry.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        CHECK(rows[i].id == registry[i].id);
        CHECK(rows[i].description == registry[i].description);
        CHECK(rows[i].requirement.empty());
    }
}
