#include "report/check_text.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace envcheck::report
{
    namespace
    {
        constexpr std::size_t name_width = 24;
        constexpr std::size_t id_width = 30;

        auto pad(const std::string& text, std::size_t width) -> std::string
        {
            return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
        }

        void package_lines(std::string& out, const model::EnvironmentCheck& check,
                           model::PackageStatus status)
        {
            const auto count = check.count(status);
            if (count == 0)
            {
                return;
            }
            out += std::string(model::to_string(status)) + " (" + std::to_string(count) + ")\n";
            for (const auto& finding : check.packages)
            {
                if (finding.status != status)
                {
                    continue;
                }
                std::string line = "  " + pad(std::string(model::to_string(finding.manager)), 6) +
                                   pad(finding.name, name_width) + finding.reason;
                if (finding.spec_location.known())
                {
                    line += "  (" + finding.spec_location.to_string() + ")";
                }
                out += line + "\n";
                for (const auto& note : finding.notes)
                {
                    out += std::string(2 + 6 + name_width, ' ') + "note: " + note + "\n";
                }
            }
        }

        void outcome_lines(std::string& out, const std::string& title,
                           const std::vector<model::CheckOutcome>& outcomes)
        {
            if (outcomes.empty())
            {
                return;
            }
            std::array<std::size_t, 5> counts{};
            std::string details;
            for (const auto& outcome : outcomes)
            {
                ++counts[static_cast<std::size_t>(outcome.status)];
                if (outcome.status == model::Status::pass || outcome.status == model::Status::skip)
                {
                    continue;
                }
                details += "  " + pad(std::string(model::to_string(outcome.status)), 6) +
                           pad(outcome.id, id_width) + outcome.message + "\n";
                if (!outcome.fix.empty())
                {
                    details += std::string(2 + 6 + id_width, ' ') + "fix: " + outcome.fix + "\n";
                }
            }
            std::string tally;
            for (const auto status :
                 { model::Status::pass, model::Status::warn, model::Status::fail,
                   model::Status::error, model::Status::skip })
            {
                if (const auto n = counts[static_cast<std::size_t>(status)]; n > 0)
                {
                    tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " " +
                             std::string(model::to_string(status));
                }
            }
            out += title + ": " + tally + "\n" + details;
        }
    }

    auto render_check_text(const model::EnvironmentCheck& check, const CheckTextOptions& options)
      -> std::string
    {
        std::string out =
          std::string("envcheck check: ") + (check.passed() ? "pass" : "FAIL") + "\n";
        if (!check.prefix.empty()) // empty: env checked against lock, nothing installed
        {
            out += "  prefix: " + check.prefix + "\n";
        }
        if (check.environment_file)
        {
            out += "  environment file: " + *check.environment_file + "\n";
        }
        if (check.lock_file)
        {
            out += "  lock: " + *check.lock_file +
                   (check.lock_format ? " (" + *check.lock_format + ")" : "") + "\n";
        }
        for (const auto& note : check.notes)
        {
            out += "  note: " + note + "\n";
        }
        for (const auto status : { model::PackageStatus::missing, model::PackageStatus::changed,
                                   model::PackageStatus::unsatisfied, model::PackageStatus::extra,
                                   model::PackageStatus::broken_dependency,
                                   model::PackageStatus::conflicting_constraint })
        {
            package_lines(out, check, status);
        }
        if (options.show_ok)
        {
            package_lines(out, check, model::PackageStatus::ok);
        }
        if (check.deep)
        {
            out += "files (--deep): " + std::to_string(check.count(model::FileStatus::modified)) +
                   " modified, " + std::to_string(check.count(model::FileStatus::missing)) +
                   " missing, ";
            if (check.deep_summary.untracked)
            {
                out += std::to_string(check.count(model::FileStatus::untracked)) + " untracked, ";
            }
            if (const auto wrong = check.count(model::FileStatus::wrong_record_hash); wrong > 0)
            {
                out += std::to_string(wrong) + " with a wrong RECORD hash, ";
            }
            out += "of " + std::to_string(check.deep_summary.files_checked) + " checked\n";
            for (const auto& file : check.files)
            {
                out += "  " + pad(file.package, name_width) +
                       pad(std::string(model::to_string(file.status)),
                           file.status == model::FileStatus::wrong_record_hash ? 18 : 9) +
                       file.path + (file.detail.empty() ? "" : " (" + file.detail + ")") + "\n";
            }
        }
        if (!check.problems.empty())
        {
            out += "unreadable (" + std::to_string(check.problems.size()) + ")\n";
            for (const auto& problem : check.problems)
            {
                out += "  " + problem.to_string() + "\n";
            }
        }
        outcome_lines(out, "machine", check.machine);
        outcome_lines(out, "performance", check.performance);
        std::string summary;
        for (const auto status :
             { model::PackageStatus::ok, model::PackageStatus::missing,
               model::PackageStatus::changed, model::PackageStatus::unsatisfied,
               model::PackageStatus::extra, model::PackageStatus::broken_dependency,
               model::PackageStatus::conflicting_constraint })
        {
            if (const auto n = check.count(status); n > 0 || status == model::PackageStatus::ok)
            {
                summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " +
                           std::string(model::to_string(status));
            }
        }
        out += "packages: " + summary + "\n";
        return out;
    }
}
