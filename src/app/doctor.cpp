#include "app/doctor.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "app/machine_state.hpp"
#include "formats/environment_yaml.hpp"
#include "formats/lock.hpp"
#include "pypi/pip_line.hpp"
#include "specs/match_spec.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    namespace
    {
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
            std::optional<std::vector<model::LockedGpu>> locked_gpus; // gpu.count, from --lock
        };

        auto from_environment_file(const std::string& path, Files& files)
          -> util::Result<LoadedEnvironment>
        {
            auto text = files.read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            auto file = formats::parse_environment_yaml(*text, path);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            LoadedEnvironment loaded;
            auto& environment = loaded.environment;
            environment.source = "--env " + path;
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
            return loaded;
        }

        auto from_lock(const std::string& path, const std::string& platform, Files& files)
          -> util::Result<LoadedEnvironment>
        {
            auto text = files.read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            auto lock =
              formats::parse_any_lock(*text, path, formats::LockSelection{ platform, "default" });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            LoadedEnvironment loaded;
            loaded.environment.source = "--lock " + path;
            loaded.environment.packages = lock->packages;
            loaded.environment.framework_check_skipped =
              "--lock describes an environment, not an installed one: nothing to run";
            loaded.locked_gpus = lock->machine.gpus;
            return loaded;
        }

        // --prefix, else the activated environment, as check finds it; nullopt when none.
        auto from_prefix(const std::string& given, Ports& ports)
          -> util::Result<std::optional<LoadedEnvironment>>
        {
            LoadedEnvironment loaded;
            loaded.prefix = given;
            loaded.environment.source = "--prefix " + given;
            for (const char* name : { "VIRTUAL_ENV", "CONDA_PREFIX" })
            {
                if (!loaded.prefix.empty())
                {
                    break;
                }
                loaded.prefix = variable(ports.environment, name);
                loaded.environment.source = "$" + std::string(name) + " (" + loaded.prefix + ")";
            }
            if (loaded.prefix.empty())
            {
                return std::optional<LoadedEnvironment>{};
            }
            auto installed = ports.prefixes.read(loaded.prefix, PrefixReadOptions{});
            if (!installed)
            {
                return util::unexpected(installed.error());
            }
            loaded.environment.packages = std::move(installed->packages);
            return std::optional(std::move(loaded));
        }

        auto load_environment(const DoctorRequest& request, Ports& ports)
          -> util::Result<std::optional<LoadedEnvironment>>
        {
            if (!request.env_file.empty() || !request.lock_file.empty())
            {
                auto loaded = request.env_file.empty()
                                ? from_lock(request.lock_file, request.platform, ports.files)
                                : from_environment_file(request.env_file, ports.files);
                if (!loaded)
                {
                    return util::unexpected(loaded.error());
                }
                return std::optional(std::move(*loaded));
            }
            return from_prefix(request.prefix, ports);
        }

        // The package names by which an environment holds each framework.
        auto holds_framework(std::string_view framework, const model::Package& package) -> bool
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
            return key == "tensorflow" || key == "tensorflow-gpu" || key == "tensorflow-cpu" ||
                   key == "tensorflow-base" || key == "tf-nightly";
        }

        void run_framework_checks(const DoctorRequest& request, Ports& ports,
                                  LoadedEnvironment& loaded)
        {
            auto& environment = loaded.environment;
            const auto python = ports.frameworks.find_python(loaded.prefix);
            if (python.empty())
            {
                environment.framework_check_skipped = "no bin/python in " + loaded.prefix;
                return;
            }
            environment.framework_check_ran = true;
            const auto timeout = std::chrono::milliseconds(
              static_cast<long long>(request.framework_timeout_seconds * 1000.0));
            for (const auto& framework : ports.frameworks.known())
            {
                const bool present =
                  std::any_of(environment.packages.begin(), environment.packages.end(),
                              [&](const model::Package& package)
                              { return holds_framework(framework, package); });
                if (present)
                {
                    environment.frameworks.push_back(
                      ports.frameworks.check(python, framework, timeout));
                }
            }
        }

        // The framework check runs the environment's python: only on a live machine whose
        // chain up to the CUDA devices holds, so that its failure means something.
        auto with_framework_check(const DoctorRequest& request, Ports& ports,
                                  checks::DoctorInput& input, LoadedEnvironment& loaded,
                                  const checks::DoctorReport& first) -> checks::DoctorReport
        {
            const auto* devices = first.outcome("cuda.device-count");
            if (!input.machine.live)
            {
                input.environment->framework_check_skipped = "--root: nothing is run";
            }
            else if (request.no_framework_check)
            {
                input.environment->framework_check_skipped = "--no-framework-check";
            }
            else if (devices != nullptr && (devices->status == model::Status::pass ||
                                            devices->status == model::Status::warn))
            {
                run_framework_checks(request, ports, loaded);
                input.environment = loaded.environment;
            }
            return checks::run_doctor(input);
        }
    }

    auto DoctorOutcome::verdict() const -> Verdict
    {
        return result.passed() ? Verdict::clean : Verdict::findings;
    }

    auto run_doctor(const DoctorRequest& request, Ports& ports) -> util::Result<DoctorOutcome>
    {
        const RunClock clock(ports.clock);
        auto machine = probe_machine(request.root, request.timeout_seconds, ports);
        if (!machine)
        {
            return util::unexpected(machine.error());
        }
        auto loaded = load_environment(request, ports);
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        checks::DoctorInput input{ std::move(machine).value(), std::nullopt, request.hardware,
                                   std::nullopt };
        for (const auto& skip : request.skip)
        {
            input.skip[skip.value] = "doctor.skip in " + skip.source.to_string();
        }
        if (*loaded)
        {
            input.environment = (*loaded)->environment;
            input.locked_gpus = (*loaded)->locked_gpus;
        }
        DoctorOutcome outcome;
        outcome.result = checks::run_doctor(input);
        if (*loaded && !(*loaded)->prefix.empty())
        {
            outcome.result = with_framework_check(request, ports, input, **loaded, outcome.result);
        }
        outcome.view = report::DoctorView{ outcome.result.outcomes, std::nullopt };
        if (input.environment)
        {
            outcome.view.environment = input.environment->source;
        }
        model::CheckRun run{ "doctor", outcome.result.outcomes, 0.0, 0.0 };
        clock.stamp(run);
        outcome.fleet = FleetView{ { std::move(run) }, node_features_from(input.machine) };
        outcome.fleet.features.cuda_usable = outcome.result.passed();
        outcome.machine = std::move(input.machine);
        return outcome;
    }

    auto doctor_check_list() -> std::vector<report::RegistryRow>
    {
        std::vector<report::RegistryRow> rows;
        for (const auto& check : checks::doctor_checks())
        {
            rows.push_back({ std::string(check.id), std::string(check.description), {} });
        }
        return rows;
    }
}
