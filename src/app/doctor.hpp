// envcheck doctor: walks the chain from hardware to framework and names the first broken link
// (checks/doctor.hpp). The machine comes from the machine port; the environment from --prefix,
// --lock, --env, $VIRTUAL_ENV or $CONDA_PREFIX; framework.runtime-check runs the environment's
// own python once the machine's links up to the CUDA devices hold.
#ifndef ENVCHECK_APP_DOCTOR_HPP
#define ENVCHECK_APP_DOCTOR_HPP

#include <string>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "checks/doctor.hpp"
#include "config/config.hpp"
#include "report/doctor_report.hpp"
#include "report/registry_list.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct DoctorRequest
    {
        std::string root = "/"; // another root: files only, nothing is loaded or run
        std::string prefix;     // at most one of prefix, env_file and lock_file
        std::string env_file;
        std::string lock_file;
        std::string platform = "linux-64"; // of a multi-platform lock
        double timeout_seconds = 20.0;     // NVML and cuInit, each
        double framework_timeout_seconds = 180.0;
        bool no_framework_check = false;
        checks::HardwareGatePolicy hardware; // the gpu.* checks: fatal Xids, expected GPUs
        std::vector<config::Setting<std::string>> skip; // the configuration's doctor.skip
    };

    struct DoctorOutcome
    {
        checks::DoctorReport result;
        report::DoctorView view;
        FleetView fleet;             // one run, "doctor"
        model::MachineFacts machine; // what the walk read (report shows it)

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_doctor(const DoctorRequest& request, Ports& ports)
      -> util::Result<DoctorOutcome>;

    // doctor --list: the checks in walk order.
    [[nodiscard]] auto doctor_check_list() -> std::vector<report::RegistryRow>;
}

#endif
