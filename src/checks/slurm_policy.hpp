// What envcheck does to a Slurm node after its checks: drain it with a reason that starts with
// "envcheck:", resume only nodes it drained itself, and leave operators' drains alone (the
// NHC convention: gpu-anchors.md §1.7).
#ifndef ENVCHECK_CHECKS_SLURM_POLICY_HPP
#define ENVCHECK_CHECKS_SLURM_POLICY_HPP

#include <string>
#include <string_view>

#include "formats/slurm_node.hpp"
#include "model/check_result.hpp"

namespace envcheck::checks
{
    inline constexpr std::string_view slurm_reason_prefix = "envcheck:";

    enum class SlurmAction
    {
        none,
        drain,  // scontrol update NodeName=N State=DRAIN Reason="..."
        resume, // scontrol update NodeName=N State=RESUME
    };

    [[nodiscard]] auto to_string(SlurmAction action) -> std::string_view;

    struct SlurmDecision
    {
        SlurmAction action = SlurmAction::none;
        std::string reason;      // for drain
        std::string explanation; // one line for the log
    };

    // "envcheck: <check id>: <message>", one line, at most `max_length` characters.
    [[nodiscard]] auto slurm_drain_reason(const model::CheckOutcome& failure,
                                          std::size_t max_length = 200) -> std::string;

    // `runs` are the checks just run on the node (all must pass for the node to be healthy).
    [[nodiscard]] auto decide_slurm_action(const formats::SlurmNode& node,
                                           const std::vector<model::CheckRun>& runs)
      -> SlurmDecision;
}

#endif
