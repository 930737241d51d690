// envcheck doctor: walks the chain from hardware to framework and names the first broken link
// (src/checks/doctor.hpp). The machine comes from the probe (cmd_probe.hpp); the environment
// from --prefix, --lock, --env, $VIRTUAL_ENV or $CONDA_PREFIX; framework.runtime-check runs the
// environment's own python (src/system/framework_check.hpp) once the machine's links up to the CUDA
// devices hold.
//
// Exit codes: 0 CUDA is usable (and the given environment can use it); 1 a check failed; 2 bad
// usage or an environment that cannot be read.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checks/doctor.hpp"
#include "cli/cmd_probe.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fleet_output.hpp"
#include "cli/inputs.hpp"
#include "cli/output.hpp"
#include "formats/environment_yaml.hpp"
#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "prefix/reader.hpp"
#include "pypi/pip_line.hpp"
#include "report/doctor_report.hpp"
#include "specs/match_spec.hpp"
#include "system/framework_check.hpp"
#include "util/strings.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct DoctorOptions
        {
            std::string root = "/";
            std::string prefix;
            std::string env_file;
            std::string lock_file;
            std::string platform = "linux-64";
            ReportFormatChoice format;
            std::string output;
            double timeout_seconds = 20.0;
            double framework_timeout_seconds = 180.0;
            bool no_framework_check = false;
            bool list = false;
        };

        auto list_checks() -> int
        {
            std::size_t width = 0;
            for (const auto& check : checks::doctor_checks())
            {
                width = std::max(width, check.id.size());
            }
            for (const auto& check : checks::doctor_checks())
            {
                std::cout << check.id << std::string(width - check.id.size() + 2, ' ')
                          << check.description << '\n';
            }
            return code(Exit::ok);
        }

        // An environment.yml names specs, not installed packages: what the doctor can judge is
        // each spec's exact or prefix pin ("pytorch-cuda=11.8", "torch==2.5.1+cu124",
        // "pytorch=2.1.0=py3.10_cpu_0"); a range gives the name alone.
        auto package_from_conda_spec(std::string_view text) -> std::optional<model::Package>
        {
            auto spec = specs::MatchSpec::parse(text);
            if (!spec || !spec->name().is_exact())
            {
                return std::nullopt; // lint reports what does not parse
            }
            model::Package package;
            package.manager = model::Manager::conda;
            package.name = spec->name().to_string();
            const auto constraints = spec->version().constraints();
            if (constraints.size() == 1 &&
                (constraints.front().op == specs::VersionOperator::equal ||
                 constraints.front().op == specs::VersionOperator::starts_with))
            {
                package.version = constraints.front().version.to_string();
            }
            if (spec->build().is_exact())
            {
                package.build = spec->build().to_string();
            }
            return package;
        }

        auto package_from_pip_line(std::string_view text) -> std::optional<model::Package>
        {
            auto line = pypi::parse_pip_line(text);
            if (!line || line->name.empty())
            {
                return std::nullopt;
            }
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = line->name;
            if (line->requirement)
            {
                const auto& clauses = line->requirement->specifier().specifiers();
                if (clauses.size() == 1 && !clauses.front().is_wildcard() &&
                    (clauses.front().op() == pypi::Operator::equal ||
                     clauses.front().op() == pypi::Operator::arbitrary))
                {
                    package.version = clauses.front().version_text();
                }
            }
            else if (line->file_version)
            {
                package.version = line->file_version->to_string();
            }
            return package;
        }

        struct LoadedEnvironment
        {
            checks::DoctorEnvironment environment;
            std::string prefix; // where a python can be run; empty for --env and --lock
        };

        auto load_environment(const DoctorOptions& options, const system::Environment& variables)
          -> util::Result<std::optional<LoadedEnvironment>>
        {
            LoadedEnvironment loaded;
            auto& environment = loaded.environment;
            if (!options.env_file.empty())
            {
                auto text = read_input(options.env_file);
                if (!text)
                {
                    return util::unexpected(text.error());
                }
                auto file = formats::parse_environment_yaml(*text, options.env_file);
                if (!file)
                {
                    return util::unexpected(file.error());
                }
                environment.source = "--env " + options.env_file;
                for (const auto& dependency : file->dependencies)
                {
                    if (auto package = package_from_conda_spec(dependency.text))
                    {
                        environment.packages.push_back(std::move(*package));
                    }
                }
                for (const auto& line : file->pip)
                {
                    if (auto package = package_from_pip_line(line.text))
                    {
                        environment.packages.push_back(std::move(*package));
                    }
                }
                environment.framework_check_skipped =
                  "--env names specs, not an installed environment: nothing to run";
                return std::optional(std::move(loaded));
            }
            if (!options.lock_file.empty())
            {
                auto text = read_input(options.lock_file);
                if (!text)
                {
                    return util::unexpected(text.error());
                }
                auto lock = formats::parse_any_lock(
                  *text, options.lock_file, formats::LockSelection{ options.platform, "default" });
                if (!lock)
                {
                    return util::unexpected(lock.error());
                }
                environment.source = "--lock " + options.lock_file;
                environment.packages = lock->packages;
                environment.framework_check_skipped =
                  "--lock describes an environment, not an installed one: nothing to run";
                return std::optional(std::move(loaded));
            }
            std::string prefix = options.prefix;
            if (prefix.empty())
            {
                // The activated environment, as check finds it (prefix/locate.hpp).
                for (const char* variable : { "VIRTUAL_ENV", "CONDA_PREFIX" })
                {
                    const auto found = variables.find(variable);
                    if (found != variables.end() && !found->second.empty())
                    {
                        prefix = found->second;
                        environment.source = "$" + std::string(variable) + " (" + prefix + ")";
                        break;
                    }
                }
                if (prefix.empty())
                {
                    return std::optional<LoadedEnvironment>{};
                }
            }
            else
            {
                environment.source = "--prefix " + prefix;
            }
            auto installed = prefix::read_prefix(prefix);
            if (!installed)
            {
                return util::unexpected(installed.error());
            }
            environment.packages = installed->packages;
            loaded.prefix = prefix;
            return std::optional(std::move(loaded));
        }

        // The frameworks worth asking: those the environment's packages name.
        auto frameworks_in(const std::vector<model::Package>& packages) -> std::vector<std::string>
        {
            std::vector<std::string> found;
            for (const auto framework : system::frameworks)
            {
                const bool present =
                  std::any_of(packages.begin(), packages.end(),
                              [&](const model::Package& package)
                              {
                                  const auto key = util::to_lower(package.name);
                                  if (framework == "torch")
                                  {
                                      return key == "torch" || key == "pytorch";
                                  }
                                  if (framework == "jax")
                                  {
                                      return key == "jax" || key == "jaxlib";
                                  }
                                  return key == "tensorflow" || key == "tensorflow-gpu" ||
                                         key == "tensorflow-cpu" || key == "tensorflow-base" ||
                                         key == "tf-nightly";
                              });
                if (present)
                {
                    found.emplace_back(framework);
                }
            }
            return found;
        }

        void run_framework_checks(const DoctorOptions& options,
                                  const system::Environment& variables, LoadedEnvironment& loaded)
        {
            auto& environment = loaded.environment;
            const auto python = system::find_python(loaded.prefix);
            if (python.empty())
            {
                environment.framework_check_skipped = "no bin/python in " + loaded.prefix;
                return;
            }
            environment.framework_check_ran = true;
            const auto timeout = std::chrono::milliseconds(
              static_cast<long long>(options.framework_timeout_seconds * 1000.0));
            for (const auto& framework : frameworks_in(environment.packages))
            {
                environment.frameworks.push_back(
                  system::run_framework_check(python, framework, variables, timeout));
            }
        }

        auto run_doctor(const DoctorOptions& options) -> int
        {
            if (options.list)
            {
                return list_checks();
            }
            const RunClock clock;
            const auto variables = system::read_environment();
            auto machine = probe_this_machine(options.root, options.timeout_seconds, variables);
            if (!machine)
            {
                return report_error(machine.error());
            }
            auto loaded = load_environment(options, variables);
            if (!loaded)
            {
                return report_error(loaded.error());
            }
            checks::DoctorInput input{ std::move(machine).value(), std::nullopt };
            if (*loaded)
            {
                input.environment = (*loaded)->environment;
            }
            auto result = checks::run_doctor(input);
            // The framework check runs the environment's python: only on a live machine whose
            // chain up to the CUDA devices holds, so that its failure means something.
            if (*loaded && !(*loaded)->prefix.empty())
            {
                const auto* devices = result.outcome("cuda.device-count");
                if (!input.machine.live)
                {
                    input.environment->framework_check_skipped = "--root: nothing is run";
                }
                else if (options.no_framework_check)
                {
                    input.environment->framework_check_skipped = "--no-framework-check";
                }
                else if (devices != nullptr && (devices->status == model::Status::pass ||
                                                devices->status == model::Status::warn))
                {
                    run_framework_checks(options, variables, **loaded);
                    input.environment = (*loaded)->environment;
                }
                result = checks::run_doctor(input);
            }
            report::DoctorView view{ result.outcomes, std::nullopt };
            if (input.environment)
            {
                view.environment = input.environment->source;
            }
            std::string rendered;
            if (options.format.name == "json")
            {
                rendered = report::render_doctor_json(view);
            }
            else if (options.format.name == "text")
            {
                rendered = report::render_doctor_text(view);
            }
            else
            {
                model::CheckRun run{ "doctor", result.outcomes, 0.0, 0.0 };
                clock.stamp(run);
                auto features = node_features_from(input.machine);
                features.cuda_usable = result.passed();
                rendered = render_fleet_report(options.format.name, { run }, features,
                                               options.format.expiry_seconds);
            }
            if (const int status = emit(rendered, options.output); status != code(Exit::ok))
            {
                return status;
            }
            return result.passed() ? code(Exit::ok) : code(Exit::findings);
        }
    }

    auto setup_doctor(CLI::App& app) -> Run
    {
        auto options = std::make_shared<DoctorOptions>();
        add_input_options(app);
        add_root_option(app, options->root);
        auto* prefix =
          app
            .add_option(
              "-p,--prefix", options->prefix,
              "The installed environment (conda prefix or venv) to check; default $VIRTUAL_ENV, "
              "else $CONDA_PREFIX")
            ->option_text("DIR");
        auto* env = app
                      .add_option("--env", options->env_file,
                                  "An environment.yml whose pinned CUDA runtime to check")
                      ->option_text("FILE");
        auto* lock =
          app
            .add_option(
              "--lock", options->lock_file,
              "A lock (envcheck, conda-lock, pixi, @EXPLICIT) whose CUDA runtime to check")
            ->option_text("FILE");
        prefix->excludes(env)->excludes(lock);
        env->excludes(lock);
        app.add_option("--platform", options->platform,
                       "The platform to read from a multi-platform lock (default linux-64)");
        add_report_format_options(app, options->format, { "text", "json" });
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app
          .add_option("--timeout", options->timeout_seconds,
                      "Seconds NVML and cuInit may take before they count as hung (default 20)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--framework-timeout", options->framework_timeout_seconds,
                      "Seconds the environment's python may take per framework (default 180)")
          ->check(CLI::PositiveNumber);
        app.add_flag("--no-framework-check", options->no_framework_check,
                     "Do not run the environment's python (framework.runtime-check is skipped)");
        app.add_flag("--list", options->list, "List the checks, in walk order, and exit");
        return [options] { return run_doctor(*options); };
    }
}
