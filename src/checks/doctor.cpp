#include "checks/doctor.hpp"

#include <algorithm>
#include <map>

#include "checks/doctor_environment.hpp"
#include "checks/doctor_hardware.hpp"
#include "checks/doctor_machine.hpp"

namespace envcheck::checks
{
    namespace
    {
        constexpr std::string_view pci = "pci.nvidia-present";
        constexpr std::string_view module_loaded = "kernel.module-loaded";
        constexpr std::string_view container = "container.gpu-passed-through";
        constexpr std::string_view nodes_present = "devnodes.present";
        constexpr std::string_view nodes_permissions = "devnodes.permissions";
        constexpr std::string_view libcuda = "driver.libcuda-found";
        constexpr std::string_view stub = "driver.libcuda-stub";
        constexpr std::string_view compat = "driver.compat-misuse";
        constexpr std::string_view cuda_init = "cuda.init";
        constexpr std::string_view device_count = "cuda.device-count";
        constexpr std::string_view nvml_init = "nvml.init";

        constexpr std::string_view health = hardware_gate_stage;

        // Walk order: hardware -> kernel -> device nodes -> driver library -> NVML -> CUDA ->
        // devices -> environment -> framework, then the hardware gates (doctor_hardware.hpp),
        // which judge whatever NVML and the kernel log told, whichever link above broke.
        constexpr std::array<DoctorCheck, 31> registry{ {
          { pci, "hardware", "an NVIDIA GPU is on the PCI bus", {}, check_pci_nvidia_present },
          { "wsl.driver",
            "kernel",
            "under WSL2, the Windows driver's libraries serve the GPU",
            {},
            check_wsl_driver },
          { module_loaded,
            "kernel",
            "the NVIDIA kernel module is loaded",
            { pci },
            check_kernel_module_loaded },
          { "kernel.nouveau-bound",
            "kernel",
            "no GPU is driven by nouveau",
            { pci },
            check_kernel_nouveau_bound },
          { "kernel.module-matches-userspace",
            "kernel",
            "the kernel module and the user-space driver libraries are the same version",
            { module_loaded },
            check_kernel_module_matches_userspace },
          { container,
            "device nodes",
            "a container was given the GPUs and the driver libraries",
            { pci },
            check_container_gpu_passed_through },
          { nodes_present,
            "device nodes",
            "/dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN exist",
            { module_loaded, container },
            check_devnodes_present },
          { nodes_permissions,
            "device nodes",
            "this user can read, write and open the device nodes",
            { nodes_present },
            check_devnodes_permissions },
          { libcuda,
            "driver library",
            "the driver's libcuda.so.1 can be found and loaded",
            { pci, container },
            check_libcuda_found },
          { stub,
            "driver library",
            "libcuda is the driver's, not the toolkit's link-time stub",
            { libcuda },
            check_libcuda_stub },
          { compat,
            "driver library",
            "forward compatibility (cuda-compat) only where it is supported",
            { libcuda },
            check_compat_misuse },
          { nvml_init,
            "nvml",
            "NVML initializes and answers",
            { nodes_permissions },
            check_nvml_init },
          { cuda_init,
            "cuda",
            "cuInit(0) succeeds",
            { libcuda, stub, compat, nodes_permissions },
            check_cuda_init },
          { "cuda.visible-devices",
            "devices",
            "CUDA_VISIBLE_DEVICES leaves GPUs visible",
            { pci },
            check_cuda_visible_devices },
          { device_count,
            "devices",
            "the CUDA driver sees at least one device",
            { cuda_init },
            check_cuda_device_count },
          { "cuda.compute-mode",
            "devices",
            "no GPU is in a compute mode that refuses this process",
            { device_count },
            check_cuda_compute_mode },
          { "fabric-manager",
            "devices",
            "on NVSwitch systems, Fabric Manager has set up the fabric",
            { module_loaded },
            check_fabric_manager },
          { "mig.configuration",
            "devices",
            "MIG, where enabled, has devices to run on",
            { nvml_init },
            check_mig_configuration },
          { "env.driver-supports-runtime",
            "environment",
            "the driver runs the CUDA runtime the environment carries",
            { module_loaded },
            check_driver_supports_runtime },
          { "env.framework-gpu-build",
            "environment",
            "pytorch, tensorflow and jax are GPU builds",
            { pci },
            check_framework_gpu_build },
          { "env.framework-arch-support",
            "environment",
            "the frameworks carry code for the GPU's compute capability",
            { pci },
            check_framework_arch_support },
          { "framework.runtime-check",
            "framework",
            "the environment's python sees the GPU through its frameworks and runs an operation on "
            "it",
            { device_count },
            check_framework_runtime },
          { "gpu.xid",
            health,
            "no fatal Xid error in the kernel log since boot",
            { pci },
            check_gpu_xid },
          { "gpu.ecc-uncorrectable",
            health,
            "no uncorrectable ECC error (volatile or aggregate)",
            {},
            check_gpu_ecc_uncorrectable },
          { "gpu.row-remapping",
            health,
            "no row remapping pending or failed",
            {},
            check_gpu_row_remapping },
          { "gpu.retired-pages",
            health,
            "no page retirement pending, retired pages below the RMA threshold",
            {},
            check_gpu_retired_pages },
          { "gpu.pcie-link",
            health,
            "PCIe links at their maximum generation and width while the GPU works",
            {},
            check_gpu_pcie_link },
          { "gpu.throttle-hardware",
            health,
            "no clock slowdown for hardware reasons (HW slowdown, thermal, power brake)",
            {},
            check_gpu_throttle_hardware },
          { "gpu.persistence-mode",
            health,
            "persistence mode is on",
            {},
            check_gpu_persistence_mode },
          { "gpu.count",
            health,
            "as many GPUs as the lock or --expect-gpus says",
            {},
            check_gpu_count },
          { "gpu.nvlink",
            health,
            "no NVLink link down on GPUs that have NVLink",
            {},
            check_gpu_nvlink },
        } };
    }

    auto doctor_checks() -> std::span<const DoctorCheck>
    {
        return registry;
    }

    auto find_doctor_check(std::string_view id) -> const DoctorCheck*
    {
        const auto* found = std::find_if(registry.begin(), registry.end(),
                                         [&](const DoctorCheck& check) { return check.id == id; });
        return found == registry.end() ? nullptr : found;
    }

    auto DoctorReport::outcome(std::string_view id) const -> const model::CheckOutcome*
    {
        const auto found =
          std::find_if(outcomes.begin(), outcomes.end(),
                       [&](const model::CheckOutcome& outcome) { return outcome.id == id; });
        return found == outcomes.end() ? nullptr : &*found;
    }

    auto run_doctor(const DoctorInput& input) -> DoctorReport
    {
        DoctorReport report;
        // For every check that failed, or was skipped because of a failure: the failed link.
        std::map<std::string, std::string, std::less<>> broken_by;
        for (const auto& check : registry)
        {
            std::optional<std::string> blocked;
            for (const auto& dependency : check.after)
            {
                if (const auto found = broken_by.find(dependency);
                    !dependency.empty() && found != broken_by.end())
                {
                    blocked = found->second;
                    break;
                }
            }
            model::CheckOutcome outcome;
            if (const auto skipped = input.skip.find(check.id); skipped != input.skip.end())
            {
                outcome = skip("skipped: " + skipped->second);
            }
            else if (blocked)
            {
                outcome = skip("skipped: " + *blocked + " failed");
                broken_by.emplace(std::string(check.id), *blocked);
            }
            else
            {
                outcome = check.run(input);
                if (model::is_failure(outcome.status))
                {
                    broken_by.emplace(std::string(check.id), std::string(check.id));
                    if (!report.first_broken_link)
                    {
                        report.first_broken_link = std::string(check.id);
                    }
                }
            }
            outcome.id = std::string(check.id);
            outcome.labels["stage"] = std::string(check.stage);
            report.outcomes.push_back(std::move(outcome));
        }
        return report;
    }
}
