// The HTML reports of smoke, check and doctor: golden pages (tests/data/golden/html, which
// tests/report/test_html_chromium.py also renders in a real Chromium), the plots' elements, and
// the escaping of every text that comes from the environment.
#include <array>
#include <limits>
#include <optional>
#include <string>

#include "report/html_report.hpp"
#include "report/svg_plot.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"
#include "tests/report/test_check_report.hpp"
#include "tests/report/test_smoke_fixture.hpp"

using namespace envcheck;
using envcheck::model::Metric;
using envcheck::model::MetricDirection;
using envcheck::model::Status;
using envcheck::tests::check_golden;

namespace
{
    auto count(const std::string& text, const std::string& needle) -> std::size_t
    {
        std::size_t n = 0;
        for (auto at = text.find(needle); at != std::string::npos;
             at = text.find(needle, at + needle.size()))
        {
            ++n;
        }
        return n;
    }

    // The copy kinds and sizes of `smoke --full`'s bandwidth sweep (gpu/probes.cpp). The 256 MiB
    // figures and the ranges are those of the H200 runs in tests/bench/RESULTS.md (d2d memcpy /
    // kernel 4168 / 3835 GB/s, d2h pinned 48.9 to 55.3 GB/s from 1 MiB, h2d pinned 52.5 to
    // 54.1 GB/s from 4 MiB, pageable 3.8 to 14.7 GB/s); the small sizes rise to them.
    struct SweepRow
    {
        const char* kind;
        std::array<double, 7> gbps; // 64k 256k 1m 4m 16m 64m 256m
    };

    const std::array<SweepRow, 6> h200_sweep{ {
      { "h2d_pinned", { 21.4, 38.2, 47.6, 52.5, 53.6, 54.0, 54.1 } },
      { "d2h_pinned", { 19.8, 35.1, 48.9, 53.8, 54.9, 55.2, 55.3 } },
      { "h2d_pageable", { 3.8, 6.1, 9.4, 12.2, 13.9, 14.7, 14.2 } },
      { "d2h_pageable", { 4.1, 5.9, 7.8, 9.6, 10.8, 11.3, 11.5 } },
      { "d2d_memcpy", { 212.0, 761.0, 1853.0, 3121.0, 3893.0, 4090.0, 4168.0 } },
      { "d2d_kernel", { 183.0, 655.0, 1702.0, 2948.0, 3604.0, 3790.0, 3835.0 } },
    } };

    auto full_report() -> model::SmokeReport
    {
        auto report = tests::sample_report();
        report.mode = model::SmokeMode::full;
        report.duration_seconds = 3.61;
        auto& probes = report.devices.front().probes;
        model::ProbeResult bandwidth;
        bandwidth.id = "bandwidth";
        bandwidth.status = Status::pass;
        bandwidth.message = "h2d_pinned 54.1 GB/s, d2h_pinned 55.3 GB/s, h2d_pageable 14.2 GB/s, "
                            "d2h_pageable 11.5 GB/s, d2d_memcpy 4168.0 GB/s, d2d_kernel 3835.0 "
                            "GB/s at 256 MiB; device-to-device counts bytes read + written";
        bandwidth.duration_seconds = 1.42;
        const std::array<const char*, 7> sizes{ "64k", "256k", "1m", "4m", "16m", "64m", "256m" };
        for (const auto& row : h200_sweep)
        {
            for (std::size_t i = 0; i < sizes.size(); ++i)
            {
                bandwidth.metrics.push_back(Metric{ std::string(row.kind) + "_gbps_" + sizes[i],
                                                    row.gbps[i], "GB/s", 0.012, 3,
                                                    MetricDirection::higher_is_better });
            }
        }
        bandwidth.metrics.push_back(Metric{ "d2d_kernel_vs_memcpy", 3835.0 / 4168.0, "x", 0.0, 1,
                                            MetricDirection::informational });
        probes[3] = bandwidth; // the fixture's failing bandwidth probe
        probes[2] = {
            "stream-overlap",
            Status::pass,
            "93.2% of the ideal overlap: 2.81 ms overlapped for 6.66 ms serial",
            { Metric{ "efficiency", 0.932, "", 0.094, 5, MetricDirection::higher_is_better },
              Metric{ "overlapped_ms", 2.81, "ms", 0.05, 5, MetricDirection::lower_is_better } },
            0.31,
            std::nullopt
        };
        probes.push_back(
          { "hbm",
            Status::pass,
            "read 4162, write 4289, SM copy 4058 GB/s over 1024 MiB buffers",
            { Metric{ "read_gbps", 4162.0, "GB/s", 0.0044, 5, MetricDirection::higher_is_better },
              Metric{ "write_gbps", 4289.0, "GB/s", 0.0053, 5,
                      MetricDirection::higher_is_better } },
            0.52,
            std::nullopt });
        return report;
    }

    auto perf(std::string key, Status status, double baseline, std::optional<double> measured,
              double tolerance, std::string unit, MetricDirection direction, std::string message,
              std::string fix = {}) -> model::CheckOutcome
    {
        model::CheckOutcome outcome;
        outcome.id = "perf." + std::move(key);
        outcome.status = status;
        outcome.message = std::move(message);
        outcome.fix = std::move(fix);
        outcome.labels = { { "gpu", "0" },
                           { "unit", std::move(unit) },
                           { "direction", std::string(model::to_string(direction)) } };
        outcome.metrics["baseline"] = baseline;
        outcome.metrics["tolerance"] = tolerance;
        if (measured)
        {
            outcome.metrics["measured"] = *measured;
            outcome.metrics["change"] = (*measured - baseline) / baseline;
        }
        return outcome;
    }

    auto check_with_metrics() -> model::EnvironmentCheck
    {
        auto check = tests::sample_check();
        const auto higher = MetricDirection::higher_is_better;
        check.performance = {
            perf("tensor-gemm.bf16_tflops", Status::pass, 791.0, 776.0, 0.19, "TFLOP/s", higher,
                 "tensor-gemm.bf16_tflops within tolerance (791 TFLOP/s locked, 776 TFLOP/s now; "
                 "tolerance 19.0%)"),
            perf("hbm.read_gbps", Status::pass, 4162.0, 4170.0, 0.10, "GB/s", higher,
                 "hbm.read_gbps within tolerance (4162 GB/s locked, 4170 GB/s now; tolerance "
                 "10.0%)"),
            perf("bandwidth.h2d_pinned_gbps", Status::fail, 54.1, 26.9, 0.15, "GB/s", higher,
                 "bandwidth.h2d_pinned_gbps dropped 50.3% (54.1 GB/s locked, 26.9 GB/s now; "
                 "tolerance 15.0%); likely cause: the PCIe link runs at Gen5 x8, it can do Gen5 "
                 "x16",
                 "address the cause above, then rerun 'envcheck check'"),
            perf("bandwidth.d2d_memcpy_gbps", Status::pass, 4168.0, 4151.0, 0.10, "GB/s", higher,
                 "bandwidth.d2d_memcpy_gbps within tolerance (4168 GB/s locked, 4151 GB/s now; "
                 "tolerance 10.0%)"),
            perf("stream-overlap.overlapped_ms", Status::fail, 1.62, 2.05, 0.28, "ms",
                 MetricDirection::lower_is_better,
                 "stream-overlap.overlapped_ms slowed 26.5% (1.62 ms locked, 2.05 ms now; "
                 "tolerance 28.0%)"),
            perf("matmul-shared.tuned_tflops", Status::skip, 41.3, std::nullopt, 0.10, "TFLOP/s",
                 higher, "matmul-shared.tuned_tflops not measured: the probe was skipped"),
        };
        // The lower-is-better metric within its tolerance passes.
        check.performance[4].status = Status::pass;
        check.performance[4].message =
          "stream-overlap.overlapped_ms within tolerance (1.62 ms locked, 2.05 ms now; "
          "tolerance 28.0%)";
        return check;
    }

    auto outcome(std::string id, std::string stage, Status status, std::string message,
                 std::string fix = {}) -> model::CheckOutcome
    {
        model::CheckOutcome result;
        result.id = std::move(id);
        result.status = status;
        result.message = std::move(message);
        result.fix = std::move(fix);
        result.labels["stage"] = std::move(stage);
        return result;
    }

    auto doctor_broken_at_driver() -> report::DoctorView
    {
        const auto skipped = [](std::string id, std::string stage)
        {
            return outcome(std::move(id), std::move(stage), Status::skip,
                           "skipped: driver.libcuda-found failed");
        };
        return { { outcome("pci.nvidia-present", "hardware", Status::pass,
                           "1 NVIDIA GPU on the PCI bus: 0000:19:00.0 (10de:2335)"),
                   outcome("kernel.module-loaded", "kernel", Status::pass,
                           "NVIDIA kernel module 580.95.05 is loaded"),
                   outcome("kernel.nouveau-bound", "kernel", Status::pass, "nouveau is not loaded"),
                   outcome("devnodes.present", "device nodes", Status::pass,
                           "/dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia0 exist"),
                   outcome("devnodes.permissions", "device nodes", Status::pass,
                           "this user can open the device nodes"),
                   outcome(
                     "driver.libcuda-found", "driver library", Status::fail,
                     "libcuda.so.1 is not on the loader's path: no ldconfig entry, "
                     "LD_LIBRARY_PATH unset",
                     "install the driver's user-space libraries (libnvidia-compute-580) or run "
                     "`sudo ldconfig`"),
                   skipped("driver.libcuda-stub", "driver library"), skipped("nvml.init", "nvml"),
                   skipped("cuda.init", "cuda"), skipped("cuda.device-count", "devices"),
                   skipped("env.driver-supports-runtime", "environment"),
                   skipped("framework.runtime-check", "framework") },
                 std::string("--prefix /opt/torch/.venv") };
    }

    TEST_CASE("render_smoke_html: the bandwidth sweep and the probes", "[report][html]")
    {
        const auto html = report::render_smoke_html(full_report());
        check_golden("html/smoke.html", html);
        CHECK(count(html, "<polyline class=\"series") == 6); // one per copy kind
        CHECK(count(html, "<circle class=\"point") == 6 * 7);
        CHECK(html.find("<script") == std::string::npos);
        CHECK(html.find("4168") != std::string::npos); // the table beside the plot
    }

    TEST_CASE("render_smoke_html without a GPU says why", "[report][html]")
    {
        const auto html = report::render_smoke_html(tests::no_driver_report());
        CHECK(html.find("no NVIDIA driver (libcuda.so.1 not found)") != std::string::npos);
        CHECK(html.find("<svg") == std::string::npos);
        // A quick report has no sweep: no plot, the probes' table only.
        const auto quick = report::render_smoke_html(tests::sample_report());
        CHECK(quick.find("<polyline") == std::string::npos);
        CHECK(count(quick, "<td class=\"status ") == 5);
    }

    TEST_CASE("render_check_html: metrics against their baselines with the band", "[report][html]")
    {
        const auto html = report::render_check_html(check_with_metrics());
        check_golden("html/check.html", html);
        CHECK(count(html, "<rect class=\"band\"") == 6);
        CHECK(count(html, "<rect class=\"bar ") == 5); // the skipped metric has no bar
        CHECK(count(html, "<rect class=\"bar fail\"") == 1);
        CHECK(html.find("not measured") != std::string::npos);
    }

    TEST_CASE("render_check_html: performance that could not be measured has no plot",
              "[report][html]")
    {
        auto check = check_with_metrics();
        model::CheckOutcome unmeasured;
        unmeasured.id = "perf";
        unmeasured.status = Status::fail;
        unmeasured.message = "the lock records performance baselines, but no GPU could be probed";
        check.performance = { unmeasured };
        const auto html = report::render_check_html(check);
        CHECK(html.find("<svg") == std::string::npos);
        CHECK(html.find("no GPU could be probed") != std::string::npos);
        check.performance.clear();
        CHECK(report::render_check_html(check).find("Performance") == std::string::npos);
    }

    TEST_CASE("render_check_html: the band lies on the side the direction says", "[report][html]")
    {
        // Baseline 100%: a 20% tolerance spans 80..100% for throughput, 100..120% for times.
        auto check = check_with_metrics();
        check.performance = { check.performance[1], check.performance[4] };
        const auto html = report::render_check_html(check);
        REQUIRE(count(html, "<rect class=\"band\"") == 2);
        const auto first = html.find("<rect class=\"band\"");
        const auto second = html.find("<rect class=\"band\"", first + 1);
        const auto attribute = [&](std::size_t at, const std::string& name)
        {
            const auto from = html.find(" " + name + "=\"", at) + name.size() + 3;
            return std::stod(html.substr(from, html.find('"', from) - from));
        };
        const auto x_of = [&](std::size_t at) { return attribute(at, "x"); };
        const auto reference_x = [&](std::size_t at)
        { return attribute(html.find("<line class=\"reference\"", at), "x1"); };
        CHECK(x_of(first) < reference_x(first)); // throughput: the band ends at the baseline
        CHECK(x_of(second) == Approx(reference_x(second))); // times: it starts there
    }

    TEST_CASE("render_doctor_html: the chain broken at the driver", "[report][html]")
    {
        const auto html = report::render_doctor_html(doctor_broken_at_driver());
        check_golden("html/doctor.html", html);
        CHECK(count(html, "<g class=\"node ") == 9); // the stages, in walk order
        CHECK(count(html, " broken\"") == 1);
        const auto broken = html.find("<g class=\"node fail broken\">");
        REQUIRE(broken != std::string::npos);
        // "driver library" on two lines in the node
        CHECK(html.find(">library</text>", broken) < html.find("</g>", broken));
        CHECK(html.find("first broken link: driver.libcuda-found") != std::string::npos);
        CHECK(html.find("sudo ldconfig") != std::string::npos);
    }

    TEST_CASE("the HTML reports escape what comes from the environment", "[report][html]")
    {
        const std::string hostile = "<script>alert(\"x\")</script> & 'co'";
        const std::string escaped =
          "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;co&apos;";

        auto check = check_with_metrics();
        check.prefix = "/opt/" + hostile;
        check.packages.front().name = hostile;
        check.performance.front().labels["unit"] = hostile;
        auto smoke = full_report();
        smoke.devices.front().device.name = hostile;
        smoke.devices.front().probes.front().message = hostile;
        auto doctor = doctor_broken_at_driver();
        doctor.outcomes[5].message = hostile;
        doctor.outcomes[5].labels["stage"] = hostile;
        doctor.environment = hostile;

        for (const auto& html :
             { report::render_check_html(check), report::render_smoke_html(smoke),
               report::render_doctor_html(doctor) })
        {
            CHECK(html.find("<script") == std::string::npos);
            CHECK(html.find("alert(\"x\")") == std::string::npos);
            CHECK(html.find(escaped) != std::string::npos);
        }
    }

    TEST_CASE("bandwidth_sweep reads the sweep from the metric names", "[report][html]")
    {
        model::ProbeResult probe;
        probe.metrics = {
            Metric{ "h2d_pinned_gbps_1m", 47.6, "GB/s", 0.0, 3, MetricDirection::higher_is_better },
            Metric{ "h2d_pinned_gbps_64k", 21.4, "GB/s", 0.0, 3,
                    MetricDirection::higher_is_better },
            Metric{ "d2d_memcpy_gbps_256m", 4168.0, "GB/s", 0.0, 3,
                    MetricDirection::higher_is_better },
            Metric{ "h2d_pinned_gbps", 55.0, "GB/s", 0.0, 3,
                    MetricDirection::higher_is_better }, // quick: no size
            Metric{ "d2d_kernel_vs_memcpy", 0.92, "x", 0.0, 1, MetricDirection::informational },
            Metric{ "x_gbps_12q", 1.0, "GB/s", 0.0, 1, MetricDirection::higher_is_better },
            Metric{ "x_gbps_k", 1.0, "GB/s", 0.0, 1, MetricDirection::higher_is_better },
            Metric{ "d2h_pinned_gbps_4m", std::numeric_limits<double>::quiet_NaN(), "GB/s", 0.0, 1,
                    MetricDirection::higher_is_better },
        };
        const auto sweep = report::bandwidth_sweep(probe);
        REQUIRE(sweep.size() == 2);
        CHECK(sweep[0].kind == "h2d_pinned");
        REQUIRE(sweep[0].points.size() == 2);
        CHECK(sweep[0].points[0].bytes == 64 * 1024); // sorted by size
        CHECK(sweep[0].points[1].bytes == 1024 * 1024);
        CHECK(sweep[1].kind == "d2d_memcpy");
        CHECK(sweep[1].points[0].bytes == 256ull * 1024 * 1024);
    }

    TEST_CASE("svg::fit_axis", "[report][html]")
    {
        const auto linear = report::svg::fit_axis("GB/s", false, { 3.0, 54.1, 17.0 });
        CHECK(linear.min == 0.0);
        CHECK(linear.max == 60.0);
        REQUIRE(linear.ticks.size() == 4); // steps of 20: 0, 20, 40, 60
        CHECK(linear.ticks[1].label == "20");
        const auto log = report::svg::fit_axis("GB/s", true, { 3.8, 4168.0, -1.0, 0.0 });
        CHECK(log.min == 1.0);
        CHECK(log.max == 10000.0);
        CHECK(log.ticks.size() == 5);
        const auto empty = report::svg::fit_axis("GB/s", true, {});
        CHECK(empty.min < empty.max);
    }
}
