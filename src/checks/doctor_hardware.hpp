// The hardware-error gates: doctor checks over what NVML and the kernel log say of each GPU's
// health (Xid errors, uncorrectable ECC errors, row remapping, retired pages, the PCIe link,
// hardware clock slowdowns, persistence mode, the GPU count, NVLink links). They are rows of
// the doctor's registry (stage "hardware health", checks/doctor.cpp); `check --lock` and
// `slurm-health` run the same rows (run_hardware_gates). Pure: model::MachineFacts in.
//
// Each gate skips, with the reason, where its fact is not known: NVML absent or not loaded
// (--root), a query the GPU does not support, no lock or --expect-gpus for gpu.count, a kernel
// log that cannot be read.
#ifndef ENVCHECK_CHECKS_DOCTOR_HARDWARE_HPP
#define ENVCHECK_CHECKS_DOCTOR_HARDWARE_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/doctor.hpp"
#include "util/result.hpp"

namespace envcheck::checks
{
    inline constexpr std::string_view hardware_gate_stage = "hardware health";

    // The Xids that fail gpu.xid. The default (README "Hardware gates") is the set NVIDIA's Xid
    // catalog (docs.nvidia.com/deploy/xid-errors) resolves with a GPU reset, a reboot or an RMA,
    // as DCGM's health watches, AzNHC's check_gpu_xid and NVSentinel treat them:
    //   48 double-bit ECC error          62 internal micro-controller halt
    //   63 ECC page retirement / row remapping recorded (takes effect after a reset)
    //   64 ECC page retirement / row remapping failed     74 NVLink error
    //   79 GPU has fallen off the bus    92 high single-bit ECC error rate
    //   94 contained ECC error           95 uncontained ECC error
    //   119 GSP RPC timeout              120 GSP error
    //   140 unrecovered ECC error        154 GPU recovery action changed (reset or reboot)
    // Application errors (13, 31, 43, 45, 68, 109: k8s-device-plugin's skipped list) are not in
    // it: they are noted, not failed.
    // (declared in doctor.hpp) auto default_fatal_xids() -> std::vector<int>;

    // HardwareGatePolicy (doctor.hpp, a field of DoctorInput) is what the gates are judged
    // against; the use cases take it in their requests (--fatal-xids, --expect-gpus, and the
    // configuration file's fatal-xids and gpu-count keys).

    // "48,79, 94" -> {48, 79, 94}; an error names the item that is not a number from 1 to 9999.
    [[nodiscard]] auto parse_xid_list(std::string_view text) -> util::Result<std::vector<int>>;

    [[nodiscard]] auto check_gpu_xid(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_ecc_uncorrectable(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_row_remapping(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_retired_pages(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_pcie_link(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_throttle_hardware(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_persistence_mode(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_count(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_gpu_nvlink(const DoctorInput& input) -> model::CheckOutcome;

    // Passive when busy: why the active probes (smoke, check --lock's performance) leave CUDA
    // device `cuda_ordinal` alone: compute processes hold it. NVML's probe runs before any
    // probe of envcheck's, so every process it saw is another's. The device is matched to its
    // NVML GPU by UUID, else PCI bus id, else (no CUDA facts) by index. nullopt: not busy, or
    // not known to be.
    [[nodiscard]] auto busy_reason(const model::MachineFacts& machine, int cuda_ordinal)
      -> std::optional<std::string>;

    // Whether NVML names compute processes on any GPU. When it names none, busy_reason is
    // nullopt for every CUDA ordinal, whatever NVML GPU each turns out to be: NVML alone can
    // then say that no GPU is to be spared.
    [[nodiscard]] auto any_gpu_busy(const model::NvmlFacts& nvml) -> bool;

    // The rows of stage hardware_gate_stage, run in registry order, ids and labels set.
    [[nodiscard]] auto run_hardware_gates(const DoctorInput& input)
      -> std::vector<model::CheckOutcome>;
}

#endif
