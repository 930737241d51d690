#include <cmath>
#include <string>
#include <vector>

#include "gpu/wire.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using gpu::ChildEvent;

namespace
{
    auto sample_device() -> model::GpuDevice
    {
        model::GpuDevice device;
        device.index = 1;
        device.name = "NVIDIA H200";
        device.uuid = "GPU-01234567-89ab-cdef-0123-456789abcdef";
        device.pci_bus_id = "0000:19:00.0";
        device.compute_capability_major = 9;
        device.compute_capability_minor = 0;
        device.multiprocessors = 132;
        device.memory_bytes = 150'110'011'392ull;
        device.sm_clock_mhz = 1980;
        device.memory_clock_mhz = 3201;
        device.memory_bus_width_bits = 6144;
        device.l2_cache_bytes = 62'914'560;
        device.async_engine_count = 3;
        device.concurrent_kernels = true;
        device.ecc_enabled = true;
        return device;
    }

    auto sample_result() -> model::ProbeResult
    {
        model::ProbeResult result;
        result.id = "bandwidth";
        result.status = model::Status::fail;
        result.message = "3 copied words differ from their source";
        result.duration_seconds = 0.125;
        result.cuda_error = 719;
        result.metrics = {
            model::Metric{ "h2d_pinned_gbps", 55.25, "GB/s", 0.0125, 5,
                           model::MetricDirection::higher_is_better },
            model::Metric{ "overlapped_ms", 0.75, "ms", 0.0, 1,
                           model::MetricDirection::lower_is_better },
            model::Metric{ "speedup", 2.5, "x", 0.0, 1, model::MetricDirection::informational },
        };
        return result;
    }

    TEST_CASE("encode_event round trip", "[gpu][wire]")
    {
        const std::vector<ChildEvent> events = {
            gpu::RuntimeEvent{ 13000, 13000, 2, std::nullopt },
            gpu::RuntimeEvent{
              0, 13000, 0,
              model::CudaError{ 35, "cudaErrorInsufficientDriver", "driver too old" } },
            gpu::DeviceEvent{ sample_device() },
            gpu::StartEvent{ 1, "matmul-shared" },
            gpu::ResultEvent{ 1, sample_result() },
            gpu::FinishEvent{},
        };
        for (const auto& event : events)
        {
            const std::string line = gpu::encode_event(event);
            CAPTURE(line);
            CHECK(line.find('\n') == std::string::npos);
            const auto decoded = gpu::decode_event(line);
            REQUIRE(decoded);
            CHECK(*decoded == event);
        }
    }

    TEST_CASE("encode_event carries NaN as null", "[gpu][wire]")
    {
        auto result = sample_result();
        result.metrics[0].value = std::nan("");
        const auto decoded = gpu::decode_event(gpu::encode_event(gpu::ResultEvent{ 0, result }));
        REQUIRE(decoded);
        const auto& back = std::get<gpu::ResultEvent>(*decoded).result;
        CHECK(std::isnan(back.metrics[0].value));
    }

    TEST_CASE("decode_event negative", "[gpu][wire]")
    {
        const std::pair<std::string, std::string> cases[] = {
            { "", "not a JSON object" },
            { "garbage", "not a JSON object" },
            { "[1, 2]", "not a JSON object" },
            { R"({"event": 3})", "wrong type" },
            { R"({"kind": "start"})", "missing field 'event'" },
            { R"({"event": "explode"})", "unknown event 'explode'" },
            { R"({"event": "start", "device": 0})", "missing field 'probe'" },
            { R"({"event": "start", "device": "0", "probe": "hello"})",
              "field 'device' has the wrong type" },
            { R"({"event": "runtime", "driver_version": 13000, "runtime_version": 13000})",
              "device_count" },
            { R"({"event": "device", "device": {"index": 0}})", "device: missing field 'name'" },
            { R"({"event": "result", "device": 0, "result": {"id": "x", "status": "great",)"
              R"( "message": "",)"
              R"( "duration_seconds": 0, "metrics": []}})",
              "unknown status 'great'" },
            { R"({"event": "result", "device": 0, "result": {"id": "x", "status": "pass",)"
              R"( "message": "",)"
              R"( "duration_seconds": 0, "metrics": [{"name": "a", "value": 1, "unit": "",)"
              R"( "spread": 0, "samples": 1, "direction": "sideways"}]}})",
              "unknown metric direction 'sideways'" },
            { R"({"event": "runtime", "driver_version": 1, "runtime_version": 1, "device_count": 0)",
              "not a JSON object" },
        };
        for (const auto& [line, expected] : cases)
        {
            CAPTURE(line);
            const auto decoded = gpu::decode_event(line);
            REQUIRE_FALSE(decoded);
            CHECK(decoded.error().find(expected) != std::string::npos);
        }
    }
}
