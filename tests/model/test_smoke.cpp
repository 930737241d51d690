#include <string>
#include <vector>

#include "model/smoke.hpp"
#include "tests/catch.hpp"

using namespace envcheck::model;

namespace
{
    auto report_with(Status first, Status second) -> SmokeReport
    {
        SmokeReport report;
        DeviceSmoke device;
        device.device.index = 1;
        device.device.name = "NVIDIA H200";
        device.device.uuid = "GPU-1";
        device.device.compute_capability_major = 9;
        ProbeResult a;
        a.id = "hello";
        a.status = first;
        ProbeResult b;
        b.id = "bandwidth";
        b.status = second;
        b.metrics = {
            Metric{ "h2d_pinned_gbps", 55.0, "GB/s", 0.02, 5, MetricDirection::higher_is_better },
            Metric{ "d2d_kernel_vs_memcpy", 0.95, "x", 0.0, 1, MetricDirection::informational }
        };
        device.probes = { a, b };
        report.devices.push_back(device);
        return report;
    }

    TEST_CASE("SmokeMode round trip", "[model][SmokeMode]")
    {
        for (const auto mode : { SmokeMode::quick, SmokeMode::full })
        {
            CHECK(parse_smoke_mode(to_string(mode)) == mode);
        }
        for (const auto direction :
             { MetricDirection::higher_is_better, MetricDirection::lower_is_better,
               MetricDirection::informational })
        {
            CHECK(parse_metric_direction(to_string(direction)) == direction);
        }
        for (const auto availability :
             { GpuAvailability::available, GpuAvailability::built_without_cuda,
               GpuAvailability::no_driver, GpuAvailability::no_usable_device,
               GpuAvailability::no_such_device, GpuAvailability::probe_process_failed })
        {
            CHECK(parse_gpu_availability(to_string(availability)) == availability);
        }
    }

    TEST_CASE("SmokeMode round trip negative", "[model][SmokeMode]")
    {
        CHECK_FALSE(parse_smoke_mode("Quick"));
        CHECK_FALSE(parse_smoke_mode(""));
        CHECK_FALSE(parse_metric_direction("up"));
        CHECK_FALSE(parse_gpu_availability("maybe"));
    }

    TEST_CASE("SmokeReport::passed", "[model][SmokeReport]")
    {
        CHECK(report_with(Status::pass, Status::pass).passed());
        CHECK(report_with(Status::pass, Status::skip).passed());
        CHECK_FALSE(report_with(Status::pass, Status::fail).passed());
        CHECK_FALSE(report_with(Status::error, Status::pass).passed());
        SmokeReport none;
        CHECK_FALSE(none.passed()); // no device probed is not a pass
        auto no_driver = report_with(Status::pass, Status::pass);
        no_driver.availability = GpuAvailability::no_driver;
        CHECK_FALSE(no_driver.passed());
    }

    TEST_CASE("SmokeReport::device finds a GPU by its index", "[model][SmokeReport]")
    {
        auto report = report_with(Status::pass, Status::pass); // the GPU with index 1
        DeviceSmoke third;
        third.device.index = 3;
        report.devices.push_back(third);
        const SmokeReport& measured = report;
        REQUIRE(measured.device(1) != nullptr);
        CHECK(measured.device(1)->device.uuid == "GPU-1");
        REQUIRE(measured.device(3) != nullptr);
        CHECK(measured.device(3)->probes.empty());
        CHECK(measured.device(0) == nullptr);
        CHECK(measured.device(-1) == nullptr);
        CHECK(SmokeReport{}.device(0) == nullptr);
        report.device(3)->probes.push_back(ProbeResult{}); // the mutable one is the same GPU
        CHECK(measured.device(3)->probes.size() == 1);
    }

    TEST_CASE("GpuDevice::architecture", "[model][GpuDevice]")
    {
        GpuDevice device;
        CHECK_FALSE(device.architecture()); // the driver did not say
        CHECK_FALSE(device.compute_capability());
        device.compute_capability_major = 12;
        CHECK_FALSE(device.architecture());
        device.compute_capability_minor = 0;
        CHECK(device.architecture() == "sm_120");
        CHECK(device.compute_capability() == "12.0");
        device.compute_capability_major = 8;
        device.compute_capability_minor = 6;
        CHECK(device.architecture() == "sm_86");
    }

    // One device's run of the bandwidth probe with h2d_pinned_gbps at `gbps` (in-run spread
    // `spread`).
    auto bandwidth_run(double gbps, double spread, Status status = Status::pass) -> DeviceSmoke
    {
        auto device = report_with(Status::pass, status).devices[0];
        device.probes[1].metrics[0].value = gbps;
        device.probes[1].metrics[0].spread = spread;
        return device;
    }

    TEST_CASE("make_baseline", "[model][PerfBaseline]")
    {
        SECTION("one run: its values, the informational ratio left out")
        {
            const auto report = report_with(Status::pass, Status::pass);
            const auto baseline = make_baseline(report.devices, SmokeMode::quick);
            CHECK(baseline.device_index == 1);
            CHECK(baseline.device_name == "NVIDIA H200");
            CHECK(baseline.device_uuid == "GPU-1");
            REQUIRE(baseline.metrics.size() == 1);
            CHECK(baseline.metrics[0].key() == "bandwidth.h2d_pinned_gbps");
            CHECK(baseline.metrics[0].value == 55.0);
            CHECK(baseline.metrics[0].spread == 0.02);
            CHECK(baseline.metrics[0].samples == 5);
            CHECK(baseline.metrics[0].unit == "GB/s");
            CHECK(baseline.metrics[0].informational.empty());
        }
        SECTION("a probe that did not pass records nothing")
        {
            CHECK(make_baseline(report_with(Status::pass, Status::fail).devices, SmokeMode::quick)
                    .metrics.empty());
        }
        SECTION("no runs: an empty baseline")
        {
            CHECK(make_baseline({}, SmokeMode::quick).metrics.empty());
        }
        struct Case
        {
            const char* what;
            std::vector<DeviceSmoke> runs;
            double value;
            double spread;
            bool informational;
        };
        const std::vector<Case> cases{
            { "three steady runs: the median, the spread between them",
              { bandwidth_run(54.5, 0.01), bandwidth_run(55.0, 0.01), bandwidth_run(54.8, 0.02) },
              54.8,
              0.5 / 54.8,
              false },
            { "runs apart by more than they spread within: the spread between them",
              { bandwidth_run(50.0, 0.005), bandwidth_run(51.0, 0.005),
                bandwidth_run(51.0, 0.005) },
              51.0,
              1.0 / 51.0,
              false },
            { "runs 10% apart: recorded, informational",
              { bandwidth_run(50.0, 0.01), bandwidth_run(55.0, 0.01), bandwidth_run(52.0, 0.01) },
              52.0,
              5.0 / 52.0,
              true },
            { "steady medians of noisy repeats: compared (a check compares a median)",
              { bandwidth_run(55.0, 0.05), bandwidth_run(55.0, 0.04), bandwidth_run(55.0, 0.06) },
              55.0,
              0.0,
              false },
            { "one run: the spread of its repeats",
              { bandwidth_run(55.0, 0.05) },
              55.0,
              0.05,
              true },
            { "exactly the stable spread is still compared",
              { bandwidth_run(55.0, stable_spread) },
              55.0,
              stable_spread,
              false },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.what);
            const auto baseline = make_baseline(c.runs, SmokeMode::quick);
            REQUIRE(baseline.metrics.size() == 1);
            const auto& metric = baseline.metrics[0];
            CHECK(metric.value == Approx(c.value));
            CHECK(metric.spread == Approx(c.spread));
            CHECK(metric.samples == 5 * static_cast<int>(c.runs.size()));
            CHECK(metric.direction == MetricDirection::higher_is_better);
            CHECK(metric.informational.empty() != c.informational);
        }
        SECTION("the reason names the spread and the runs")
        {
            const auto baseline = make_baseline(cases[2].runs, SmokeMode::quick);
            CHECK(baseline.metrics[0].informational ==
                  "its spread (9.6% over 3 runs) is above 3%, too noisy to show a 5% drop");
        }
        SECTION("a probe that failed in one of the runs records nothing")
        {
            const std::vector<DeviceSmoke> runs{ bandwidth_run(55.0, 0.01),
                                                 bandwidth_run(55.0, 0.01, Status::fail),
                                                 bandwidth_run(55.0, 0.01) };
            CHECK(make_baseline(runs, SmokeMode::quick).metrics.empty());
        }
    }

    TEST_CASE("to_check_run", "[model][SmokeReport]")
    {
        const auto run = to_check_run(report_with(Status::pass, Status::fail));
        CHECK(run.command == "smoke");
        REQUIRE(run.outcomes.size() == 2);
        CHECK(run.outcomes[1].id == "smoke.bandwidth");
        CHECK(run.outcomes[1].status == Status::fail);
        CHECK(run.outcomes[1].labels.at("gpu") == "1");
        CHECK(run.outcomes[1].metrics.at("h2d_pinned_gbps") == 55.0);
        CHECK_FALSE(run.passed());

        SmokeReport no_driver;
        no_driver.availability = GpuAvailability::no_driver;
        no_driver.diagnosis = "no NVIDIA driver (libcuda.so.1 not found)";
        const auto unavailable = to_check_run(no_driver);
        REQUIRE(unavailable.outcomes.size() == 1);
        CHECK(unavailable.outcomes[0].id == "smoke.gpu");
        CHECK(unavailable.outcomes[0].status == Status::fail);
        CHECK(unavailable.outcomes[0].message == no_driver.diagnosis);

        // Not the machine's fault: the check could not run (error), not failed.
        SmokeReport no_kernels;
        no_kernels.availability = GpuAvailability::built_without_cuda;
        CHECK(to_check_run(no_kernels).outcomes.at(0).status == Status::error);
        CHECK_FALSE(to_check_run(no_kernels).passed());
    }
}
