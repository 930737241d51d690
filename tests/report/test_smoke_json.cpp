#include <string>

#include <nlohmann/json.hpp>

#include "report/smoke_json.hpp"
#include "tests/catch.hpp"
#include "tests/report/test_smoke_fixture.hpp"

using namespace envcheck;
using nlohmann::json;
using tests::check_smoke_golden;

namespace
{
    auto sample_baseline() -> model::PerfBaseline
    {
        model::PerfBaseline baseline;
        baseline.device_index = 0;
        baseline.device_name = "NVIDIA H200";
        baseline.device_uuid = "GPU-3c2d7f0e-1b9a-4c55-8d2e-7a6b5c4d3e2f";
        baseline.pci_bus_id = "0000:19:00.0";
        baseline.mode = model::SmokeMode::quick;
        baseline.metrics = {
            { "matmul-shared",
              "tuned_tflops",
              41.25,
              0.008,
              10,
              "TFLOP/s",
              model::MetricDirection::higher_is_better,
              {} },
            { "stream-overlap",
              "overlapped_ms",
              0.81,
              0.02,
              5,
              "ms",
              model::MetricDirection::lower_is_better,
              {} },
            { "bandwidth", "h2d_pageable_gbps", 21.5, 0.31, 15, "GB/s",
              model::MetricDirection::higher_is_better,
              "its spread (31.0% over 3 runs) is above 3%, too noisy to show a 5% drop" },
        };
        return baseline;
    }

    TEST_CASE("render_smoke_json", "[report][smoke]")
    {
        SECTION("a run with every status")
        {
            check_smoke_golden("quick.json", report::render_smoke_json(tests::sample_report()));
        }
        SECTION("no driver")
        {
            check_smoke_golden("no-driver.json",
                               report::render_smoke_json(tests::no_driver_report()));
        }
        SECTION("no usable device: the CUDA error")
        {
            check_smoke_golden("no-device.json",
                               report::render_smoke_json(tests::no_device_report()));
        }
        SECTION(
          "the shape the issue asks for: devices[].probes[] with id, status, metrics, message")
        {
            const auto out = report::smoke_report_json(tests::sample_report());
            CHECK(out["schema_version"] == report::smoke_schema_version);
            CHECK(out["passed"] == false);
            const auto& device = out["devices"][0];
            CHECK(device["index"] == 0);
            CHECK(device["name"] == "NVIDIA H200");
            const auto& matmul = device["probes"][1];
            CHECK(matmul["id"] == "matmul-shared");
            CHECK(matmul["status"] == "pass");
            CHECK(matmul["metrics"]["tuned_tflops"] == 41.25);
            CHECK(matmul["metric_info"]["tuned_tflops"]["spread"] == 0.008);
            CHECK(device["probes"][3]["metrics"]["d2d_kernel_vs_memcpy"].is_null()); // NaN
            CHECK(out["summary"] ==
                  nlohmann::ordered_json{
                    { "pass", 2 }, { "fail", 1 }, { "skip", 1 }, { "error", 1 } });
        }
    }

    TEST_CASE("parse_perf_baseline", "[report][PerfBaseline]")
    {
        SECTION("round trip")
        {
            const auto baseline = sample_baseline();
            const auto text = report::perf_baseline_json(baseline).dump(2);
            const auto parsed = report::parse_perf_baseline(text, "envcheck.lock");
            REQUIRE(parsed);
            CHECK(*parsed == baseline);
        }
        SECTION("from the baseline a smoke report makes")
        {
            const auto smoke = tests::sample_report();
            const auto baseline =
              model::make_baseline(std::span(smoke.devices).first(1), smoke.mode);
            const auto parsed =
              report::perf_baseline_from_json(report::perf_baseline_json(baseline));
            REQUIRE(parsed);
            CHECK(*parsed == baseline);
        }
    }

    TEST_CASE("parse_perf_baseline negative", "[report][PerfBaseline]")
    {
        const auto good = report::perf_baseline_json(sample_baseline());
        struct Case
        {
            std::string text;
            std::string message;
            std::size_t line;
            std::size_t column;
        };
        auto without = [&](const char* key)
        {
            json copy = good;
            copy.erase(key);
            return copy.dump();
        };
        auto with_metric = [&](const char* key, json value)
        {
            json copy = good;
            copy["metrics"][1][key] = std::move(value);
            return copy.dump();
        };
        const Case cases[] = {
            { "", "not JSON", 1, 1 },
            { "{\n  \"device_index\": 0,\n  oops\n}", "not JSON", 3, 3 },
            { "[]", "the document: expected an object", 0, 0 },
            { without("device_name"), "device_name: missing", 0, 0 },
            { without("metrics"), "metrics: missing", 0, 0 },
            { [&]
              {
                  json copy = good;
                  copy["mode"] = "thorough";
                  return copy.dump();
              }(),
              "mode: unknown smoke mode 'thorough'", 0, 0 },
            { with_metric("value", "fast"), "metrics[1].value: expected a number", 0, 0 },
            { with_metric("direction", "up"), "metrics[1].direction: unknown direction 'up'", 0,
              0 },
            { with_metric("samples", 2.5), "metrics[1].samples: expected an integer", 0, 0 },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.text);
            const auto parsed = report::parse_perf_baseline(c.text, "envcheck.lock");
            REQUIRE_FALSE(parsed);
            CHECK(parsed.error().message.find(c.message) != std::string::npos);
            CHECK(parsed.error().where.file == "envcheck.lock");
            CHECK(parsed.error().where.line == c.line);
            CHECK(parsed.error().where.column == c.column);
        }
    }
}
