// `envcheck diff OLD NEW`: the semantic difference between two environment files, or two locks
// (README "envcheck diff"). Exit 0 when they are equal, 1 when they differ (like diff(1)), 2 on
// errors.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "checks/diff.hpp"
#include "cli/cmd_check.hpp"
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/output.hpp"
#include "formats/environment_yaml.hpp"
#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "prefix/locate.hpp"
#include "report/diff_report.hpp"

namespace envcheck::cli
{
    struct DiffOptions
    {
        std::string old_path;
        std::string new_path;
        report::DiffFormat format = report::DiffFormat::text;
        std::string output;
        std::string platform;                // locks: the platform of a multi-platform lock
        std::string environment = "default"; // pixi.lock: the environment
    };

    namespace
    {
        // The package set of an environment file that loads completely (its first loader error
        // otherwise), or of a lock in any format envcheck reads (envcheck, conda-lock, pixi,
        // @EXPLICIT; multi-platform locks for this machine's platform).
        struct LoadedSet
        {
            checks::PackageSet set;
            bool is_lock = false;
        };

        auto load(const std::string& path, const DiffOptions& options) -> util::Result<LoadedSet>
        {
            auto text = read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            if (formats::detect_lock_format(*text, path))
            {
                const std::string platform =
                  options.platform.empty() ? prefix::current_platform() : options.platform;
                auto lock = formats::parse_any_lock(*text, path, { platform, options.environment });
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

        auto to_report(const checks::PackageSetDiff& diff, const DiffOptions& options)
          -> report::DiffReport
        {
            report::DiffReport out;
            out.old_path = options.old_path;
            out.new_path = options.new_path;
            out.old_channels = diff.old_channels;
            out.new_channels = diff.new_channels;
            out.channels_added = diff.channels.added;
            out.channels_removed = diff.channels.removed;
            out.channels_reordered = diff.channels.reordered;
            for (const auto& change : diff.packages)
            {
                report::DiffEntry entry;
                entry.change = change.kind == checks::ChangeKind::added ? report::DiffChange::added
                               : change.kind == checks::ChangeKind::removed
                                 ? report::DiffChange::removed
                                 : report::DiffChange::changed;
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

    auto run_diff(const DiffOptions& options) -> int
    {
        const auto older = load(options.old_path, options);
        if (!older)
        {
            return report_error(older.error());
        }
        const auto newer = load(options.new_path, options);
        if (!newer)
        {
            return report_error(newer.error());
        }
        if (older->is_lock != newer->is_lock)
        {
            return report_error(util::make_error(
              util::ErrorKind::usage,
              "cannot compare a lock with an environment file: " +
                (older->is_lock ? options.old_path : options.new_path) + " is a lock",
              {},
              "diff two environment files, or two locks (envcheck check --lock compares a lock "
              "with an installed environment)"));
        }
        const auto diff = checks::diff_package_sets(older->set, newer->set);
        const report::DiffReport diff_report = to_report(diff, options);
        const int written = emit(report::render_diff(diff_report, options.format), options.output);
        if (written != code(Exit::ok))
        {
            return written;
        }
        return diff_report.equal() ? code(Exit::ok) : code(Exit::findings);
    }

    auto setup_diff(CLI::App& app) -> Run
    {
        auto options = std::make_shared<DiffOptions>();
        add_input_options(app);
        app
          .add_option("old", options->old_path,
                      "The old environment file or lock ('-' and <(git show ...) work)")
          ->required();
        app.add_option("new", options->new_path, "The new environment file or lock")->required();
        app
          .add_option_function<std::string>(
            "--format",
            [options](const std::string& name) {
                options->format =
                  report::parse_diff_format(name).value_or(report::DiffFormat::text);
            },
            "Output: text (default), markdown (for a pull-request comment) or json")
          ->check(CLI::IsMember({ "text", "markdown", "json" }));
        app.add_option("-o,--output", options->output,
                       "Write the report to this file instead of standard output");
        app.add_option("--platform", options->platform,
                       "Locks: the platform of a multi-platform lock (default: this machine's)");
        app.add_option("--environment", options->environment,
                       "pixi.lock: the environment to compare (default: default)");
        return [options] { return run_diff(*options); };
    }
}
