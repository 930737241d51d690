#include "report/check_json.hpp"

#include <algorithm>
#include <cmath>

namespace envcheck::report
{
    namespace
    {
        using json = nlohmann::ordered_json;

        auto text_or_null(const std::string& value) -> json
        {
            return value.empty() ? json(nullptr) : json(value);
        }

        template<class T>
        auto optional_or_null(const std::optional<T>& value) -> json
        {
            return value ? json(*value) : json(nullptr);
        }

        // A package as one side of a comparison: what identifies it, null for unknown.
        auto package_json(const model::Package& package) -> json
        {
            json direct_url = nullptr;
            if (package.direct_url)
            {
                direct_url =
                  json{ { "url", package.direct_url->url },
                        { "commit_id", text_or_null(package.direct_url->commit_id) },
                        { "archive_sha256", text_or_null(package.direct_url->archive_sha256) },
                        { "editable", package.direct_url->editable } };
            }
            return json{ { "version", package.version },
                         { "build", text_or_null(package.build) },
                         { "build_number", optional_or_null(package.build_number) },
                         { "channel", text_or_null(package.channel) },
                         { "subdir", text_or_null(package.subdir) },
                         { "url", text_or_null(package.url) },
                         { "sha256", text_or_null(package.sha256) },
                         { "md5", text_or_null(package.md5) },
                         { "installer", text_or_null(package.installer) },
                         { "direct_url", std::move(direct_url) },
                         { "source", text_or_null(package.source) } };
        }

        auto location_json(const util::SourceLocation& where) -> json
        {
            if (where.file.empty())
            {
                return nullptr;
            }
            return json{ { "file", where.file },
                         { "line", where.line == 0 ? json(nullptr) : json(where.line) },
                         { "column", where.column == 0 ? json(nullptr) : json(where.column) } };
        }

        auto outcomes_json(const std::vector<model::CheckOutcome>& outcomes) -> json
        {
            json checks = json::array();
            for (const auto& outcome : outcomes)
            {
                json metrics = json::object();
                for (const auto& [name, value] : outcome.metrics)
                {
                    metrics[name] = std::isfinite(value) ? json(value) : json(nullptr);
                }
                checks.push_back(json{ { "id", outcome.id },
                                       { "status", model::to_string(outcome.status) },
                                       { "message", outcome.message },
                                       { "fix", text_or_null(outcome.fix) },
                                       { "metrics", std::move(metrics) } });
            }
            // skip when nothing ran; fail when anything failed; else pass.
            const auto any = [&](auto predicate)
            { return std::any_of(outcomes.begin(), outcomes.end(), predicate); };
            const char* status =
              outcomes.empty() ||
                  !any([](const auto& o) { return o.status != model::Status::skip; })
                ? "skip"
              : any([](const auto& o) { return model::is_failure(o.status); }) ? "fail"
                                                                               : "pass";
            return json{ { "status", status }, { "checks", std::move(checks) } };
        }
    }

    auto check_report_json(const model::EnvironmentCheck& check) -> json
    {
        json packages = json::array();
        for (const auto& finding : check.packages)
        {
            json notes = json::array();
            for (const auto& note : finding.notes)
            {
                notes.push_back(note);
            }
            packages.push_back(json{
              { "name", finding.name },
              { "manager", model::to_string(finding.manager) },
              { "spec", optional_or_null(finding.spec) },
              { "spec_location", location_json(finding.spec_location) },
              { "expected", finding.expected ? package_json(*finding.expected) : json(nullptr) },
              { "installed", finding.installed ? package_json(*finding.installed) : json(nullptr) },
              { "status", model::to_string(finding.status) },
              { "reason", text_or_null(finding.reason) },
              { "notes", std::move(notes) } });
        }
        json files = json::array();
        for (const auto& file : check.files)
        {
            files.push_back(json{ { "package", file.package },
                                  { "path", file.path },
                                  { "status", model::to_string(file.status) },
                                  { "detail", file.detail } });
        }
        json problems = json::array();
        for (const auto& problem : check.problems)
        {
            problems.push_back(
              json{ { "location", location_json(problem.where) }, { "message", problem.message } });
        }
        json notes = json::array();
        for (const auto& note : check.notes)
        {
            notes.push_back(note);
        }
        json summary = json::object();
        for (const auto status :
             { model::PackageStatus::ok, model::PackageStatus::unsatisfied,
               model::PackageStatus::missing, model::PackageStatus::changed,
               model::PackageStatus::extra, model::PackageStatus::broken_dependency,
               model::PackageStatus::conflicting_constraint })
        {
            summary[std::string(model::to_string(status))] = check.count(status);
        }
        summary["files_modified"] = check.count(model::FileStatus::modified);
        summary["files_missing"] = check.count(model::FileStatus::missing);
        summary["files_untracked"] = check.count(model::FileStatus::untracked);
        summary["files_wrong_record_hash"] = check.count(model::FileStatus::wrong_record_hash);
        summary["files_checked"] =
          check.deep ? json(check.deep_summary.files_checked) : json(nullptr);
        summary["bytes_hashed"] =
          check.deep ? json(check.deep_summary.bytes_hashed) : json(nullptr);
        summary["unreadable"] = check.problems.size();
        const json inputs{ { "prefix", check.prefix },
                           { "environment_file", optional_or_null(check.environment_file) },
                           { "lock", optional_or_null(check.lock_file) },
                           { "lock_format", optional_or_null(check.lock_format) },
                           { "deep", check.deep },
                           { "untracked", check.deep_summary.untracked } };
        return json{ { "schema_version", check_schema_version },
                     { "status", check.passed() ? "pass" : "fail" },
                     { "inputs", inputs },
                     { "notes", std::move(notes) },
                     { "summary", std::move(summary) },
                     { "packages", std::move(packages) },
                     { "files", std::move(files) },
                     { "problems", std::move(problems) },
                     { "machine", outcomes_json(check.machine) },
                     { "performance", outcomes_json(check.performance) } };
    }

    auto render_check_json(const model::EnvironmentCheck& check) -> std::string
    {
        return check_report_json(check).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
}
