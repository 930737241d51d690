// envcheck check: does the installed environment match its environment file and its lock?
//
// Inputs: `env` (every requested MatchSpec and pip requirement must be satisfied) and/or `lock`
// (envcheck's lock, conda-lock.yml, pixi.lock or @EXPLICIT: identity per package, then the
// machine and performance parts). With neither, ./environment.yml and the lock beside it
// (environment.lock.json). The environment: --prefix, -n NAME, $VIRTUAL_ENV or $CONDA_PREFIX;
// with none of them (or no_prefix), env and lock are checked against each other: every spec
// against the locked packages of each platform of the lock (app/spec_against_lock.hpp).
//
// Every input is read before anything is compared: an input that cannot be read or parsed is an
// error (exit 2); drift of a package, a file (deep), a record, the machine or the performance is
// a finding (exit 1).
#ifndef ENVCHECK_APP_CHECK_HPP
#define ENVCHECK_APP_CHECK_HPP

#include <string>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "checks/doctor.hpp"
#include "config/config.hpp"
#include "model/environment.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct CheckRequest
    {
        PrefixSelection selection;
        std::string env;                     // the environment file
        std::string lock;                    // the lock, in any format envcheck reads
        std::string environment = "default"; // pixi.lock: the environment
        std::vector<std::string> categories; // conda-lock: the categories to read; empty: all
        std::string platform;                // of a multi-platform lock; empty: this machine's
        // Without an installed environment: the python a uv.lock or pylock.toml is read for
        // (app/marker_python.hpp); empty: the python3 on PATH.
        std::string python;
        bool deep = false;      // also verify every installed file
        bool untracked = false; // deep: also files no RECORD lists (pip)
        bool no_gpu = false;    // neither probe the driver and GPUs nor measure
        // Check env against lock alone, without an installed environment (also what happens
        // when both are given and no environment is selected or active).
        bool no_prefix = false;
        unsigned jobs = 0; // threads for reading and hashing; 0: one per usable CPU
        std::vector<std::string> perf_tolerances; // "15%", "bandwidth.h2d_pinned_gbps=5%"
        // The hardware gates (gpu.*), run with the machine part when the GPU is probed.
        checks::HardwareGatePolicy hardware;
        // Measure the performance on GPUs that other processes compute on too; else they are
        // skipped with the reason (passive when busy).
        bool even_if_busy = false;
        // The run the fleet formats read (junit, prometheus, npd, github...): one outcome per
        // package. The text, json and html reports do without it (a tenth of the serial work of
        // checking 10,000 records; issue 19).
        bool fleet_runs = true;
        // The configuration's [check]: per-metric tolerances (perf_tolerances override them;
        // a metric the lock has no baseline for is unused). Its gpu-count and fatal-xids reach
        // the checks through `hardware` (cli::hardware_gate_policy).
        config::CheckConfig config;
    };

    struct CheckOutcome
    {
        model::EnvironmentCheck check;
        FleetView fleet; // one run, "check" (fleet_runs); the node's features when probed

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_check(const CheckRequest& request, Ports& ports)
      -> util::Result<CheckOutcome>;
}

#endif
