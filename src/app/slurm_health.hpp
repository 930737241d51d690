// envcheck slurm-health: the doctor's machine checks (and, with a lock, the installed
// environment against it) as a Slurm HealthCheckProgram or Prolog. A failing check drains the
// node with the reason "envcheck: <check>: <message>"; a node envcheck drained is resumed once its
// checks pass; drains set by anyone else are left alone (checks/slurm_policy.hpp).
#ifndef ENVCHECK_APP_SLURM_HEALTH_HPP
#define ENVCHECK_APP_SLURM_HEALTH_HPP

#include <string>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "checks/doctor.hpp"
#include "report/slurm_health_report.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct SlurmHealthRequest
    {
        std::string node;       // empty: $SLURMD_NODENAME, else the short host name
        std::string root = "/"; // another root: files only
        std::string lock;       // also check the installed environment against this lock
        PrefixSelection selection;
        std::string platform; // of a multi-platform lock; empty: this machine's
        bool prolog = false;  // run as Prolog: ask scontrol only when a check failed
        bool dry_run = false; // decide, but change nothing
        std::string scontrol = "scontrol";
        double timeout_seconds = 40.0;       // the whole run, driver probe and scontrol included
        checks::HardwareGatePolicy hardware; // the doctor's gpu.* checks
    };

    struct SlurmHealthOutcome
    {
        report::SlurmHealthView view;
        FleetView fleet; // doctor, then check with a lock

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    // Fails for bad usage (no node name, an unreadable lock or prefix) and when scontrol cannot
    // be run (ErrorKind::io): neither is a sick node.
    [[nodiscard]] auto run_slurm_health(const SlurmHealthRequest& request, Ports& ports)
      -> util::Result<SlurmHealthOutcome>;
}

#endif
