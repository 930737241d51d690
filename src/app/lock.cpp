#include "app/lock.hpp"

#include <optional>
#include <string>
#include <utility>

#include "app/environment_file.hpp"
#include "app/machine_state.hpp"
#include "app/version.hpp"
#include "checks/env_check.hpp"
#include "checks/lock_check.hpp"
#include "formats/lock.hpp"
#include "util/time_format.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::app
{
    namespace
    {
        // The environment must satisfy its own environment file before it is locked; returns
        // the check when it does not.
        auto check_against_file(const LoadedEnvironmentFile& file,
                                const model::InstalledEnvironment& installed, Ports& ports)
          -> util::Result<std::optional<model::EnvironmentCheck>>
        {
            auto result = checks::check_environment_file(file.file, file.path, installed,
                                                         ports.machine.platform());
            if (!result)
            {
                return util::unexpected(result.error());
            }
            model::EnvironmentCheck check;
            check.prefix = installed.prefix;
            check.environment_file = file.path;
            check.packages = std::move(result->packages);
            check.notes = std::move(result->notes);
            if (check.passed())
            {
                return std::optional<model::EnvironmentCheck>{};
            }
            return std::optional(std::move(check));
        }

        // An existing lock at the outcome's path: the same content is left alone; a different
        // one is replaced only with force. Returns whether to go on writing.
        auto judge_existing_lock(const model::InstalledEnvironment& installed, bool force,
                                 Files& files, LockOutcome& outcome) -> bool
        {
            // Only a regular file can hold a lock: /dev/stdout or a pipe is written through, and
            // reading it would wait on envcheck's own output.
            if (!files.is_regular_file(outcome.path))
            {
                return true;
            }
            const auto text = files.read_file(outcome.path);
            const auto existing = text ? formats::parse_lock(*text, outcome.path)
                                       : util::Result<model::Lock>(util::unexpected(text.error()));
            model::Lock unmeasured = outcome.lock;
            if (existing)
            {
                unmeasured.performance = existing->performance;
            }
            if (existing && formats::same_content(*existing, unmeasured))
            {
                outcome.status = LockStatus::up_to_date;
                return false;
            }
            if (force)
            {
                return true;
            }
            if (!existing)
            {
                outcome.status = LockStatus::not_a_lock;
                outcome.not_a_lock = existing.error();
                return false;
            }
            outcome.status = LockStatus::differs;
            for (const auto& finding : checks::compare_to_lock(*existing, installed))
            {
                outcome.packages_differ += finding.status == model::PackageStatus::ok ? 0 : 1;
            }
            return false;
        }

        auto new_lock(const std::optional<LoadedEnvironmentFile>& environment_file,
                      const model::InstalledEnvironment& installed, const std::string& path,
                      model::LockedMachine machine, Ports& ports) -> model::Lock
        {
            model::Lock lock;
            lock.format_version = std::to_string(formats::lock_schema_version);
            lock.envcheck_version = std::string(envcheck_version());
            lock.created_at = util::format_rfc3339_utc(ports.clock.unix_seconds());
            if (environment_file)
            {
                // The environment file's path as the lock records it: relative to the lock.
                lock.environment_file = model::LockedEnvironmentFile{
                    ports.files.relative_to_directory_of(environment_file->path, path),
                    environment_file->sha256
                };
            }
            lock.machine = std::move(machine);
            lock.packages = installed.packages;
            return lock;
        }

        auto lock_path(const LockRequest& request, Files& files, std::string& env)
          -> util::Result<std::string>
        {
            env = request.env;
            if (env.empty() && files.is_regular_file(default_environment_file))
            {
                env = default_environment_file;
            }
            if (request.output.empty() && files.is_url(env))
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage,
                  "the environment file is a URL, so there is no directory to put the lock beside",
                  {}, "name the lock with -o FILE"));
            }
            return request.output.empty() ? formats::default_lock_path(env) : request.output;
        }

        // Writes the lock, measured unless no_gpu (baselines vary from run to run, so they are
        // measured only once the packages and machine say the lock is to be written).
        auto write_lock(const LockRequest& request, const MachineState& state, Ports& ports,
                        LockOutcome& outcome) -> util::Result<void>
        {
            if (!request.no_gpu)
            {
                outcome.lock.performance = record_performance(
                  gpus_to_spare(quick_on_every_gpu(), state.facts, request.even_if_busy), ports,
                  outcome.performance_not_recorded);
            }
            // Without force, a lock another process wrote since it was judged above is kept.
            return ports.files.write_atomic(
              outcome.path, util::redact_urls(formats::render_lock(outcome.lock)),
              request.force ? Files::WriteMode::replace : Files::WriteMode::create_new);
        }
    }

    auto LockOutcome::verdict() const -> Verdict
    {
        switch (status)
        {
            case LockStatus::written:
            case LockStatus::up_to_date:
                return Verdict::clean;
            case LockStatus::unreadable_records:
                return Verdict::usage;
            case LockStatus::unsatisfied:
            case LockStatus::differs:
            case LockStatus::not_a_lock:
                break;
        }
        return Verdict::findings;
    }

    auto run_lock(const LockRequest& request, Ports& ports) -> util::Result<LockOutcome>
    {
        LockOutcome outcome;
        std::string env;
        auto path = lock_path(request, ports.files, env);
        if (!path)
        {
            return util::unexpected(path.error());
        }
        outcome.path = std::move(*path);
        const auto located = ports.prefixes.locate(request.selection);
        if (!located)
        {
            return util::unexpected(located.error());
        }
        const auto environment_file = load_named_environment_file(env, ports.files);
        if (!environment_file)
        {
            return util::unexpected(environment_file.error());
        }
        const auto installed = ports.prefixes.read(located->path, PrefixReadOptions{});
        if (!installed)
        {
            return util::unexpected(installed.error());
        }
        if (!installed->problems.empty())
        {
            outcome.status = LockStatus::unreadable_records;
            outcome.unreadable = UnreadableRecords{ located->path, installed->problems };
            return outcome;
        }
        if (*environment_file)
        {
            auto unsatisfied = check_against_file(**environment_file, *installed, ports);
            if (!unsatisfied)
            {
                return util::unexpected(unsatisfied.error());
            }
            if (*unsatisfied)
            {
                outcome.status = LockStatus::unsatisfied;
                outcome.unsatisfied = std::move(**unsatisfied);
                return outcome;
            }
        }
        auto state = current_machine(!request.no_gpu, installed->python_version, ports);
        outcome.lock = new_lock(*environment_file, *installed, outcome.path, state.machine, ports);
        if (!judge_existing_lock(*installed, request.force, ports.files, outcome))
        {
            return outcome;
        }
        if (auto written = write_lock(request, state, ports, outcome); !written)
        {
            return util::unexpected(written.error());
        }
        return outcome;
    }
}
