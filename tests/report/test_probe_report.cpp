#include "report/probe_json.hpp"
#include "report/probe_text.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"
#include "tests/report/test_probe_fixture.hpp"

using namespace envcheck;
using envcheck::tests::check_golden;

namespace
{
    TEST_CASE("render_probe_text", "[report][probe]")
    {
        SECTION("an H200 node")
        {
            check_golden("probe/h200.txt",
                         report::render_probe_text(envcheck::tests::h200_machine()));
        }
        SECTION("no GPU, no driver")
        {
            check_golden("probe/no-gpu.txt",
                         report::render_probe_text(envcheck::tests::no_gpu_machine()));
        }
        SECTION("under --root")
        {
            auto facts = envcheck::tests::h200_machine();
            facts.root = "/srv/images/node";
            facts.live = false;
            facts.nvml = {};
            facts.cuda = {};
            check_golden("probe/root.txt", report::render_probe_text(facts));
        }
    }

    TEST_CASE("render_probe_json", "[report][probe]")
    {
        check_golden("probe/h200.json", report::render_probe_json(envcheck::tests::h200_machine()));
        check_golden("probe/no-gpu.json",
                     report::render_probe_json(envcheck::tests::no_gpu_machine()));
    }

    TEST_CASE("probe_json values", "[report][probe]")
    {
        const auto json = report::probe_json(envcheck::tests::h200_machine());
        CHECK(json["schema_version"] == 1);
        CHECK(json["summary"]["driver_version"] == "580.65.06");
        CHECK(json["summary"]["driver_cuda_version"] == "13.0");
        CHECK(json["summary"]["gpus"][0]["compute_capability"] == "9.0");
        CHECK(json["pci"]["devices"][0]["vendor_id"] == "0x10de");
        CHECK(json["pci"]["devices"][0]["kind"] == "gpu");
        CHECK(json["nvml"]["gpus"][0]["clocks"]["event_reason_names"][0] == "gpu_idle");
        CHECK(json["nvml"]["gpus"][0]["memory_total_bytes"] == 150754820096ULL);
        CHECK(json["cuda_driver"]["devices"][0]["multiprocessors"] == 132);
        CHECK(json["device_nodes"][0]["mode"] == "0666");
        const auto empty = report::probe_json(envcheck::tests::no_gpu_machine());
        CHECK(empty["summary"]["driver_version"].is_null());
        CHECK(empty["nvml"]["library"].is_null());
        CHECK(empty["cuda_driver"]["init_result"].is_null());
        CHECK(empty["nvml"]["failure"].is_null());
    }

    TEST_CASE("render_probe_json never throws on bad bytes", "[report][probe]")
    {
        auto facts = envcheck::tests::no_gpu_machine();
        facts.environment = { { "CUDA_PATH", std::string("/opt/\xff\xfe"), false } };
        CHECK_NOTHROW(report::render_probe_json(facts));
    }

    TEST_CASE("format_bytes", "[report][probe]")
    {
        CHECK(report::format_bytes(150754820096ULL) == "140.4 GiB");
        CHECK(report::format_bytes(62914560) == "60 MiB");
        CHECK(report::format_bytes(49152) == "48 KiB");
        CHECK(report::format_bytes(644939776) == "615.1 MiB");
        CHECK(report::format_bytes(1536) == "1.5 KiB");
        CHECK(report::format_bytes(std::uint64_t{ 1 } << 30) == "1.0 GiB");
        CHECK(report::format_bytes(1000) == "1000 B");
        CHECK(report::format_bytes(0) == "0 B");
    }
}
