#include "checks/slurm_policy.hpp"

#include "util/strings.hpp"

namespace envcheck::checks
{
    auto to_string(SlurmAction action) -> std::string_view
    {
        switch (action)
        {
            case SlurmAction::none:
                return "none";
            case SlurmAction::drain:
                return "drain";
            case SlurmAction::resume:
                return "resume";
        }
        return "none";
    }

    auto slurm_drain_reason(const model::CheckOutcome& failure, std::size_t max_length)
      -> std::string
    {
        std::string reason =
          std::string(slurm_reason_prefix) + " " + failure.id + ": " + failure.message;
        for (char& c : reason)
        {
            if (c == '\n' || c == '\r' || c == '\t' || c == '"')
            {
                c = c == '"' ? '\'' : ' ';
            }
        }
        if (reason.size() > max_length)
        {
            reason.resize(max_length - 3);
            reason += "...";
        }
        return reason;
    }

    auto decide_slurm_action(const formats::SlurmNode& node,
                             const std::vector<model::CheckRun>& runs) -> SlurmDecision
    {
        const model::CheckOutcome* first_failure = nullptr;
        for (const auto& run : runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                if (model::is_failure(outcome.status))
                {
                    first_failure = &outcome;
                    break;
                }
            }
            if (first_failure != nullptr)
            {
                break;
            }
        }
        const bool drained_by_us =
          node.is_drained() && node.reason.rfind(slurm_reason_prefix, 0) == 0;
        const bool held_by_someone_else =
          (node.is_drained() || node.has_state("DOWN") || node.has_state("FAIL")) &&
          !drained_by_us && !node.reason.empty();

        if (first_failure != nullptr)
        {
            const std::string reason = slurm_drain_reason(*first_failure);
            if (held_by_someone_else)
            {
                return { SlurmAction::none,
                         {},
                         "check failed (" + first_failure->id +
                           ") but the node is already held with reason '" + node.reason +
                           "', which is not envcheck's: left alone" };
            }
            if (drained_by_us && node.reason == reason)
            {
                return { SlurmAction::none, {}, "already drained by envcheck for the same reason" };
            }
            return { SlurmAction::drain, reason,
                     "check failed: draining with reason '" + reason + "'" };
        }
        if (drained_by_us)
        {
            return { SlurmAction::resume,
                     {},
                     "all checks pass: resuming a node envcheck drained ('" + node.reason + "')" };
        }
        if (node.is_drained())
        {
            return { SlurmAction::none,
                     {},
                     "all checks pass; the node is drained by someone else ('" + node.reason +
                       "'): left alone" };
        }
        return { SlurmAction::none, {}, "all checks pass" };
    }
}
