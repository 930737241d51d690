#include "report/slurm_health_report.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace envcheck::report
{
    namespace
    {
        using ordered = nlohmann::ordered_json;

        auto first_failure(const SlurmHealthView& view) -> const model::CheckOutcome*
        {
            for (const auto& run : view.runs)
            {
                const auto found = std::find_if(run.outcomes.begin(), run.outcomes.end(),
                                                [](const model::CheckOutcome& outcome)
                                                { return model::is_failure(outcome.status); });
                if (found != run.outcomes.end())
                {
                    return &*found;
                }
            }
            return nullptr;
        }

        // slurmd logs one line per line: a message never spans two.
        auto one_line(std::string text) -> std::string
        {
            std::replace_if(
              text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
              ' ');
            return text;
        }

        auto scontrol_command(const SlurmHealthView& view) -> std::string
        {
            if (view.action == "drain")
            {
                return "scontrol update NodeName=" + view.node + " State=DRAIN Reason=\"" +
                       view.drain_reason + "\"";
            }
            return "scontrol update NodeName=" + view.node + " State=RESUME";
        }
    }

    auto slurm_health_json(const SlurmHealthView& view) -> nlohmann::ordered_json
    {
        ordered checks = ordered::array();
        for (const auto& run : view.runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                checks.push_back(
                  { { "command", run.command },
                    { "id", outcome.id },
                    { "status", std::string(model::to_string(outcome.status)) },
                    { "message", outcome.message },
                    { "fix", outcome.fix.empty() ? ordered(nullptr) : ordered(outcome.fix) } });
            }
        }
        ordered state = nullptr;
        if (view.state)
        {
            state = { { "states", view.state->states },
                      { "reason", view.state->reason.empty() ? ordered(nullptr)
                                                             : ordered(view.state->reason) } };
        }
        const auto* failure = first_failure(view);
        ordered first = nullptr;
        if (failure != nullptr)
        {
            first = { { "id", failure->id }, { "message", failure->message } };
        }
        return ordered{ { "schema_version", slurm_health_schema_version },
                        { "node", view.node },
                        { "hook", view.hook },
                        { "passed", failure == nullptr },
                        { "first_failure", first },
                        { "node_state", state },
                        { "action", view.action },
                        { "drain_reason",
                          view.action == "drain" ? ordered(view.drain_reason) : ordered(nullptr) },
                        { "explanation", view.explanation },
                        { "dry_run", view.dry_run },
                        { "checks", checks } };
    }

    auto render_slurm_health_json(const SlurmHealthView& view) -> std::string
    {
        return slurm_health_json(view).dump(2, ' ', false, ordered::error_handler_t::replace) +
               "\n";
    }

    auto render_slurm_health_text(const SlurmHealthView& view) -> std::string
    {
        const std::string prefix = "envcheck slurm-health " + view.node + ": ";
        std::size_t total = 0;
        std::size_t failed = 0;
        std::size_t warned = 0;
        std::size_t passed = 0;
        std::vector<std::string> commands;
        for (const auto& run : view.runs)
        {
            commands.push_back(run.command);
            for (const auto& outcome : run.outcomes)
            {
                ++total;
                failed += model::is_failure(outcome.status) ? 1 : 0;
                warned += outcome.status == model::Status::warn ? 1 : 0;
                passed += outcome.status == model::Status::pass ? 1 : 0;
            }
        }
        std::string out = prefix + std::to_string(total) + " checks (" +
                          util::join(commands, ", ") + "): " + std::to_string(failed) +
                          " failed, " + std::to_string(warned) + " warned, " +
                          std::to_string(passed) + " passed, " +
                          std::to_string(total - failed - warned - passed) + " skipped\n";
        for (const auto& run : view.runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                if (model::is_failure(outcome.status))
                {
                    out += prefix + std::string(model::to_string(outcome.status)) + " " +
                           outcome.id + ": " + one_line(outcome.message) + "\n";
                }
            }
        }
        out += prefix + view.action + (view.dry_run ? " (dry run, not done): " : ": ") +
               one_line(view.explanation) + "\n";
        if (view.dry_run && view.action != "none")
        {
            out += prefix + "would run: " + scontrol_command(view) + "\n";
        }
        return out;
    }
}
