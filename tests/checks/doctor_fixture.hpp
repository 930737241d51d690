// A healthy live machine as the probe would report it (one H200, driver 580.65.06, CUDA 13.0),
// for the doctor's tests to break one link at a time.
#ifndef ENVCHECK_TESTS_CHECKS_DOCTOR_FIXTURE_HPP
#define ENVCHECK_TESTS_CHECKS_DOCTOR_FIXTURE_HPP

#include "checks/doctor.hpp"
#include "model/machine.hpp"

namespace envcheck::tests
{
    inline auto healthy_machine() -> model::MachineFacts
    {
        model::MachineFacts facts;
        facts.root = "/";
        facts.live = true;
        facts.os.kernel_release = "6.8.0-60-generic";
        facts.pci.sysfs_visible = true;
        facts.pci.devices = {
            { "0000:17:00.0", 0x10de, 0x2335, 0x030200, "nvidia", {}, {}, {}, {}, {} }
        };
        facts.kernel.version = "580.65.06";
        facts.kernel.version_source = "/proc/driver/nvidia/version";
        facts.kernel.modules = { { "nvidia", true, "580.65.06" },
                                 { "nvidia_uvm", true, {} },
                                 { "nouveau", false, {} } };
        for (const auto* path : { "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0" })
        {
            facts.device_nodes.push_back({ path, true, true, 0666u, 0u, 0u, true, true, {} });
        }
        const model::LibraryFile libcuda{ "libcuda.so.1",
                                          "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                          "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06",
                                          "ld.so.conf",
                                          "580.65.06",
                                          40000000,
                                          false,
                                          false };
        model::LibraryFile nvml = libcuda;
        nvml.name = "libnvidia-ml.so.1";
        nvml.path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
        nvml.real_path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06";
        facts.libraries.libcuda = { libcuda };
        facts.libraries.libnvidia_ml = { nvml };
        facts.nvml.attempted = true;
        facts.nvml.library = nvml;
        facts.nvml.library->found_via = "dlopen";
        facts.nvml.init_result = 0;
        facts.nvml.driver_version = "580.65.06";
        facts.nvml.cuda_driver_version = model::CudaVersion{ 13, 0 };
        facts.nvml.nvml_version = "13.580.65.06";
        facts.nvml.device_count = 1;
        model::NvmlGpu gpu;
        gpu.index = 0;
        gpu.name = "NVIDIA H200";
        gpu.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        gpu.pci_bus_id = "00000000:17:00.0";
        gpu.brand = 2;
        gpu.compute_capability_major = 9;
        gpu.compute_capability_minor = 0;
        gpu.compute_mode = model::ComputeMode::default_mode;
        gpu.compute_processes = 0;
        gpu.mig_enabled = false;
        gpu.mig_pending = false;
        gpu.fabric_state = model::FabricState::not_supported;
        facts.nvml.gpus = { gpu };
        facts.cuda.attempted = true;
        facts.cuda.library = libcuda;
        facts.cuda.library->found_via = "dlopen";
        facts.cuda.driver_version = model::CudaVersion{ 13, 0 };
        facts.cuda.init_result = 0;
        facts.cuda.device_count = 1;
        model::GpuDevice device;
        device.index = 0;
        device.name = "NVIDIA H200";
        device.compute_capability_major = 9;
        device.compute_capability_minor = 0;
        device.compute_mode = model::ComputeMode::default_mode;
        facts.cuda.devices = { device };
        return facts;
    }

    inline auto status_of(const checks::DoctorReport& report, std::string_view id) -> model::Status
    {
        const auto* outcome = report.outcome(id);
        REQUIRE(outcome != nullptr);
        return outcome->status;
    }
}

#endif
