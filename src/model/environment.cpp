#include "model/environment.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace envcheck::model
{
    namespace
    {
        constexpr std::array<std::pair<PackageStatus, std::string_view>, 7> package_status_names{ {
          { PackageStatus::ok, "ok" },
          { PackageStatus::broken_dependency, "broken-dependency" },
          { PackageStatus::conflicting_constraint, "conflicting-constraint" },
          { PackageStatus::unsatisfied, "unsatisfied" },
          { PackageStatus::missing, "missing" },
          { PackageStatus::changed, "changed" },
          { PackageStatus::extra, "extra" },
        } };
    }

    auto to_string(PrefixKind kind) -> std::string_view
    {
        return kind == PrefixKind::conda ? "conda" : "venv";
    }

    auto parse_prefix_kind(std::string_view text) -> std::optional<PrefixKind>
    {
        if (text == "conda")
        {
            return PrefixKind::conda;
        }
        if (text == "venv")
        {
            return PrefixKind::venv;
        }
        return std::nullopt;
    }

    auto to_string(PathType type) -> std::string_view
    {
        switch (type)
        {
            case PathType::hardlink:
                return "hardlink";
            case PathType::softlink:
                return "softlink";
            case PathType::directory:
                return "directory";
            case PathType::pyc_file:
                return "pyc_file";
            case PathType::other:
                return "other";
        }
        return "other";
    }

    auto parse_path_type(std::string_view text) -> PathType
    {
        if (text == "hardlink" || text.empty())
        {
            return PathType::hardlink; // CEP 32: hardlink is the default
        }
        if (text == "softlink")
        {
            return PathType::softlink;
        }
        if (text == "directory")
        {
            return PathType::directory;
        }
        if (text == "pyc_file")
        {
            return PathType::pyc_file;
        }
        return PathType::other;
    }

    auto to_string(PackageStatus status) -> std::string_view
    {
        for (const auto& [value, name] : package_status_names)
        {
            if (value == status)
            {
                return name;
            }
        }
        return "ok";
    }

    auto parse_package_status(std::string_view text) -> std::optional<PackageStatus>
    {
        for (const auto& [value, name] : package_status_names)
        {
            if (name == text)
            {
                return value;
            }
        }
        return std::nullopt;
    }

    auto to_string(FileStatus status) -> std::string_view
    {
        switch (status)
        {
            case FileStatus::modified:
                return "modified";
            case FileStatus::missing:
                return "missing";
            case FileStatus::untracked:
                return "untracked";
            case FileStatus::wrong_record_hash:
                return "wrong-record-hash";
        }
        return "modified";
    }

    auto is_failure(FileStatus status) -> bool
    {
        return status != FileStatus::wrong_record_hash;
    }

    auto EnvironmentCheck::passed() const -> bool
    {
        const auto failed = [](const CheckOutcome& outcome) { return is_failure(outcome.status); };
        return count(PackageStatus::ok) == packages.size() &&
               std::none_of(files.begin(), files.end(),
                            [](const FileFinding& file) { return is_failure(file.status); }) &&
               problems.empty() && std::none_of(machine.begin(), machine.end(), failed) &&
               std::none_of(performance.begin(), performance.end(), failed);
    }

    auto EnvironmentCheck::count(PackageStatus status) const -> std::size_t
    {
        return static_cast<std::size_t>(std::count_if(packages.begin(), packages.end(),
                                                      [&](const PackageFinding& finding)
                                                      { return finding.status == status; }));
    }

    auto EnvironmentCheck::count(FileStatus status) const -> std::size_t
    {
        return static_cast<std::size_t>(std::count_if(files.begin(), files.end(),
                                                      [&](const FileFinding& finding)
                                                      { return finding.status == status; }));
    }

    auto to_check_run(const EnvironmentCheck& check) -> CheckRun
    {
        CheckRun run;
        run.command = "check";
        for (const auto& finding : check.packages)
        {
            CheckOutcome outcome;
            outcome.id = "package." + std::string(to_string(finding.manager)) + "." + finding.name;
            outcome.status = finding.status == PackageStatus::ok ? Status::pass : Status::fail;
            outcome.message = std::string(to_string(finding.status));
            if (!finding.reason.empty())
            {
                outcome.message += ": " + finding.reason;
            }
            outcome.labels = { { "status", std::string(to_string(finding.status)) },
                               { "manager", std::string(to_string(finding.manager)) } };
            run.outcomes.push_back(std::move(outcome));
        }
        for (const auto& file : check.files)
        {
            const bool fails = is_failure(file.status);
            run.outcomes.push_back(
              { "file." + file.package,
                fails ? Status::fail : Status::warn,
                std::string(to_string(file.status)) + " " + file.path +
                  (file.detail.empty() ? "" : " (" + file.detail + ")"),
                file.status == FileStatus::untracked
                  ? "remove the file, or reinstall the package"
                  : (fails ? "reinstall the package" : "report the wrong RECORD to the package"),
                {},
                { { "path", file.path }, { "status", std::string(to_string(file.status)) } } });
        }
        for (const auto& problem : check.problems)
        {
            run.outcomes.push_back(
              { "record", Status::error, problem.to_string(), problem.hint, {}, {} });
        }
        run.outcomes.insert(run.outcomes.end(), check.machine.begin(), check.machine.end());
        run.outcomes.insert(run.outcomes.end(), check.performance.begin(), check.performance.end());
        return run;
    }
}
