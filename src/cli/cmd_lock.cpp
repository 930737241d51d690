// envcheck lock: writes the lock of an installed environment (schemas/lock.schema.json):
// every package, the platform, python and glibc, the driver and GPUs, the GPU performance
// baselines (unless --no-gpu) and the environment file it came from.
//
// The default lock sits beside the environment file: environment.yml -> environment.lock.json
// (./environment.lock.json without one). Refusals: an environment that does not satisfy its
// own environment file is not locked (exit 1); a conda-meta record that cannot be read is not
// locked either (exit 2: a lock that silently leaves a package out would pass checks it should
// fail; fix or remove the record first); an existing lock that differs is replaced only with
// --force (exit 1 without it); one whose packages and machine are unchanged is up to date
// and left alone (performance baselines are measured again only with --force). The write is
// atomic.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "checks/env_check.hpp"
#include "checks/lock_check.hpp"
#include "cli/cmd_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "prefix/reader.hpp"
#include "report/check_text.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::cli
{
    namespace
    {
        namespace fs = std::filesystem;

        struct LockOptions
        {
            PrefixSelection selection;
            std::string env;
            std::string output;
            bool force = false;
            bool no_gpu = false;
        };

        // The environment file's path as the lock records it: relative to the lock's directory.
        auto relative_to_lock(const std::string& environment_file, const std::string& lock_path)
          -> std::string
        {
            std::error_code error;
            const fs::path lock_directory = fs::absolute(lock_path, error).parent_path();
            const fs::path relative =
              fs::absolute(environment_file, error).lexically_relative(lock_directory);
            return relative.empty() ? environment_file : relative.generic_string();
        }

        auto describe(const model::Lock& lock) -> std::string
        {
            std::size_t conda = 0;
            for (const auto& package : lock.packages)
            {
                conda += package.manager == model::Manager::conda ? 1 : 0;
            }
            std::string text = std::to_string(lock.packages.size()) + " packages (" +
                               std::to_string(conda) + " conda, " +
                               std::to_string(lock.packages.size() - conda) + " pip)";
            text += ", platform " + lock.machine.platform.value_or("unknown");
            text += ", driver " + lock.machine.driver_version.value_or("unknown");
            if (lock.machine.gpus)
            {
                text += ", " + std::to_string(lock.machine.gpus->size()) + " GPU(s)";
            }
            text += lock.performance
                      ? ", " + std::to_string(lock.performance->size()) + " performance baseline(s)"
                      : ", no performance baselines";
            return text;
        }

        // The environment must satisfy its own environment file before it is locked.
        auto check_against_file(const LoadedEnvironmentFile& file,
                                const model::InstalledEnvironment& installed) -> int
        {
            auto result = checks::check_environment_file(file.file, file.path, installed,
                                                         prefix::current_platform());
            if (!result)
            {
                return report_error(result.error());
            }
            model::EnvironmentCheck check;
            check.prefix = installed.prefix;
            check.environment_file = file.path;
            check.packages = std::move(result->packages);
            check.notes = std::move(result->notes);
            if (check.passed())
            {
                return code(Exit::ok);
            }
            std::cerr << report::render_check_text(check);
            std::cerr << "envcheck: not locked: the environment does not satisfy " << file.path
                      << "; install what it asks for, or change the file\n";
            return code(Exit::findings);
        }

        // An existing lock at `path`: the same content is left alone; a different one is replaced
        // only with --force. Returns -1 to go on writing, else the exit code.
        auto existing_lock_verdict(const std::string& path, const model::Lock& lock,
                                   const model::InstalledEnvironment& installed, bool force) -> int
        {
            // Only a regular file can hold a lock: /dev/stdout or a pipe is written through, and
            // reading it would wait on envcheck's own output.
            if (fsio::path_kind(path) != fsio::PathKind::regular)
            {
                return -1;
            }
            const auto text = fsio::read_file(path);
            const auto existing = text ? formats::parse_lock(*text, path)
                                       : util::Result<model::Lock>(util::unexpected(text.error()));
            model::Lock unmeasured = lock;
            if (existing)
            {
                unmeasured.performance = existing->performance;
            }
            if (existing && formats::same_content(*existing, unmeasured))
            {
                std::cout << "envcheck: " << path << " is up to date (" << describe(lock) << ")\n";
                return code(Exit::ok);
            }
            if (force)
            {
                return -1;
            }
            if (!existing)
            {
                std::cerr << "envcheck: " << path << " exists and is not an envcheck lock ("
                          << existing.error().to_string() << ")\n";
            }
            else
            {
                std::size_t drift = 0;
                for (const auto& finding : checks::compare_to_lock(*existing, installed))
                {
                    drift += finding.status == model::PackageStatus::ok ? 0 : 1;
                }
                std::cerr << "envcheck: " << path << " exists and differs: " << drift
                          << " package(s) differ; the machine or performance part may too\n"
                          << "  `envcheck check --lock " << path << "` shows the differences\n";
            }
            std::cerr << "envcheck: not replaced; pass --force to replace it\n";
            return code(Exit::findings);
        }

        auto run_lock(const LockOptions& options) -> int
        {
            std::string env = options.env;
            std::error_code error;
            if (env.empty() && fs::is_regular_file(default_environment_file, error))
            {
                env = default_environment_file;
            }
            if (options.output.empty() && is_url(env))
            {
                return report_error(util::make_error(
                  util::ErrorKind::usage,
                  "the environment file is a URL, so there is no directory to put the lock beside",
                  {}, "name the lock with -o FILE"));
            }
            const std::string output =
              options.output.empty() ? formats::default_lock_path(env) : options.output;

            const auto variables = system::read_environment();
            const auto located = locate_environment(options.selection, variables);
            if (!located)
            {
                return report_error(located.error());
            }
            std::optional<LoadedEnvironmentFile> environment_file;
            if (!env.empty())
            {
                auto loaded = load_environment_file(env);
                if (!loaded)
                {
                    return report_error(loaded.error());
                }
                environment_file = std::move(*loaded);
            }
            const auto installed = prefix::read_prefix(located->path);
            if (!installed)
            {
                return report_error(installed.error());
            }
            if (!installed->problems.empty())
            {
                for (const auto& problem : installed->problems)
                {
                    std::cerr << "envcheck: error: " << problem.to_string() << '\n';
                }
                return report_error(util::make_error(
                  util::ErrorKind::parse,
                  "not locked: " + std::to_string(installed->problems.size()) +
                    " record(s) of the environment cannot be read, so the lock would leave "
                    "packages out",
                  util::SourceLocation{ located->path, 0, 0 },
                  "reinstall the packages named above (or remove their records), then lock again"));
            }
            if (environment_file)
            {
                if (const int status = check_against_file(*environment_file, *installed);
                    status != code(Exit::ok))
                {
                    return status;
                }
            }

            model::Lock lock;
            lock.format_version = std::to_string(formats::lock_schema_version);
            lock.envcheck_version = ENVCHECK_VERSION;
            lock.created_at = now_rfc3339();
            if (environment_file)
            {
                lock.environment_file =
                  model::LockedEnvironmentFile{ relative_to_lock(environment_file->path, output),
                                                environment_file->sha256 };
            }
            lock.machine =
              current_machine(!options.no_gpu, installed->python_version, variables).machine;
            lock.packages = installed->packages;

            // Performance baselines are measurements that vary from run to run: a lock whose
            // packages and machine are unchanged is up to date, and only --force measures again.
            if (const int verdict = existing_lock_verdict(output, lock, *installed, options.force);
                verdict >= 0)
            {
                return verdict;
            }
            std::string why_not;
            if (!options.no_gpu)
            {
                lock.performance = record_performance(why_not);
            }
            // Without --force, a lock another process wrote since the check above is kept.
            if (auto written = fsio::write_file_atomic(
                  output, util::redact_urls(formats::render_lock(lock)), 0644,
                  options.force ? fsio::WriteMode::replace : fsio::WriteMode::create_new);
                !written)
            {
                return report_error(written.error());
            }
            std::cout << "envcheck: wrote " << output << ": " << describe(lock) << '\n';
            if (!why_not.empty())
            {
                std::cout << "  performance not recorded: " << why_not << '\n';
            }
            return code(Exit::ok);
        }
    }

    auto setup_lock(CLI::App& app) -> Run
    {
        auto options = std::make_shared<LockOptions>();
        add_input_options(app);
        add_prefix_options(app, options->selection);
        app.add_option("--env", options->env,
                       "The environment file the environment must satisfy (default "
                       "./environment.yml when present)");
        app.add_option(
          "-o,--output", options->output,
          "Where to write the lock (default: <env file stem>.lock.json beside it, else "
          "./environment.lock.json)");
        app.add_flag("--force", options->force, "Replace an existing lock that differs");
        app.add_flag("--no-gpu", options->no_gpu,
                     "Do not probe the driver and GPUs, and record no performance baselines");
        return [options] { return run_lock(*options); };
    }
}
