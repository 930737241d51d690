// `envcheck slurm-health` as text and as JSON (schemas/slurm-health.schema.json).
//
// Text is for slurmd's log: one line per fact or action, each starting "envcheck slurm-health
// <node>:" so that it can be grepped out of a shared log:
//   envcheck slurm-health gpu07: 22 checks: 1 failed, 0 warned, 3 passed, 18 skipped
//   envcheck slurm-health gpu07: fail pci.nvidia-present: no NVIDIA device on the PCI bus
//   envcheck slurm-health gpu07: drain: check failed: draining with reason 'envcheck: ...'
// JSON:
//   {"schema_version": 1, "node", "hook": "health-check|prolog", "passed", "first_failure",
//    "node_state": {"states": [...], "reason"}|null, "action": "none|drain|resume",
//    "drain_reason", "explanation", "dry_run", "checks": [{"command", "id", "status",
//    "message", "fix"}]}
#ifndef ENVCHECK_REPORT_SLURM_HEALTH_REPORT_HPP
#define ENVCHECK_REPORT_SLURM_HEALTH_REPORT_HPP

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/check_result.hpp"

namespace envcheck::report
{
    inline constexpr int slurm_health_schema_version = 1;

    struct SlurmNodeView
    {
        std::vector<std::string> states; // {"IDLE", "DRAIN"}
        std::string reason;              // empty when the node has none
    };

    struct SlurmHealthView
    {
        std::string node;
        std::string hook = "health-check";  // checks::to_string(SlurmHook)
        std::vector<model::CheckRun> runs;  // doctor, then check with --lock
        std::optional<SlurmNodeView> state; // nullopt when scontrol was not asked
        std::string action = "none";        // checks::to_string(SlurmAction)
        std::string drain_reason;           // for "drain"
        std::string explanation;            // why this action
        bool dry_run = false;               // the action was printed, not done
    };

    [[nodiscard]] auto slurm_health_json(const SlurmHealthView& view) -> nlohmann::ordered_json;
    [[nodiscard]] auto render_slurm_health_json(const SlurmHealthView& view) -> std::string;
    [[nodiscard]] auto render_slurm_health_text(const SlurmHealthView& view) -> std::string;
}

#endif
