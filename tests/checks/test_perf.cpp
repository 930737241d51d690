#include <map>
#include <string>
#include <vector>

#include "checks/perf.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using checks::compare_performance;
using checks::PerfTolerance;
using model::MetricDirection;
using model::Status;

namespace
{
    auto baseline() -> model::PerfBaseline
    {
        model::PerfBaseline locked;
        locked.device_name = "NVIDIA H200";
        locked.device_uuid = "GPU-1";
        locked.metrics = {
            { "matmul-shared",
              "tuned_tflops",
              40.0,
              0.01,
              10,
              "TFLOP/s",
              MetricDirection::higher_is_better,
              {} },
            { "bandwidth",
              "h2d_pinned_gbps",
              55.0,
              0.05,
              5,
              "GB/s",
              MetricDirection::higher_is_better,
              {} },
            { "stream-overlap",
              "overlapped_ms",
              1.0,
              0.0,
              5,
              "ms",
              MetricDirection::lower_is_better,
              {} },
        };
        return locked;
    }

    auto measured(double tflops, double h2d, double overlapped_ms) -> model::DeviceSmoke
    {
        model::DeviceSmoke smoke;
        smoke.device.name = "NVIDIA H200";
        const auto probe =
          [](std::string id, std::string name, double value, MetricDirection direction)
        {
            model::ProbeResult result;
            result.id = std::move(id);
            result.status = Status::pass;
            result.metrics = { model::Metric{ std::move(name), value, "", 0.0, 5, direction } };
            return result;
        };
        smoke.probes = {
            probe("matmul-shared", "tuned_tflops", tflops, MetricDirection::higher_is_better),
            probe("bandwidth", "h2d_pinned_gbps", h2d, MetricDirection::higher_is_better),
            probe("stream-overlap", "overlapped_ms", overlapped_ms,
                  MetricDirection::lower_is_better)
        };
        return smoke;
    }

    auto healthy() -> model::PerfContext
    {
        model::PerfContext context;
        context.gpu_name = "NVIDIA H200";
        context.pcie_generation_current = 5;
        context.pcie_generation_max = 5;
        context.pcie_width_current = 16;
        context.pcie_width_max = 16;
        context.sm_clock_mhz_current = 1980;
        context.sm_clock_mhz_max = 1980;
        context.clock_event_reasons = { "gpu_idle" };
        context.ecc_corrected_volatile = 0;
        context.ecc_uncorrected_volatile = 0;
        context.other_compute_processes = 0;
        return context;
    }

    auto statuses(const std::vector<checks::PerfComparison>& comparisons) -> std::vector<Status>
    {
        std::vector<Status> out;
        for (const auto& comparison : comparisons)
        {
            out.push_back(comparison.status);
        }
        return out;
    }

    TEST_CASE("PerfTolerance::for_metric", "[checks][PerfTolerance]")
    {
        PerfTolerance tolerance;
        const auto locked = baseline();
        CHECK(tolerance.for_metric(locked.metrics[0]) == Approx(0.04));  // 1.5 x 1% < 4%
        CHECK(tolerance.for_metric(locked.metrics[1]) == Approx(0.075)); // 1.5 x 5% > 4%
        tolerance.per_metric["bandwidth.h2d_pinned_gbps"] = 0.02;
        CHECK(tolerance.for_metric(locked.metrics[1]) == Approx(0.02)); // overridden exactly
        CHECK(tolerance.for_metric(locked.metrics[0]) == Approx(0.04));
    }

    TEST_CASE("apply_perf_tolerance", "[checks][PerfTolerance]")
    {
        // text -> (default allowed drop, per-metric overrides)
        struct Case
        {
            std::vector<std::string> values;
            double relative;
            std::map<std::string, double> per_metric;
        };
        const std::vector<Case> positive = {
            { {}, 0.04, {} },
            { { "15%" }, 0.15, {} },
            { { "0.2" }, 0.20, {} },
            { { "bandwidth.h2d_pinned_gbps=5%" }, 0.04, { { "bandwidth.h2d_pinned_gbps", 0.05 } } },
            { { "25%", "matmul-shared.tuned_tflops=0.3", "matmul-shared.tuned_tflops=2.5%" },
              0.25,
              { { "matmul-shared.tuned_tflops", 0.025 } } },
        };
        for (const auto& item : positive)
        {
            PerfTolerance tolerance;
            for (const auto& value : item.values)
            {
                CAPTURE(value);
                REQUIRE(checks::apply_perf_tolerance(tolerance, value));
            }
            CHECK(tolerance.relative == Approx(item.relative));
            CHECK(tolerance.per_metric.size() == item.per_metric.size());
            for (const auto& [key, value] : item.per_metric)
            {
                CHECK(tolerance.per_metric.at(key) == Approx(value));
            }
        }

        const std::vector<std::string> negative = {
            "",
            "%",
            "0",
            "0%",
            "1",
            "100%",
            "150%",
            "-5%",
            "abc",
            "5 %",
            "0.1x",
            "=5%",
            "bandwidth=5%",
            "Bandwidth.H2D=5%",
            "bandwidth.=5%",
            ".x=5%",
            "a.b=",
            "a.b=0",
            "a b.c=5%",
        };
        for (const auto& text : negative)
        {
            CAPTURE(text);
            PerfTolerance tolerance;
            const auto applied = checks::apply_perf_tolerance(tolerance, text);
            REQUIRE_FALSE(applied);
            CHECK(applied.error().kind == util::ErrorKind::usage);
            CHECK(tolerance.relative == Approx(0.04));
            CHECK(tolerance.per_metric.empty());
        }
    }

    TEST_CASE("compare_performance", "[checks][PerfComparison]")
    {
        SECTION("within tolerance, in both directions")
        {
            const auto result =
              compare_performance(baseline(), measured(38.8, 52.0, 1.03), healthy(), {});
            CHECK(statuses(result) ==
                  std::vector<Status>{ Status::pass, Status::pass, Status::pass });
            CHECK(result[0].change == Approx(-0.03));
            CHECK(result[0].drop == Approx(0.03));
            CHECK(result[2].drop == Approx(0.03)); // lower is better: slower is a positive drop
            CHECK(result[0].message ==
                  "matmul-shared.tuned_tflops within tolerance (40 TFLOP/s locked, "
                  "38.8 TFLOP/s now; tolerance 4%)");
        }
        SECTION("a 5% drop fails every metric that spread less than 3% when locked")
        {
            const auto result =
              compare_performance(baseline(), measured(38.0, 55.0, 1.05), healthy(), {});
            CHECK(statuses(result) ==
                  std::vector<Status>{ Status::fail, Status::pass, Status::fail });
        }
        SECTION("faster than locked is never a failure")
        {
            const auto result =
              compare_performance(baseline(), measured(60.0, 80.0, 0.5), healthy(), {});
            CHECK(statuses(result) ==
                  std::vector<Status>{ Status::pass, Status::pass, Status::pass });
            CHECK(result[0].drop < 0.0);
        }
        SECTION("a drop beyond tolerance fails, says by how much, and finds no cause on a healthy "
                "machine")
        {
            const auto result =
              compare_performance(baseline(), measured(30.0, 55.0, 1.0), healthy(), {});
            CHECK(statuses(result) ==
                  std::vector<Status>{ Status::fail, Status::pass, Status::pass });
            CHECK(result[0].message ==
                  "matmul-shared.tuned_tflops dropped 25% (40 TFLOP/s locked, 30 TFLOP/s now; "
                  "tolerance 4%); "
                  "likely cause: none found in the machine facts (clocks, PCIe link, ECC, other "
                  "processes look "
                  "normal)");
        }
        SECTION("a slower time fails as 'slowed'")
        {
            const auto result =
              compare_performance(baseline(), measured(40.0, 55.0, 1.5), healthy(), {});
            CHECK(result[2].status == Status::fail);
            CHECK(result[2].message.find("overlapped_ms slowed 50%") != std::string::npos);
        }
        SECTION("a per-metric tolerance overrides the default")
        {
            PerfTolerance strict;
            strict.per_metric["matmul-shared.tuned_tflops"] = 0.02;
            const auto result =
              compare_performance(baseline(), measured(39.0, 55.0, 1.0), healthy(), strict);
            CHECK(result[0].status == Status::fail);
        }
    }

    TEST_CASE("compare_performance negative", "[checks][PerfComparison]")
    {
        SECTION("a probe that was skipped skips its metrics")
        {
            auto fresh = measured(40.0, 55.0, 1.0);
            fresh.probes[2].status = Status::skip;
            fresh.probes[2].message = "requires a copy engine";
            const auto result = compare_performance(baseline(), fresh, healthy(), {});
            CHECK(result[2].status == Status::skip);
            CHECK(result[2].message ==
                  "stream-overlap.overlapped_ms not measured: requires a copy engine");
        }
        SECTION("a probe that failed, or did not run, fails its metrics")
        {
            auto fresh = measured(40.0, 55.0, 1.0);
            fresh.probes[1].status = Status::error;
            fresh.probes[1].message = "timed out";
            fresh.probes.erase(fresh.probes.begin());
            const auto result = compare_performance(baseline(), fresh, healthy(), {});
            CHECK(statuses(result) ==
                  std::vector<Status>{ Status::fail, Status::fail, Status::pass });
            CHECK(result[0].message ==
                  "matmul-shared.tuned_tflops not measured: the probe did not run");
            CHECK(result[1].message == "bandwidth.h2d_pinned_gbps not measured: error: timed out");
            CHECK_FALSE(result[1].measured);
        }
        SECTION("a metric locked as informational never fails: a drop beyond tolerance warns")
        {
            auto locked = baseline();
            locked.metrics[0].informational = "its spread (8.0% over 3 runs) is above 3%";
            const auto dropped =
              compare_performance(locked, measured(30.0, 55.0, 1.0), healthy(), {});
            CHECK(statuses(dropped) ==
                  std::vector<Status>{ Status::warn, Status::pass, Status::pass });
            CHECK(dropped[0].message ==
                  "matmul-shared.tuned_tflops is informational, its spread (8.0% over 3 runs) is "
                  "above 3% (40 TFLOP/s locked, 30 TFLOP/s now; tolerance 4%)");
            CHECK(compare_performance(locked, measured(39.0, 55.0, 1.0), healthy(), {})[0].status ==
                  Status::pass);
        }
        SECTION("metrics of informational direction are never compared")
        {
            auto locked = baseline();
            locked.metrics.push_back({ "bank-conflicts",
                                       "slowdown_32way",
                                       30.0,
                                       0.0,
                                       1,
                                       "x",
                                       MetricDirection::informational,
                                       {} });
            CHECK(compare_performance(locked, measured(40.0, 55.0, 1.0), healthy(), {}).size() ==
                  3);
        }
    }

    TEST_CASE("probes_to_measure_again and confirm_drops", "[checks][PerfComparison]")
    {
        const auto locked = baseline();
        const auto first = compare_performance(locked, measured(30.0, 40.0, 1.5), healthy(), {});
        REQUIRE(statuses(first) == std::vector<Status>{ Status::fail, Status::fail, Status::fail });

        SECTION("each probe whose metric was measured and dropped, once, in the baseline's order")
        {
            CHECK(checks::probes_to_measure_again(first) ==
                  std::vector<std::string>{ "matmul-shared", "bandwidth", "stream-overlap" });
            CHECK(checks::probes_to_measure_again(
                    compare_performance(locked, measured(40.0, 55.0, 1.0), healthy(), {}))
                    .empty());
            auto failed_probe = measured(40.0, 55.0, 1.0);
            failed_probe.probes[0].status = Status::error; // not measured: nothing to confirm
            CHECK(checks::probes_to_measure_again(
                    compare_performance(locked, failed_probe, healthy(), {}))
                    .empty());
        }

        struct Case
        {
            const char* what;
            model::DeviceSmoke again;
            std::vector<Status> statuses;
            std::vector<double> measured;
        };
        auto matmul_only = measured(39.5, 0.0, 0.0);
        matmul_only.probes.resize(1);
        const std::vector<Case> cases{
            { "every drop recovers: all pass, on the second value",
              measured(39.5, 54.0, 1.01),
              { Status::pass, Status::pass, Status::pass },
              { 39.5, 54.0, 1.01 } },
            { "every drop holds: all fail, on the better of the two",
              measured(29.0, 41.0, 1.6),
              { Status::fail, Status::fail, Status::fail },
              { 30.0, 41.0, 1.5 } },
            { "one recovers, the others hold",
              measured(39.5, 30.0, 1.4),
              { Status::pass, Status::fail, Status::fail },
              { 39.5, 40.0, 1.4 } },
            { "a probe not run again keeps its first drop",
              matmul_only,
              { Status::pass, Status::fail, Status::fail },
              { 39.5, 40.0, 1.5 } },
        };
        for (const auto& item : cases)
        {
            CAPTURE(item.what);
            const auto confirmed = checks::confirm_drops(first, locked, item.again, healthy(), {});
            CHECK(statuses(confirmed) == item.statuses);
            for (std::size_t i = 0; i < confirmed.size(); ++i)
            {
                REQUIRE(confirmed[i].measured);
                CHECK(*confirmed[i].measured == Approx(item.measured[i]));
            }
            // Measured twice is confirmed once: nothing is measured a third time.
            CHECK(checks::probes_to_measure_again(confirmed).empty() ==
                  (item.again.probes.size() == 3));
        }

        SECTION("the messages quote both measurements")
        {
            const auto confirmed =
              checks::confirm_drops(first, locked, measured(39.5, 41.0, 1.5), healthy(), {});
            CHECK(confirmed[0].message ==
                  "matmul-shared.tuned_tflops within tolerance when measured again (40 TFLOP/s "
                  "locked, 39.5 TFLOP/s now, 30 TFLOP/s at first; tolerance 4%)");
            CHECK(confirmed[1].message ==
                  "bandwidth.h2d_pinned_gbps dropped at least 25% in two measurements (55 GB/s "
                  "locked, 41 GB/s now, 40 GB/s at first; tolerance 8%); likely cause: none "
                  "found in the machine facts (clocks, PCIe link, ECC, other processes look "
                  "normal)");
            CHECK(confirmed[1].at_first == 40.0);
            const auto outcomes = checks::to_check_outcomes(confirmed, 0);
            CHECK(outcomes[1].metrics.at("measured_at_first") == 40.0);
            CHECK(outcomes[1].metrics.at("measured") == 41.0);
        }

        SECTION("a probe that fails the second time: the first drop stands, with why")
        {
            auto broken = measured(39.5, 55.0, 1.0);
            broken.probes[1].status = Status::error;
            broken.probes[1].message = "timed out";
            const auto confirmed = checks::confirm_drops(first, locked, broken, healthy(), {});
            CHECK(confirmed[1].status == Status::fail);
            CHECK(confirmed[1].measured == 40.0);
            CHECK(confirmed[1].message.ends_with(
              "; measured again: bandwidth.h2d_pinned_gbps not measured: error: timed out"));
        }
    }

    TEST_CASE("likely_causes", "[checks][PerfComparison]")
    {
        const auto locked = baseline();
        const auto& compute = locked.metrics[0];
        const auto& transfer = locked.metrics[1];

        SECTION("a PCIe link below its maximum explains host transfers, not compute")
        {
            auto context = healthy();
            context.pcie_generation_current = 4;
            context.pcie_width_current = 8;
            CHECK(checks::likely_causes(context, locked, transfer) ==
                  std::vector<std::string>{
                    "the PCIe link trained at Gen4 x8, below its maximum Gen5 x16" });
            CHECK(checks::likely_causes(context, locked, compute).empty());
        }
        SECTION("clocks held back, with the reasons; gpu_idle is not one")
        {
            auto context = healthy();
            context.sm_clock_mhz_current = 1200;
            context.clock_event_reasons = { "gpu_idle", "sw_power_cap", "hw_thermal_slowdown" };
            CHECK(checks::likely_causes(context, locked, compute) ==
                  std::vector<std::string>{ "clocks held back: SM clock 1200 MHz of 1980 MHz "
                                            "max, by sw_power_cap, hw_thermal_slowdown" });
        }
        SECTION("a reason named while the clock runs at its maximum held nothing back")
        {
            auto context = healthy();
            context.clock_event_reasons = { "sw_power_cap" }; // an idle H200 at 1980 of 1980 MHz
            CHECK(checks::likely_causes(context, locked, compute).empty());
        }
        SECTION("a low clock on an idle GPU is idling, not held back; without the idle reason it "
                "is")
        {
            auto context = healthy(); // gpu_idle, the reason NVML gives before the probes run
            context.sm_clock_mhz_current = 345;
            CHECK(checks::likely_causes(context, locked, compute).empty());
            context.clock_event_reasons.clear();
            CHECK(checks::likely_causes(context, locked, compute) ==
                  std::vector<std::string>{ "clocks held back: SM clock 345 MHz of 1980 MHz max" });
        }
        SECTION("a throttle reason alone, clocks unknown")
        {
            model::PerfContext context;
            context.clock_event_reasons = { "hw_slowdown" };
            CHECK(checks::likely_causes(context, locked, compute) ==
                  std::vector<std::string>{ "clocks held back by hw_slowdown" });
        }
        SECTION("every fact at once, the most decisive first")
        {
            auto context = healthy();
            context.gpu_name = "NVIDIA H100 80GB HBM3";
            context.other_compute_processes = 2;
            context.sm_clock_mhz_current = 1000;
            context.clock_event_reasons = { "hw_slowdown" };
            context.pcie_width_current = 8;
            context.ecc_uncorrected_volatile = 1;
            context.ecc_corrected_volatile = 12;
            CHECK(checks::likely_causes(context, locked, transfer) ==
                  std::vector<std::string>{
                    "a different GPU model: the baseline was measured on NVIDIA H200, this is "
                    "NVIDIA H100 80GB HBM3",
                    "2 other processes are using the GPU",
                    "clocks held back: SM clock 1000 MHz of 1980 MHz max, by hw_slowdown",
                    "the PCIe link trained at Gen5 x8, below its maximum Gen5 x16",
                    "1 uncorrected ECC errors since the driver loaded",
                    "12 corrected ECC errors since the driver loaded",
                  });
        }
        SECTION("unknown facts explain nothing")
        {
            CHECK(checks::likely_causes(model::PerfContext{}, locked, transfer).empty());
        }
        SECTION("the causes reach the failure message")
        {
            auto context = healthy();
            context.other_compute_processes = 1;
            const auto result = compare_performance(locked, measured(20.0, 55.0, 1.0), context, {});
            CHECK(result[0].message.find("likely cause: 1 other process is using the GPU") !=
                  std::string::npos);
        }
    }

    TEST_CASE("to_check_outcomes", "[checks][PerfComparison]")
    {
        const auto comparisons =
          compare_performance(baseline(), measured(30.0, 55.0, 1.0), healthy(), {});
        const auto outcomes = checks::to_check_outcomes(comparisons, 2);
        REQUIRE(outcomes.size() == 3);
        CHECK(outcomes[0].id == "perf.matmul-shared.tuned_tflops");
        CHECK(outcomes[0].status == Status::fail);
        CHECK(outcomes[0].labels.at("gpu") == "2");
        CHECK(outcomes[0].labels.at("unit") == "TFLOP/s");
        CHECK(outcomes[0].labels.at("direction") == "higher_is_better");
        CHECK(outcomes[2].labels.at("direction") == "lower_is_better");
        CHECK(outcomes[0].metrics.at("baseline") == 40.0);
        CHECK(outcomes[0].metrics.at("measured") == 30.0);
        CHECK(outcomes[0].metrics.at("change") == Approx(-0.25));
        CHECK_FALSE(outcomes[0].fix.empty());
        CHECK(outcomes[1].fix.empty());
    }
}
