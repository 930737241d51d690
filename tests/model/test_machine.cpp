#include "model/machine.hpp"
#include "tests/catch.hpp"

using namespace envcheck::model;

namespace
{
    TEST_CASE("clock_event_reason_names", "[model][MachineFacts]")
    {
        CHECK(clock_event_reason_names(0).empty());
        CHECK(clock_event_reason_names(0x1) == std::vector<std::string>{ "gpu_idle" });
        CHECK(clock_event_reason_names(0x4 | 0x40) ==
              std::vector<std::string>{ "sw_power_cap", "hw_thermal_slowdown" });
        CHECK(clock_event_reason_names(0x100) ==
              std::vector<std::string>{ "display_clock_setting" });
        // Bits NVML may add later are kept, as hex.
        CHECK(clock_event_reason_names(0x1000 | 0x8) ==
              std::vector<std::string>{ "hw_slowdown", "0x1000" });
    }

    TEST_CASE("nvml_error_name and cuda_error_name", "[model][MachineFacts]")
    {
        CHECK(nvml_error_name(0) == "NVML_SUCCESS");
        CHECK(nvml_error_name(9) == "NVML_ERROR_DRIVER_NOT_LOADED");
        CHECK(nvml_error_name(18) == "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
        CHECK(nvml_error_name(999) == "NVML_ERROR_UNKNOWN");
        CHECK(nvml_error_name(4242) == "NVML error 4242");
        CHECK(cuda_error_name(0) == "CUDA_SUCCESS");
        CHECK(cuda_error_name(34) == "CUDA_ERROR_STUB_LIBRARY");
        CHECK(cuda_error_name(100) == "CUDA_ERROR_NO_DEVICE");
        CHECK(cuda_error_name(804) == "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
        CHECK(cuda_error_name(35) == "CUDA error 35"); // a runtime error, not a driver one
    }

    TEST_CASE("hex_id", "[model][MachineFacts]")
    {
        CHECK(hex_id(0x10de, 4) == "0x10de");
        CHECK(hex_id(0x30200, 6) == "0x030200");
        CHECK(hex_id(0, 4) == "0x0000");
        CHECK(hex_id(0xabcdef12345ULL, 1) == "0xabcdef12345");
    }

    TEST_CASE("ComputeMode round trip", "[model][ComputeMode]")
    {
        for (const auto mode : { ComputeMode::default_mode, ComputeMode::exclusive_thread,
                                 ComputeMode::prohibited, ComputeMode::exclusive_process })
        {
            CAPTURE(to_string(mode));
            CHECK(parse_compute_mode(to_string(mode)) == mode);
        }
        CHECK(compute_mode_from_code(0) == ComputeMode::default_mode);
        CHECK(compute_mode_from_code(2) == ComputeMode::prohibited);
        CHECK(compute_mode_from_code(3) == ComputeMode::exclusive_process);
        CHECK_FALSE(compute_mode_from_code(4));
        CHECK_FALSE(compute_mode_from_code(-1));
        CHECK_FALSE(parse_compute_mode("shared"));
    }

    TEST_CASE("FabricState round trip", "[model][FabricState]")
    {
        for (const auto state : { FabricState::not_supported, FabricState::not_started,
                                  FabricState::in_progress, FabricState::completed })
        {
            CHECK(parse_fabric_state(to_string(state)) == state);
        }
        CHECK_FALSE(parse_fabric_state("done"));
    }

    TEST_CASE("PciDevice kinds", "[model][PciDevice]")
    {
        PciDevice device;
        device.class_code = 0x030200;
        CHECK(device.is_gpu());
        CHECK_FALSE(device.is_nvswitch());
        device.class_code = 0x030000;
        CHECK(device.is_gpu());
        device.class_code = 0x068000;
        CHECK(device.is_nvswitch());
        CHECK_FALSE(device.is_gpu());
        device.class_code = 0x040300; // the GPU's HDMI audio function
        CHECK_FALSE(device.is_gpu());
        PciFacts pci;
        pci.devices = {
            device, PciDevice{ "0000:17:00.0", 0x10de, 0x2335, 0x030200, {}, {}, {}, {}, {}, {} },
            PciDevice{ "0000:05:00.0", 0x10de, 0x22a3, 0x068000, {}, {}, {}, {}, {}, {} }
        };
        CHECK(pci.gpu_count() == 1);
        CHECK(pci.has_nvswitch());
    }

    TEST_CASE("driver_version", "[model][MachineFacts]")
    {
        MachineFacts facts;
        CHECK_FALSE(driver_version(facts));
        SECTION("the first system libcuda's file name, not a stub or cuda-compat")
        {
            LibraryFile stub;
            stub.version = "1.0.0";
            stub.stub = true;
            LibraryFile compat;
            compat.version = "580.65.06";
            compat.compat = true;
            LibraryFile system;
            system.version = "570.148.08";
            facts.libraries.libcuda = { stub, compat, system };
            CHECK(driver_version(facts) == "570.148.08");
        }
        SECTION("the kernel module before the libraries, NVML before both")
        {
            LibraryFile system;
            system.version = "570.148.08";
            facts.libraries.libcuda = { system };
            facts.kernel.version = "570.133.20";
            CHECK(driver_version(facts) == "570.133.20");
            facts.nvml.driver_version = "570.133.21";
            CHECK(driver_version(facts) == "570.133.21");
        }
    }

    TEST_CASE("driver_cuda_version", "[model][MachineFacts]")
    {
        MachineFacts facts;
        CHECK_FALSE(driver_cuda_version(facts));
        facts.nvml.cuda_driver_version = CudaVersion{ 12, 8 };
        CHECK(driver_cuda_version(facts) == CudaVersion{ 12, 8 });
        // cuDriverGetVersion is what the runtime compares against (cuda-compat changes it).
        facts.cuda.driver_version = CudaVersion{ 13, 0 };
        CHECK(driver_cuda_version(facts) == CudaVersion{ 13, 0 });
    }

    TEST_CASE("gpu_summaries", "[model][MachineFacts]")
    {
        MachineFacts facts;
        CHECK(gpu_summaries(facts).empty());
        GpuDevice device;
        device.index = 0;
        device.name = "NVIDIA H200";
        device.compute_capability_major = 9;
        device.compute_capability_minor = 0;
        facts.cuda.devices = { device };
        auto gpus = gpu_summaries(facts);
        REQUIRE(gpus.size() == 1);
        CHECK(gpus[0].compute_capability() == "9.0");
        NvmlGpu gpu;
        gpu.index = 0;
        gpu.name = "NVIDIA H200";
        gpu.uuid = "GPU-1";
        gpu.pci_bus_id = "00000000:17:00.0";
        facts.nvml.gpus = { gpu };
        gpus = gpu_summaries(facts);
        REQUIRE(gpus.size() == 1);
        CHECK(gpus[0].uuid == "GPU-1");
        CHECK_FALSE(gpus[0].compute_capability()); // NVML did not say
    }

    TEST_CASE("MachineFacts lookups", "[model][MachineFacts]")
    {
        MachineFacts facts;
        facts.environment = { { "CUDA_VISIBLE_DEVICES", "0", false } };
        facts.device_nodes = { DeviceNode{
          "/dev/nvidiactl", true, true, 0666u, 0u, 0u, true, {}, {} } };
        facts.processes = { "nv-fabricmanager" };
        facts.kernel.modules = { { "nvidia", true, "580.65.06" }, { "nouveau", false, {} } };
        CHECK(facts.environment_value("CUDA_VISIBLE_DEVICES") == "0");
        CHECK_FALSE(facts.environment_value("NVIDIA_VISIBLE_DEVICES"));
        REQUIRE(facts.device_node("/dev/nvidiactl") != nullptr);
        CHECK(facts.device_node("/dev/nvidia0") == nullptr);
        CHECK(facts.process_running("nv-fabricmanager"));
        CHECK_FALSE(facts.process_running("nvidia-persistenced"));
        CHECK(facts.kernel.loaded("nvidia"));
        CHECK_FALSE(facts.kernel.loaded("nouveau"));
        CHECK_FALSE(facts.kernel.loaded("nvidia_uvm"));
    }
}
