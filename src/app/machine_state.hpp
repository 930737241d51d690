// The machine as the use cases need it: probed (probe, doctor, smoke, slurm-health), as a lock
// records it (lock, check), and measured (the performance baselines of lock and check).
#ifndef ENVCHECK_APP_MACHINE_STATE_HPP
#define ENVCHECK_APP_MACHINE_STATE_HPP

#include <optional>
#include <string>
#include <vector>

#include "app/ports.hpp"
#include "model/lock.hpp"
#include "model/machine.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    // Probes `root` ("/": this machine, with NVML and the CUDA driver; else files only). Fails
    // with ErrorKind::usage when root is not a directory.
    [[nodiscard]] auto probe_machine(const std::string& root, double driver_timeout_seconds,
                                     Ports& ports,
                                     std::optional<Environment> environment = std::nullopt)
      -> util::Result<model::MachineFacts>;

    struct MachineState
    {
        model::LockedMachine machine;
        std::optional<model::MachineFacts> facts; // when the driver and GPUs were probed
    };

    // The machine as a lock records it. `probe_gpu` false (--no-gpu) reads files only: the
    // driver and the GPUs stay unknown.
    [[nodiscard]] auto current_machine(bool probe_gpu, const std::optional<std::string>& python,
                                       Ports& ports) -> MachineState;

    // A quick smoke run on every GPU, for the baselines a lock records and check compares.
    [[nodiscard]] auto measure_quick_smoke(Ports& ports) -> model::SmokeReport;

    // Passive when busy: `request` run on the devices no other process computes on
    // (checks::busy_reason over `facts`, probed before); a busy device gets each of the
    // request's probes (all of the registry's when it names none) as a skip with the reason.
    // Nothing busy: one run of `request`, as without it.
    [[nodiscard]] auto run_smoke_sparing_busy(const SmokeRunRequest& request,
                                              const model::MachineFacts& facts, Ports& ports)
      -> model::SmokeReport;

    // How many independent quick runs a lock's baselines are made from: enough to see the
    // spread between runs, which the repeats within one run do not show.
    inline constexpr int baseline_runs = 3;

    // One baseline per GPU from baseline_runs quick smoke runs (model::make_baseline); nullopt
    // (with the reason in `why_not`) when no GPU could be probed. With `spare_busy` (the facts
    // probed before), a GPU that other processes compute on gets no baseline, and `why_not`
    // names it and the processes.
    [[nodiscard]] auto record_performance(const model::MachineFacts* spare_busy, Ports& ports,
                                          std::string& why_not)
      -> std::optional<std::vector<model::PerfBaseline>>;
}

#endif
