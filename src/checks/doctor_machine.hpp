// The machine half of the doctor: hardware, kernel, device nodes, driver library, NVML, CUDA,
// devices (rows of the registry in doctor.cpp). Each reads model::MachineFacts only.
#ifndef ENVCHECK_CHECKS_DOCTOR_MACHINE_HPP
#define ENVCHECK_CHECKS_DOCTOR_MACHINE_HPP

#include <string>

#include "checks/doctor.hpp"

namespace envcheck::checks
{
    [[nodiscard]] auto check_pci_nvidia_present(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_wsl_driver(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_kernel_module_loaded(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_kernel_nouveau_bound(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_kernel_module_matches_userspace(const DoctorInput& input)
      -> model::CheckOutcome;
    [[nodiscard]] auto check_container_gpu_passed_through(const DoctorInput& input)
      -> model::CheckOutcome;
    [[nodiscard]] auto check_devnodes_present(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_devnodes_permissions(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_libcuda_found(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_libcuda_stub(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_compat_misuse(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_nvml_init(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_cuda_init(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_cuda_visible_devices(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_cuda_device_count(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_cuda_compute_mode(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_fabric_manager(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_mig_configuration(const DoctorInput& input) -> model::CheckOutcome;

    // Outcome builders shared by the doctor's checks; the registry fills in the id.
    [[nodiscard]] inline auto pass(std::string message) -> model::CheckOutcome
    {
        return { {}, model::Status::pass, std::move(message), {}, {}, {} };
    }
    [[nodiscard]] inline auto warn(std::string message, std::string fix) -> model::CheckOutcome
    {
        return { {}, model::Status::warn, std::move(message), std::move(fix), {}, {} };
    }
    [[nodiscard]] inline auto fail(std::string message, std::string fix) -> model::CheckOutcome
    {
        return { {}, model::Status::fail, std::move(message), std::move(fix), {}, {} };
    }
    [[nodiscard]] inline auto skip(std::string message) -> model::CheckOutcome
    {
        return { {}, model::Status::skip, std::move(message), {}, {}, {} };
    }
}

#endif
