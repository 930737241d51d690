#include <string>

#include <nlohmann/json.hpp>

#include "report/smoke_json.hpp"
#include "tests/catch.hpp"
#include "tests/report/test_smoke_fixture.hpp"

using namespace envcheck;
using tests::check_smoke_golden;

namespace
{
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
}
