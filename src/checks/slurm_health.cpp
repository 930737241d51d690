#include "checks/slurm_health.hpp"

#include <algorithm>

#include "util/enum_text.hpp"

namespace envcheck::checks
{
    auto to_string(SlurmHook hook) -> std::string_view
    {
        switch (hook)
        {
            case SlurmHook::health_check:
                return "health-check";
            case SlurmHook::prolog:
                return "prolog";
        }
        return "health-check";
    }

    auto parse_slurm_hook(std::string_view text) -> std::optional<SlurmHook>
    {
        return util::parse_enum(text, { SlurmHook::health_check, SlurmHook::prolog });
    }

    auto slurm_node_name(std::string_view node_option, std::string_view slurmd_nodename,
                         std::string_view hostname) -> std::string
    {
        if (!node_option.empty())
        {
            return std::string(node_option);
        }
        if (!slurmd_nodename.empty())
        {
            return std::string(slurmd_nodename);
        }
        return std::string(hostname.substr(0, hostname.find('.')));
    }

    auto node_level_variables(std::map<std::string, std::string> variables)
      -> std::map<std::string, std::string>
    {
        variables.erase("CUDA_VISIBLE_DEVICES");
        return variables;
    }

    auto needs_node_state(SlurmHook hook, const std::vector<model::CheckRun>& runs) -> bool
    {
        if (hook == SlurmHook::health_check)
        {
            return true;
        }
        return std::any_of(runs.begin(), runs.end(),
                           [](const model::CheckRun& run) { return !run.passed(); });
    }

    auto decide_slurm_hook_action(const std::optional<formats::SlurmNode>& node,
                                  const std::vector<model::CheckRun>& runs) -> SlurmDecision
    {
        if (node)
        {
            return decide_slurm_action(*node, runs);
        }
        if (needs_node_state(SlurmHook::prolog, runs))
        {
            return { SlurmAction::none, {}, "a check failed, but the node's state is unknown" };
        }
        return { SlurmAction::none,
                 {},
                 "all checks pass (a Prolog asks scontrol only when it has a node to drain)" };
    }

    auto slurm_health_budget(std::chrono::milliseconds total) -> SlurmHealthBudget
    {
        // 30% for the driver children (both at once) and 2 x 15% for scontrol: 60% in the worst
        // case, so a slow disk or a second of grace still ends inside --timeout.
        return SlurmHealthBudget{ total * 3 / 10, total * 15 / 100 };
    }
}
