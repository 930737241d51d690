// How `envcheck slurm-health` runs inside Slurm (gpu-anchors.md §1.7): as HealthCheckProgram,
// whose exit status slurmd ignores (envcheck drains and resumes the node itself, through
// checks/slurm_policy.hpp), or as Prolog, whose non-zero exit makes Slurm drain the node and
// requeue the job (envcheck sets its own reason first). Pure: names, the environment and the
// clock arrive as values.
#ifndef ENVCHECK_CHECKS_SLURM_HEALTH_HPP
#define ENVCHECK_CHECKS_SLURM_HEALTH_HPP

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/slurm_policy.hpp"
#include "formats/slurm_node.hpp"
#include "model/check_result.hpp"

namespace envcheck::checks
{
    enum class SlurmHook
    {
        health_check, // HealthCheckProgram
        prolog,       // Prolog
    };

    [[nodiscard]] auto to_string(SlurmHook hook) -> std::string_view;
    [[nodiscard]] auto parse_slurm_hook(std::string_view text) -> std::optional<SlurmHook>;

    // The node to act on: --node, else $SLURMD_NODENAME (set by slurmd for its scripts), else
    // the host name up to its first dot, as Slurm's NodeName defaults to `hostname -s`.
    [[nodiscard]] auto slurm_node_name(std::string_view node_option,
                                       std::string_view slurmd_nodename, std::string_view hostname)
      -> std::string;

    // The environment a node's checks see: without the variables that describe the calling
    // process rather than the node. A Prolog runs with the job's CUDA_VISIBLE_DEVICES ('' or
    // NoDevFiles in a job without GPUs), which says nothing of the node's GPUs.
    [[nodiscard]] auto node_level_variables(std::map<std::string, std::string> variables)
      -> std::map<std::string, std::string>;

    // Whether the node's state must be asked for. A health check always asks: it may have to
    // resume a node. A Prolog asks only when a check failed: Slurm asks prologs not to call
    // Slurm commands, and a node that is starting a job has nothing to resume.
    [[nodiscard]] auto needs_node_state(SlurmHook hook, const std::vector<model::CheckRun>& runs)
      -> bool;

    // decide_slurm_action on the node's state when it was asked for; nothing to do when it
    // was not (a Prolog whose checks passed).
    [[nodiscard]] auto decide_slurm_hook_action(const std::optional<formats::SlurmNode>& node,
                                                const std::vector<model::CheckRun>& runs)
      -> SlurmDecision;

    // How one run spends its --timeout. The driver probe runs its two children (NVML, cuInit) at
    // the same time under `driver_probe` (plus a second's grace to reap a killed child); scontrol
    // runs at most twice (show, then update), each under `scontrol_call`. Together they take at
    // most 60% of the total, which leaves the rest for reading /sys, /proc, the lock and the
    // prefix.
    struct SlurmHealthBudget
    {
        std::chrono::milliseconds driver_probe{ 0 };
        std::chrono::milliseconds scontrol_call{ 0 };
    };

    [[nodiscard]] auto slurm_health_budget(std::chrono::milliseconds total) -> SlurmHealthBudget;
}

#endif
