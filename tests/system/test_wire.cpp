#include "system/wire.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using namespace envcheck::system;

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
        gpu.fabric_state = model::FabricState::completed;
        gpu.errors = { "nvmlDeviceGetRemappedRows: NVML_ERROR_UNKNOWN" };
        return gpu;
    }

    TEST_CASE("encode_nvml round trip", "[system][wire]")
    {
        NvmlProbe probe;
        probe.facts.attempted = true;
        probe.facts.library =
          model::LibraryFile{ "libnvidia-ml.so.1",
                              "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                              "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06",
                              "dlopen",
                              "580.65.06",
                              2097152,
                              false,
                              false };
        probe.facts.init_result = 0;
        probe.facts.driver_version = "580.65.06";
        probe.facts.cuda_driver_version = model::CudaVersion{ 13, 0 };
        probe.facts.nvml_version = "13.580.65.06";
        probe.facts.device_count = 1;
        probe.facts.gpus = { full_gpu(), model::NvmlGpu{} };
        probe.opens = { { "/dev/nvidiactl", true, "" },
                        { "/dev/nvidia0", false, "Operation not permitted" } };
        const auto decoded = decode_nvml(encode_nvml(probe));
        REQUIRE(decoded);
        CHECK(*decoded == probe);
    }

    TEST_CASE("encode_cuda round trip", "[system][wire]")
    {
        model::CudaDriverFacts facts;
        facts.attempted = true;
        facts.load_error = "";
        facts.library = model::LibraryFile{ "libcuda.so.1",
                                            "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                            "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06",
                                            "dlopen",
                                            "580.65.06",
                                            std::nullopt,
                                            false,
                                            true };
        facts.driver_version = model::CudaVersion{ 13, 0 };
        facts.init_result = 0;
        facts.device_count = 1;
        model::CudaDevice device;
        device.ordinal = 0;
        device.name = "NVIDIA H200";
        device.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        device.pci_bus_id = "0000:17:00.0";
        device.memory_total_bytes = 150754820096ULL;
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
        device.clock_mhz = 1980;
        device.memory_clock_mhz = 3201;
        device.compute_mode = model::ComputeMode::default_mode;
        device.ecc_enabled = true;
        facts.devices = { device };
        const auto decoded = decode_cuda(encode_cuda(facts));
        REQUIRE(decoded);
        CHECK(*decoded == facts);
    }

    TEST_CASE("decode negative", "[system][wire]")
    {
        for (const std::string_view text : { "", "not json", "[1,2]", "{\"init_result\": \"x\"}" })
        {
            CAPTURE(text);
            CHECK_FALSE(decode_nvml(text));
            CHECK_FALSE(decode_cuda(text));
        }
        CHECK_FALSE(decode_nvml("{\"gpus\": 3}"));
        CHECK_FALSE(decode_nvml("{\"gpus\": [3]}"));
        CHECK_FALSE(decode_cuda("{\"devices\": {}}"));
    }

    TEST_CASE("encode_step", "[system][wire]")
    {
        CHECK(decode_step(encode_step("cuInit")) == "cuInit");
        CHECK(decode_step(encode_cuda({})).empty());
        CHECK(decode_step("garbage").empty());
    }
}
