#include "report/doctor_report.hpp"

#include <algorithm>

namespace envcheck::report
{
    namespace
    {
        using ordered = nlohmann::ordered_json;

        auto status_label(model::Status status) -> std::string
        {
            // Failures stand out in a column of mostly "pass" and "skip".
            return model::is_failure(status) ? "FAIL" : std::string(model::to_string(status));
        }

        auto label(const model::CheckOutcome& outcome, const char* key) -> ordered
        {
            const auto found = outcome.labels.find(key);
            return found == outcome.labels.end() ? ordered(nullptr) : ordered(found->second);
        }
    }

    auto first_broken_link(const DoctorView& view) -> const model::CheckOutcome*
    {
        const auto found = std::find_if(view.outcomes.begin(), view.outcomes.end(),
                                        [](const model::CheckOutcome& outcome)
                                        { return model::is_failure(outcome.status); });
        return found == view.outcomes.end() ? nullptr : &*found;
    }

    auto doctor_json(const DoctorView& view) -> nlohmann::ordered_json
    {
        const auto* broken = first_broken_link(view);
        ordered checks = ordered::array();
        for (const auto& outcome : view.outcomes)
        {
            ordered metrics = ordered::object();
            for (const auto& [name, value] : outcome.metrics)
            {
                metrics[name] = value;
            }
            checks.push_back(
              { { "id", outcome.id },
                { "stage", label(outcome, "stage") },
                { "status", std::string(model::to_string(outcome.status)) },
                { "message", outcome.message },
                { "fix", outcome.fix.empty() ? ordered(nullptr) : ordered(outcome.fix) },
                { "metrics", metrics } });
        }
        return ordered{
            { "schema_version", doctor_schema_version },
            { "verdict", broken == nullptr ? "pass" : "fail" },
            { "first_broken_link", broken == nullptr ? ordered(nullptr) : ordered(broken->id) },
            { "environment", view.environment ? ordered(*view.environment) : ordered(nullptr) },
            { "checks", checks }
        };
    }

    auto render_doctor_json(const DoctorView& view) -> std::string
    {
        return doctor_json(view).dump(2, ' ', false, ordered::error_handler_t::replace) + "\n";
    }

    auto render_doctor_text(const DoctorView& view) -> std::string
    {
        std::size_t id_width = 0;
        for (const auto& outcome : view.outcomes)
        {
            id_width = std::max(id_width, outcome.id.size());
        }
        std::string out;
        if (view.environment)
        {
            out += "environment: " + *view.environment + "\n";
        }
        const std::string indent(2 + 4 + 2 + id_width + 2, ' ');
        for (const auto& outcome : view.outcomes)
        {
            const auto status = status_label(outcome.status);
            out += "  " + status + std::string(4 - std::min<std::size_t>(status.size(), 4), ' ') +
                   "  " + outcome.id + std::string(id_width - outcome.id.size() + 2, ' ') +
                   outcome.message + "\n";
            if (!outcome.fix.empty())
            {
                out += indent + "fix: " + outcome.fix + "\n";
            }
        }
        if (const auto* broken = first_broken_link(view))
        {
            out +=
              "verdict: fail; first broken link: " + broken->id + " (" + broken->message + ")\n";
        }
        else
        {
            const bool warned = std::any_of(view.outcomes.begin(), view.outcomes.end(),
                                            [](const model::CheckOutcome& o)
                                            { return o.status == model::Status::warn; });
            out += std::string("verdict: pass; CUDA is usable") +
                   (view.environment ? " by this environment" : "") +
                   (warned ? " (with warnings)" : "") + "\n";
        }
        return out;
    }
}
