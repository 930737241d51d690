// The one line protocol of the probe children: every event survives encode/decode unchanged,
// and a line that is not one says why.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/catch.hpp"
#include "wire/events.hpp"

using namespace envcheck;
using namespace envcheck::wire;

namespace
{
    auto full_gpu() -> model::NvmlGpu
    {
        model::NvmlGpu gpu;
        gpu.index = 1;
        gpu.name = "NVIDIA H200";
        gpu.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        gpu.pci_bus_id = "00000000:17:00.0";
        gpu.brand = 2;
        gpu.compute_capability_major = 9;
        gpu.compute_capability_minor = 0;
        gpu.memory_total_bytes = 150754820096ULL;
        gpu.memory_used_bytes = 512ULL << 20;
        gpu.pcie_generation_current = 5;
        gpu.pcie_generation_max = 5;
        gpu.pcie_width_current = 16;
        gpu.pcie_width_max = 16;
        gpu.sm_clock_mhz = 345;
        gpu.sm_clock_max_mhz = 1980;
        gpu.memory_clock_mhz = 3201;
        gpu.memory_clock_max_mhz = 3201;
        gpu.clock_event_reasons = 0x1;
        gpu.ecc_enabled = true;
        gpu.ecc_pending = true;
        gpu.ecc_corrected_volatile = 0;
        gpu.ecc_uncorrected_volatile = 0;
        gpu.ecc_corrected_aggregate = 3;
        gpu.ecc_uncorrected_aggregate = 0;
        gpu.remapped_rows_correctable = 0;
        gpu.remapped_rows_uncorrectable = 0;
        gpu.remapping_pending = false;
        gpu.remapping_failed = false;
        gpu.compute_mode = model::ComputeMode::exclusive_process;
        gpu.mig_enabled = false;
        gpu.mig_pending = false;
        gpu.mig_devices = 0;
        gpu.persistence_mode = true;
        gpu.temperature_c = 31;
        gpu.power_w = 75.5;
        gpu.power_limit_w = 700.0;
        gpu.compute_processes = 2;
        gpu.compute_process_ids = { 4242, 4343 };
        gpu.retired_pages_single_bit = 1;
        gpu.retired_pages_double_bit = 0;
        gpu.retired_pages_pending = false;
        gpu.nvlink_links = 18;
        gpu.nvlink_links_down = { 3, 7 };
        gpu.fabric_state = model::FabricState::completed;
        gpu.errors = { "nvmlDeviceGetRemappedRows: NVML_ERROR_UNKNOWN" };
        return gpu;
    }

    auto full_device() -> model::GpuDevice
    {
        model::GpuDevice device;
        device.index = 1;
        device.name = "NVIDIA H200";
        device.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        device.pci_bus_id = "0000:17:00.0";
        device.memory_bytes = 150754820096ULL;
        device.compute_capability_major = 9;
        device.compute_capability_minor = 0;
        device.multiprocessors = 132;
        device.shared_memory_per_block = 49152;
        device.shared_memory_per_block_optin = 232448;
        device.shared_memory_per_multiprocessor = 233472;
        device.reserved_shared_memory_per_block = 1024;
        device.registers_per_block = 65536;
        device.registers_per_multiprocessor = 65536;
        device.l2_cache_bytes = 62914560;
        device.max_threads_per_block = 1024;
        device.max_threads_per_multiprocessor = 2048;
        device.warp_size = 32;
        device.concurrent_kernels = true;
        device.async_engine_count = 4;
        device.unified_addressing = true;
        device.memory_bus_width_bits = 6144;
        device.sm_clock_mhz = 1980;
        device.memory_clock_mhz = 3201;
        device.compute_mode = model::ComputeMode::default_mode;
        device.ecc_enabled = true;
        return device;
    }

    auto library(std::string name, std::string real) -> model::LibraryFile
    {
        return model::LibraryFile{ name,        "/usr/lib/x86_64-linux-gnu/" + name,
                                   real,        "dlopen",
                                   "580.65.06", std::nullopt,
                                   false,       true };
    }

    auto nvml_probe() -> NvmlProbe
    {
        NvmlProbe probe;
        probe.facts.library =
          library("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06");
        probe.facts.library->size_bytes = 2097152;
        probe.facts.init_result = 0;
        probe.facts.driver_version = "580.65.06";
        probe.facts.cuda_driver_version = model::CudaVersion{ 13, 0 };
        probe.facts.nvml_version = "13.580.65.06";
        probe.facts.device_count = 1;
        probe.facts.gpus = { full_gpu(), model::NvmlGpu{} };
        probe.opens = { { "/dev/nvidiactl", true, "" },
                        { "/dev/nvidia0", false, "Operation not permitted" } };
        return probe;
    }

    auto cuda_facts() -> model::CudaDriverFacts
    {
        model::CudaDriverFacts facts;
        facts.library = library("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
        facts.driver_version = model::CudaVersion{ 13, 0 };
        facts.init_result = 0;
        facts.device_count = 2;
        model::GpuDevice sparse; // an old driver that answered little
        sparse.index = 0;
        sparse.name = "Tesla K80";
        facts.devices = { sparse, full_device() };
        return facts;
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

    TEST_CASE("every event survives encode and decode", "[wire]")
    {
        model::CudaDriverFacts failed_load;
        failed_load.load_error = "libcuda.so.1: cannot open shared object file";
        const std::vector<Event> events = {
            StepEvent{ "dlopen libcuda.so.1" },
            NvmlEvent{ nvml_probe() },
            NvmlEvent{},
            CudaEvent{ cuda_facts() },
            CudaEvent{ failed_load },
            DriverEvent{ true, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "" },
            DriverEvent{ false, "", "libcuda.so.1: cannot open shared object file" },
            RuntimeEvent{ 13000, 13000, 2, std::nullopt },
            RuntimeEvent{ 0, 13000, 0,
                          model::CudaError{ 35, "cudaErrorInsufficientDriver", "driver too old" } },
            DeviceEvent{ full_device() },
            StartEvent{ 1, "matmul-shared" },
            ResultEvent{ 1, sample_result() },
            FinishEvent{},
        };
        for (const auto& event : events)
        {
            const std::string line = encode(event);
            CAPTURE(line);
            CHECK(line.find('\n') == std::string::npos);
            const auto decoded = decode(line);
            REQUIRE(decoded);
            CHECK(*decoded == event);
        }
    }

    TEST_CASE("NaN travels as null", "[wire]")
    {
        auto result = sample_result();
        result.metrics[0].value = std::nan("");
        const auto decoded = decode(encode(ResultEvent{ 0, result }));
        REQUIRE(decoded);
        const auto& back = std::get<ResultEvent>(*decoded).result;
        CHECK(std::isnan(back.metrics[0].value));
    }

    TEST_CASE("a driver's bytes that are not UTF-8 are replaced, not thrown on", "[wire]")
    {
        auto device = full_device();
        device.name = "GPU \xff\xfe";
        const auto decoded = decode(encode(DeviceEvent{ device }));
        REQUIRE(decoded);
        CHECK(std::get<DeviceEvent>(*decoded).device.name.starts_with("GPU "));
    }

    TEST_CASE("decode negative", "[wire]")
    {
        const std::pair<std::string, std::string> cases[] = {
            { "", "not a JSON object" },
            { "garbage", "not a JSON object" },
            { "Segmentation fault (core dumped)", "not a JSON object" },
            { "[1, 2]", "not a JSON object" },
            { R"({"event": 3})", "event: expected a string" },
            { R"({"kind": "start"})", "event: missing" },
            { R"({"step": "cuInit"})", "event: missing" },
            { R"({"event": "explode"})", "unknown event 'explode'" },
            { R"({"event": "step"})", "step: missing" },
            { R"({"event": "start", "device": 0})", "probe: missing" },
            { R"({"event": "start", "device": "0", "probe": "hello"})",
              "device: expected an integer" },
            { R"({"event": "start", "device": 4294967296, "probe": "hello"})",
              "device: expected an integer" },
            { R"({"event": "runtime", "driver_version": 13000, "runtime_version": 13000})",
              "device_count" },
            { R"({"event": "device", "device": {"index": 0}})", "device.name: missing" },
            { R"({"event": "device", "device": {"index": 0, "name": "", "uuid": "", )"
              R"("pci_bus_id": "", "compute_mode": "sometimes"}})",
              "device.compute_mode: unknown compute mode 'sometimes'" },
            { R"({"event": "result", "device": 0, "result": {"id": "x", "status": "great",)"
              R"( "message": "",)"
              R"( "duration_seconds": 0, "metrics": []}})",
              "result.status: unknown status 'great'" },
            { R"({"event": "result", "device": 0, "result": {"id": "x", "status": "pass",)"
              R"( "message": "",)"
              R"( "duration_seconds": 0, "metrics": [{"name": "a", "value": 1, "unit": "",)"
              R"( "spread": 0, "samples": 1, "direction": "sideways"}]}})",
              "result.metrics[0].direction: unknown metric direction 'sideways'" },
            { R"({"event": "runtime", "driver_version": 1, "runtime_version": 1, "device_count": 0)",
              "not a JSON object" },
            { R"({"event": "nvml", "load_error": "", "init_result": "x"})",
              "nvml: init_result: expected an integer" },
            { R"({"event": "nvml", "load_error": "", "gpus": 3})", "nvml: gpus: expected a list" },
            { R"({"event": "nvml", "load_error": "", "gpus": [3]})",
              "nvml: gpus[0]: expected an object" },
            { R"({"event": "nvml", "load_error": "", "gpus": [{"index": 0}]})",
              "nvml: gpus[0].name: missing" },
            { R"({"event": "nvml", "load_error": "", "opens": [{"path": "/dev/nvidia0"}]})",
              "nvml: opens[0].ok: missing" },
            { R"({"event": "cuda", "load_error": "", "devices": {}})",
              "cuda: devices: expected a list" },
            { R"({"event": "cuda", "load_error": "", "library": "libcuda.so.1"})",
              "cuda: library: expected an object" },
            { R"({"event": "cuda", "load_error": "", "library": {"name": "libcuda.so.1"}})",
              "cuda: library.path: missing" },
            { R"({"event": "cuda"})", "cuda: load_error: missing" },
            { R"({"event": "driver", "loaded": "yes", "library": "", "error": ""})",
              "loaded: expected true or false" },
        };
        for (const auto& [line, expected] : cases)
        {
            CAPTURE(line);
            const auto decoded = decode(line);
            REQUIRE_FALSE(decoded);
            CHECK(decoded.error().find(expected) != std::string::npos);
        }
    }

    TEST_CASE("the go-ahead survives encode and decode", "[wire]")
    {
        const GoAhead cases[] = {
            GoAhead{},
            GoAhead{ { { 0, "GPU 0 is busy: 1 compute process of others (pid 7) holds it" } } },
            GoAhead{ { { 1, "busy" }, { 3, "busy \"quoted\"\ttoo" }, { 255, "" } } },
        };
        for (const auto& go_ahead : cases)
        {
            const auto decoded = decode_go_ahead(encode(go_ahead));
            REQUIRE(decoded);
            CHECK(*decoded == go_ahead);
        }
        CHECK(encode(GoAhead{}) == R"({"event":"go","spared":[]})");
    }

    TEST_CASE("decode_go_ahead negative", "[wire]")
    {
        const std::pair<std::string, std::string> cases[] = {
            { "", "not a JSON object" },
            { "go", "not a JSON object" },
            { R"({"spared": []})", "event: missing" },
            { R"({"event": "finish"})", "event: expected 'go', got 'finish'" },
            { R"({"event": "go", "spared": {}})", "spared: expected a list" },
            { R"({"event": "go", "spared": [0]})", "spared[0]: expected an object" },
            { R"({"event": "go", "spared": [{"device": 0}]})", "spared[0].reason: missing" },
            { R"({"event": "go", "spared": [{"device": "0", "reason": ""}]})",
              "spared[0].device: expected an integer" },
        };
        for (const auto& [line, expected] : cases)
        {
            CAPTURE(line);
            const auto decoded = decode_go_ahead(line);
            REQUIRE_FALSE(decoded);
            CHECK(decoded.error().find(expected) != std::string::npos);
        }
    }
}
