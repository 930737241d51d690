// The machine as the use cases need it: probed (probe, doctor, smoke, slurm-health), as a lock
// records it (lock, check), and measured (the performance baselines of lock and check).
#ifndef ENVCHECK_APP_MACHINE_STATE_HPP
#define ENVCHECK_APP_MACHINE_STATE_HPP

#include <map>
#include <memory>
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
    // `nvml_heard`: as MachineProbeRequest's.
    [[nodiscard]] auto probe_machine(const std::string& root, double driver_timeout_seconds,
                                     Ports& ports,
                                     std::optional<Environment> environment = std::nullopt,
                                     NvmlHeard nvml_heard = {})
      -> util::Result<model::MachineFacts>;

    struct MachineState
    {
        model::LockedMachine machine;
        std::optional<model::MachineFacts> facts; // when the driver and GPUs were probed
    };

    // The machine as a lock records it. `probe_gpu` false (--no-gpu) reads files only: the
    // driver and the GPUs stay unknown. `nvml_heard`: as MachineProbeRequest's.
    [[nodiscard]] auto current_machine(bool probe_gpu, const std::optional<std::string>& python,
                                       Ports& ports, NvmlHeard nvml_heard = {}) -> MachineState;

    // The quick smoke run that a lock's baselines and "performs as locked" measure: every GPU.
    [[nodiscard]] auto quick_on_every_gpu() -> SmokeRunRequest;

    // Passive when busy, for every active command (smoke, lock, check --lock): the devices of
    // `request` that other processes compute on (checks::busy_reason over `facts`), with the
    // reason. None without facts or `even_if_busy`. A smoke run spares them: each of its probes
    // is a skip with the reason, and no context is made on them.
    [[nodiscard]] auto gpus_to_spare(const SmokeRunRequest& request,
                                     const std::optional<model::MachineFacts>& facts,
                                     bool even_if_busy) -> std::map<int, std::string>;

    // For a machine probe's nvml_heard: the go-ahead of `smoke` as soon as NVML has answered,
    // when it can be given then, that is when no GPU has compute processes of others (the
    // common case before a training job): the probes start while the CUDA driver is still
    // being asked (cuInit, 0.1 to 0.2 s on an H200). Otherwise the caller gives it once the machine
    // is probed: gpus_to_spare needs the CUDA driver's devices to name the busy ones.
    [[nodiscard]] auto early_go_ahead(PendingSmoke& smoke) -> NvmlHeard;

    // How many independent quick runs a lock's baselines are made from: enough to see the
    // spread between runs, which the repeats within one run do not show. Six, as issue 16's
    // measure of a stable metric: on a host whose PCIe link other tenants share (an H100 VM),
    // three back-to-back runs put the pinned copies' spread under 1% while one check in two
    // then measured them 10 to 40% lower; six runs see that noise and record them as
    // informational, while a dedicated H200 keeps them within 0.3%.
    inline constexpr int baseline_runs = 6;

    // One baseline per GPU from baseline_runs quick smoke runs (model::make_baseline); nullopt
    // (with the reason in `why_not`) when no GPU could be probed. A GPU in `spared`
    // (gpus_to_spare) gets no baseline, and `why_not` names it and the processes.
    [[nodiscard]] auto record_performance(const std::map<int, std::string>& spared, Ports& ports,
                                          std::string& why_not)
      -> std::optional<std::vector<model::PerfBaseline>>;
}

#endif
