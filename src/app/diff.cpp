#include "app/diff.hpp"

#include <utility>

#include "app/environment_file.hpp"
#include "app/marker_python.hpp"
#include "checks/diff.hpp"
#include "formats/lock.hpp"

namespace envcheck::app
{
    namespace
    {
        // The package set of an environment file that loads completely (its first loader error
        // otherwise), or of a lock in any format envcheck reads.
        struct LoadedSet
        {
            checks::PackageSet set;
            bool is_lock = false;
        };

        auto load(const std::string& path, const DiffRequest& request, MarkerPython& python,
                  Ports& ports) -> util::Result<LoadedSet>
        {
            auto text = ports.files.read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            if (formats::detect_lock_format(*text, path))
            {
                const std::string platform =
                  request.platform.empty() ? ports.machine.platform() : request.platform;
                formats::LockSelection selection{ platform, request.environment,
                                                  request.categories };
                python.apply(*text, path, selection);
                auto lock = formats::parse_any_lock(*text, path, selection);
                if (!lock)
                {
                    return util::unexpected(lock.error());
                }
                return LoadedSet{ checks::package_set_from(*lock), true };
            }
            auto file = parse_environment_text(*text, path);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            return LoadedSet{ checks::package_set_from(*file), false };
        }

        auto to_change(checks::ChangeKind kind) -> report::DiffChange
        {
            switch (kind)
            {
                case checks::ChangeKind::added:
                    return report::DiffChange::added;
                case checks::ChangeKind::removed:
                    return report::DiffChange::removed;
                case checks::ChangeKind::changed:
                    break;
            }
            return report::DiffChange::changed;
        }

        auto to_report(const checks::PackageSetDiff& diff, const DiffRequest& request)
          -> report::DiffReport
        {
            report::DiffReport out;
            out.old_path = request.old_path;
            out.new_path = request.new_path;
            out.old_channels = diff.old_channels;
            out.new_channels = diff.new_channels;
            out.channels_added = diff.channels.added;
            out.channels_removed = diff.channels.removed;
            out.channels_reordered = diff.channels.reordered;
            for (const auto& change : diff.packages)
            {
                report::DiffEntry entry;
                entry.change = to_change(change.kind);
                entry.name = change.entry().name;
                entry.manager = change.entry().manager;
                if (change.old_entry)
                {
                    entry.old_spec = change.old_entry->text;
                }
                if (change.new_entry)
                {
                    entry.new_spec = change.new_entry->text;
                }
                for (const auto& risk : change.risks)
                {
                    entry.risks.push_back(
                      report::DiffRisk{ std::string(checks::to_string(risk.kind)), risk.message });
                }
                out.entries.push_back(std::move(entry));
            }
            return out;
        }
    }

    auto DiffOutcome::verdict() const -> Verdict
    {
        return report.equal() ? Verdict::clean : Verdict::findings;
    }

    auto run_diff(const DiffRequest& request, Ports& ports) -> util::Result<DiffOutcome>
    {
        MarkerPython python(request.python, ports.frameworks);
        const auto older = load(request.old_path, request, python, ports);
        if (!older)
        {
            return util::unexpected(older.error());
        }
        const auto newer = load(request.new_path, request, python, ports);
        if (!newer)
        {
            return util::unexpected(newer.error());
        }
        if (older->is_lock != newer->is_lock)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "cannot compare a lock with an environment file: " +
                (older->is_lock ? request.old_path : request.new_path) + " is a lock",
              {},
              "diff two environment files, or two locks (envcheck check --lock compares a lock "
              "with an installed environment)"));
        }
        const auto diff = checks::diff_package_sets(older->set, newer->set);
        return DiffOutcome{ to_report(diff, request) };
    }
}
