#include <string>
#include <vector>

#include "app/smoke.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto smoke(FakeWorld& world, const app::SmokeRequest& request = {}) -> app::SmokeOutcome
    {
        auto outcome = app::run_smoke(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }
}

TEST_CASE("run_smoke", "[app][smoke]")
{
    FakeWorld world;

    SECTION("every probe passed")
    {
        const auto outcome = smoke(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        REQUIRE(world.smoke.runs.size() == 1);
        const auto& run = world.smoke.runs[0];
        CHECK(run.mode == model::SmokeMode::quick);
        CHECK(run.device == 0);
        CHECK(run.probes.empty());
        CHECK(run.probe_timeout == std::chrono::milliseconds(30000));
        CHECK(run.progress);
        CHECK(outcome.fleet.runs.at(0).command == "smoke");
        CHECK(outcome.fleet.features.smoke_passed == true);
        // The machine is probed once: NVML's compute processes (passive when busy), and the
        // doctor's facts if no GPU ran. Nobody else computes, so the go-ahead came as soon as
        // NVML had answered.
        CHECK(world.machine.probes.size() == 1);
        CHECK(world.smoke.early_go == std::vector<bool>{ true });
        CHECK(world.smoke.spared == std::vector<std::map<int, std::string>>{ {} });
    }

    SECTION("--full on every device")
    {
        app::SmokeRequest request;
        request.full = true;
        request.all_devices = true;
        request.timeout_seconds = 5;
        (void)smoke(world, request);
        CHECK(world.smoke.runs[0].mode == model::SmokeMode::full);
        CHECK_FALSE(world.smoke.runs[0].device.has_value());
        CHECK(world.smoke.runs[0].probe_timeout == std::chrono::milliseconds(5000));
    }

    SECTION("a failed probe is a finding")
    {
        world.smoke.report.devices[0].probes[0].status = model::Status::fail;
        const auto outcome = smoke(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.fleet.features.smoke_passed == false);
    }

    SECTION("a device this machine does not have is bad usage")
    {
        world.smoke.report = {};
        world.smoke.report.availability = model::GpuAvailability::no_such_device;
        world.smoke.report.diagnosis = "no CUDA device 3 (this machine has 1)";
        const auto outcome = smoke(world);
        CHECK(outcome.verdict() == app::Verdict::usage);
        CHECK(outcome.report.diagnosis == "no CUDA device 3 (this machine has 1)");
    }
}

TEST_CASE("run_smoke probe selection", "[app][smoke]")
{
    FakeWorld world;
    app::SmokeRequest request;

    SECTION("in registry order, whatever the order asked")
    {
        request.probes = { "bandwidth", "hello" };
        (void)smoke(world, request);
        CHECK(world.smoke.runs[0].probes == std::vector<std::string>{ "hello", "bandwidth" });
    }

    SECTION("an unknown probe, with the closest one")
    {
        struct Case
        {
            std::string asked;
            std::string hint;
        };
        for (const auto& item : std::vector<Case>{
               { "matmul", "did you mean 'matmul-shared'? ('envcheck smoke --list' lists them)" },
               { "helo", "did you mean 'hello'? ('envcheck smoke --list' lists them)" },
               { "", "'envcheck smoke --list' lists the probes" } })
        {
            request.probes = { "hello", item.asked };
            const auto outcome = app::run_smoke(request, world.ports);
            REQUIRE_FALSE(outcome.has_value());
            CHECK(outcome.error().kind == util::ErrorKind::usage);
            CHECK(outcome.error().message == "unknown probe '" + item.asked + "'");
            CHECK(outcome.error().hint == item.hint);
        }
        CHECK(world.smoke.runs.empty());
    }

    SECTION("built without CUDA: nothing to select from, the report says why")
    {
        world.smoke.registry.clear();
        world.smoke.report = {};
        world.smoke.report.availability = model::GpuAvailability::built_without_cuda;
        world.smoke.report.diagnosis =
          "this envcheck was built without CUDA, so it carries no GPU probes";
        request.probes = { "anything" };
        const auto outcome = smoke(world, request);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.report.diagnosis == world.smoke.report.diagnosis);
        CHECK(world.machine.probes.empty());
    }
}

TEST_CASE("run_smoke without a GPU asks the doctor why", "[app][smoke]")
{
    FakeWorld world;
    world.smoke.report = tests::no_gpu_report();

    SECTION("the first broken link")
    {
        world.machine.facts = tests::machine_without_gpu();
        const auto outcome = smoke(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.report.diagnosis.starts_with("envcheck doctor: pci.nvidia-present failed: "));
        CHECK(outcome.report.diagnosis.ends_with(
          "; the probe saw: no NVIDIA driver (libcuda.so.1 not found)"));
        REQUIRE(world.machine.probes.size() == 1);
        CHECK(world.machine.probes[0].root == "/");
    }

    SECTION("a machine the doctor finds healthy")
    {
        CHECK(smoke(world).report.diagnosis ==
              "no NVIDIA driver (libcuda.so.1 not found); run 'envcheck doctor' to find the first "
              "broken link");
    }
}

TEST_CASE("run_smoke leaves busy GPUs alone", "[app][smoke]")
{
    FakeWorld world;
    auto& gpu = world.machine.facts.nvml.gpus.at(0);
    gpu.compute_processes = 2;
    gpu.compute_process_ids = { 4242, 4343 };

    SECTION("a GPU other processes compute on is skipped, with the reason")
    {
        const auto outcome = smoke(world);
        CHECK(world.smoke.probes_before_start == std::vector<std::size_t>{ 0 });
        CHECK(world.machine.probes.size() == 1);
        REQUIRE(world.smoke.spared.size() == 1);
        CHECK(world.smoke.spared[0].contains(0));
        CHECK(world.smoke.early_go == std::vector<bool>{ false }); // once the machine was probed
        REQUIRE(outcome.report.devices.size() == 1);
        const auto& probes = outcome.report.devices[0].probes;
        REQUIRE(probes.size() == world.smoke.registry.size());
        for (const auto& probe : probes)
        {
            CHECK(probe.status == model::Status::skip);
            CHECK(probe.message ==
                  "GPU 0 is busy: 2 compute processes of others (pid 4242, 4343) hold it; "
                  "skipped so as not to disturb them (--even-if-busy runs it anyway)");
        }
        CHECK(outcome.verdict() == app::Verdict::clean);
    }

    SECTION("--even-if-busy runs it, without asking")
    {
        app::SmokeRequest request;
        request.even_if_busy = true;
        (void)smoke(world, request);
        REQUIRE(world.smoke.spared.size() == 1);
        CHECK(world.smoke.spared[0].empty());
        CHECK(world.machine.probes.empty());
    }

    SECTION("--all-devices: the idle GPU runs, the busy one is skipped")
    {
        auto second = gpu;
        second.index = 1;
        second.uuid = "GPU-second";
        second.pci_bus_id = "00000000:18:00.0";
        second.compute_processes = 0;
        second.compute_process_ids.clear();
        world.machine.facts.nvml.gpus.push_back(second);
        auto device = world.machine.facts.cuda.devices.at(0);
        device.index = 1;
        world.machine.facts.cuda.devices.push_back(device);
        world.machine.facts.cuda.device_count = 2;
        auto measured = world.smoke.report.devices.at(0);
        measured.device.index = 1;
        world.smoke.report.devices.push_back(measured);
        app::SmokeRequest request;
        request.all_devices = true;
        request.probes = { "hello" };
        const auto outcome = smoke(world, request);
        REQUIRE(world.smoke.runs.size() == 1); // one child for both; its go-ahead spares GPU 0
        CHECK_FALSE(world.smoke.runs[0].device.has_value());
        CHECK(world.smoke.runs[0].probes == std::vector<std::string>{ "hello" });
        REQUIRE(world.smoke.spared.size() == 1);
        CHECK(world.smoke.spared[0].size() == 1);
        CHECK(world.smoke.spared[0].contains(0));
        REQUIRE(outcome.report.devices.size() == 2);
        CHECK(outcome.report.devices[0].probes.at(0).id == "hello");
        CHECK(outcome.report.devices[0].probes.at(0).status == model::Status::skip);
        CHECK(outcome.report.devices[1].probes.at(0).status != model::Status::skip);
    }
}

TEST_CASE("smoke_probe_list is the smoke port's registry, in run order", "[app][smoke]")
{
    FakeWorld world;
    const auto rows = app::smoke_probe_list(world.smoke);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].id == "hello");
    CHECK(rows[2].description == "Pinned and pageable host-device copies");
    world.smoke.registry.push_back({ "fp8", "FP8 matmul", "sm_89" });
    CHECK(app::smoke_probe_list(world.smoke).back().requirement == "sm_89");
    world.smoke.registry.clear(); // built without CUDA
    CHECK(app::smoke_probe_list(world.smoke).empty());
}
