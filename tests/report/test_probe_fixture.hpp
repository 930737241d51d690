// Machines as the probe reports them, for the renderers' golden tests: a live H200 node with
// everything known, and a machine without any NVIDIA hardware or driver.
#ifndef ENVCHECK_TESTS_REPORT_TEST_PROBE_FIXTURE_HPP
#define ENVCHECK_TESTS_REPORT_TEST_PROBE_FIXTURE_HPP

#include "model/machine.hpp"

namespace envcheck::tests
{
    inline auto h200_machine() -> model::MachineFacts
    {
        model::MachineFacts facts;
        facts.hostname = "gpu-node-07";
        facts.os = {
            "Ubuntu 24.04.2 LTS", "ubuntu", "24.04", "6.8.0-60-generic", "x86_64", "2.39", {}
        };
        facts.cpu = { "INTEL(R) XEON(R) PLATINUM 8568Y+", 192 };
        facts.environment = { { "CUDA_VISIBLE_DEVICES", "0", false },
                              { "HF_TOKEN", "<redacted>", true },
                              { "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64", false } };
        facts.pci.sysfs_visible = true;
        facts.pci.devices = { { "0000:17:00.0", 0x10de, 0x2335, 0x030200, "nvidia",
                                "32.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16, 0 } };
        facts.kernel.version = "580.65.06";
        facts.kernel.version_source = "/proc/driver/nvidia/version";
        facts.kernel.nvrm_line =
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build";
        facts.kernel.modules = { { "nvidia", true, "580.65.06" },
                                 { "nvidia_uvm", true, {} },
                                 { "nouveau", false, {} } };
        facts.kernel.proc_gpus = { "0000:17:00.0" };
        facts.device_nodes = { { "/dev/nvidiactl", true, true, 0666u, 0u, 0u, true, true, {} },
                               { "/dev/nvidia-uvm", true, true, 0666u, 0u, 0u, true, true, {} },
                               { "/dev/nvidia0", true, true, 0666u, 0u, 0u, true, true, {} } };
        const model::LibraryFile libcuda{ "libcuda.so.1",
                                          "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                          "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06",
                                          "ld.so.conf",
                                          "580.65.06",
                                          68157440,
                                          false,
                                          false };
        const model::LibraryFile nvml{ "libnvidia-ml.so.1",
                                       "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                                       "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06",
                                       "ld.so.conf",
                                       "580.65.06",
                                       2097152,
                                       false,
                                       false };
        facts.libraries = { { "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu" },
                            { libcuda },
                            { nvml } };
        facts.nvml.attempted = true;
        facts.nvml.library = nvml;
        facts.nvml.library->found_via = "dlopen";
        facts.nvml.init_result = 0;
        facts.nvml.driver_version = "580.65.06";
        facts.nvml.cuda_driver_version = model::CudaVersion{ 13, 0 };
        facts.nvml.nvml_version = "13.580.65.06";
        facts.nvml.device_count = 1;
        model::NvmlGpu gpu;
        gpu.name = "NVIDIA H200";
        gpu.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        gpu.pci_bus_id = "00000000:17:00.0";
        gpu.brand = 2;
        gpu.compute_capability_major = 9;
        gpu.compute_capability_minor = 0;
        gpu.memory_total_bytes = 150754820096ULL;
        gpu.memory_used_bytes = 553648128ULL;
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
        gpu.ecc_corrected_aggregate = 0;
        gpu.ecc_uncorrected_aggregate = 0;
        gpu.remapped_rows_correctable = 0;
        gpu.remapped_rows_uncorrectable = 0;
        gpu.remapping_pending = false;
        gpu.remapping_failed = false;
        gpu.compute_mode = model::ComputeMode::default_mode;
        gpu.mig_enabled = false;
        gpu.mig_pending = false;
        gpu.persistence_mode = true;
        gpu.temperature_c = 31;
        gpu.power_w = 76.0;
        gpu.power_limit_w = 700.0;
        gpu.compute_processes = 0;
        gpu.nvlink_links = 18;
        gpu.fabric_state = model::FabricState::completed;
        facts.nvml.gpus = { gpu };
        facts.kernel_log.source = "/dev/kmsg";
        facts.kernel_log.readable = true;
        facts.kernel_log.xids = { { "0000:17:00", 13,
                                    "pid=48211, name=python, Graphics SM Warp "
                                    "Exception" } };
        facts.cuda.attempted = true;
        facts.cuda.library = libcuda;
        facts.cuda.library->found_via = "dlopen";
        facts.cuda.driver_version = model::CudaVersion{ 13, 0 };
        facts.cuda.init_result = 0;
        facts.cuda.device_count = 1;
        model::GpuDevice device;
        device.name = "NVIDIA H200";
        device.uuid = gpu.uuid;
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
        facts.cuda.devices = { device };
        facts.runtime = { true,
                          model::CudaVersion{ 13, 0 },
                          { "sm_75", "sm_80", "sm_90", "sm_120" },
                          { "compute_120" } };
        facts.processes = { "nvidia-persistenced" };
        return facts;
    }

    inline auto no_gpu_machine() -> model::MachineFacts
    {
        model::MachineFacts facts;
        facts.hostname = "ci-runner";
        facts.os = {
            "Debian GNU/Linux 12 (bookworm)", "debian", "12", "6.1.0-18-amd64", "x86_64", "2.36", {}
        };
        facts.cpu = { "Intel(R) Xeon(R) Processor", 2 };
        facts.container.markers = { "/.dockerenv" };
        facts.pci.sysfs_visible = true;
        facts.kernel.modules = { { "nvidia", false, {} }, { "nouveau", false, {} } };
        facts.device_nodes = { { "/dev/nvidiactl", false, false, {}, {}, {}, {}, {}, {} },
                               { "/dev/nvidia-uvm", false, false, {}, {}, {}, {}, {}, {} } };
        facts.libraries.search_dirs = { "/usr/lib/x86_64-linux-gnu" };
        facts.nvml.attempted = true;
        facts.nvml.load_error =
          "libnvidia-ml.so.1: cannot open shared object file: No such file or directory";
        facts.cuda.attempted = true;
        facts.cuda.load_error =
          "libcuda.so.1: cannot open shared object file: No such file or directory";
        return facts;
    }
}

#endif
