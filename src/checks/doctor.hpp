// `envcheck doctor`: why CUDA is (not) available, as a walk along the chain from hardware to
// framework: hardware -> kernel -> device nodes -> driver library -> NVML -> CUDA -> devices ->
// environment -> framework. Each step is a row of one registry {id, description, after, run};
// every step reports pass, fail, warn or skip with what was seen and a concrete fix. A step whose
// earlier link failed is skipped ("skipped: kernel.module-loaded failed"); the first failure in
// walk order is the first broken link.
//
// The ids are stable (fleet tooling routes alerts by them; README "Doctor checks"). Pure: the
// machine arrives as model::MachineFacts (src/system probes it), the environment as packages
// and the framework check's facts.
#ifndef ENVCHECK_CHECKS_DOCTOR_HPP
#define ENVCHECK_CHECKS_DOCTOR_HPP

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_result.hpp"
#include "model/lock.hpp"
#include "model/machine.hpp"
#include "model/package.hpp"

namespace envcheck::checks
{
    // The Python environment doctor is asked about, if any.
    struct DoctorEnvironment
    {
        std::string
          source; // "--prefix /opt/env", "$CONDA_PREFIX (/opt/env)", "--env environment.yml"
        std::vector<model::Package> packages;
        // framework.runtime-check: the frameworks asked in the environment's python, or why not.
        bool framework_check_ran = false;
        std::string framework_check_skipped; // the reason, when it did not run
        std::vector<model::FrameworkFacts> frameworks;
    };

    // The hardware gates' policy (checks/doctor_hardware.hpp): which Xids fail gpu.xid, and
    // how many GPUs gpu.count expects without a lock.
    [[nodiscard]] auto default_fatal_xids() -> std::vector<int>;

    struct HardwareGatePolicy
    {
        std::vector<int> fatal_xids = default_fatal_xids();
        std::optional<int> expected_gpu_count; // gpu.count without a lock
        // Where the expected count came from, for gpu.count's message.
        std::string expected_gpu_count_from = "--expect-gpus";
    };

    struct DoctorInput
    {
        model::MachineFacts machine;
        std::optional<DoctorEnvironment> environment;
        HardwareGatePolicy hardware = {};
        // The GPUs a lock recorded (gpu.count); nullopt without a lock that knows them.
        std::optional<std::vector<model::LockedGpu>> locked_gpus = std::nullopt;
        // Checks not to run (the configuration's doctor.skip): id -> why, reported as skip. The
        // checks after one run as if it had passed.
        std::map<std::string, std::string, std::less<>> skip = {};
    };

    using DoctorRun = model::CheckOutcome (*)(const DoctorInput& input);

    struct DoctorCheck
    {
        std::string_view id;
        std::string_view stage; // "hardware", "kernel", "device nodes", ...
        std::string_view description;
        std::array<std::string_view, 4> after; // links this step needs; empty entries unused
        DoctorRun run;
    };

    // Every check, in walk order.
    [[nodiscard]] auto doctor_checks() -> std::span<const DoctorCheck>;
    [[nodiscard]] auto find_doctor_check(std::string_view id) -> const DoctorCheck*;

    struct DoctorReport
    {
        std::vector<model::CheckOutcome> outcomes;    // walk order; labels["stage"] set
        std::optional<std::string> first_broken_link; // id of the first failed check

        [[nodiscard]] auto passed() const -> bool { return !first_broken_link; }
        [[nodiscard]] auto outcome(std::string_view id) const -> const model::CheckOutcome*;
    };

    [[nodiscard]] auto run_doctor(const DoctorInput& input) -> DoctorReport;
}

#endif
