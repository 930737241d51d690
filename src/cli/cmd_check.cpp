// envcheck check: does the installed environment match its environment file and its lock?
//
// Inputs: --env FILE (every requested MatchSpec and pip requirement is satisfied) and/or
// --lock FILE (envcheck's lock, conda-lock.yml, pixi.lock or @EXPLICIT: identity per package,
// then the machine and performance parts). With neither, ./environment.yml and the lock beside
// it (environment.lock.json). The environment: --prefix, -n NAME, $VIRTUAL_ENV or $CONDA_PREFIX.
//
// Exit codes: 0 everything matches; 1 drift (a package, a file with --deep, an unreadable
// record, the machine or the performance differs); 2 bad usage or an input that cannot be read.
#include "cli/cmd_check.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "checks/consistency.hpp"
#include "checks/env_check.hpp"
#include "checks/lock_check.hpp"
#include "checks/perf.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fleet_output.hpp"
#include "cli/inputs.hpp"
#include "cli/output.hpp"
#include "formats/lock.hpp"
#include "formats/pyproject.hpp"
#include "formats/requirements_txt.hpp"
#include "fsio/files.hpp"
#include "gpu/smoke.hpp"
#include "prefix/reader.hpp"
#include "prefix/verify.hpp"
#include "report/check_json.hpp"
#include "report/check_text.hpp"
#include "system/host.hpp"
#include "system/machine_probe.hpp"
#include "system/system_root.hpp"
#include "util/sha256.hpp"
#include "util/time_format.hpp"

namespace envcheck::cli
{
    void add_prefix_options(CLI::App& app, PrefixSelection& selection)
    {
        auto* prefix = app.add_option(
          "-p,--prefix", selection.prefix,
          "The environment's directory (a conda prefix or a venv); default $VIRTUAL_ENV, "
          "else $CONDA_PREFIX");
        auto* name = app.add_option(
          "-n,--name", selection.name,
          "A conda environment by name (envs directories, ~/.conda/environments.txt)");
        prefix->excludes(name);
    }

    auto locate_environment(const PrefixSelection& selection, const system::Environment& variables)
      -> util::Result<prefix::LocatedPrefix>
    {
        prefix::LocateRequest request;
        request.prefix = selection.prefix;
        request.name = selection.name;
        request.search = prefix::search_paths_from(variables);
        return prefix::locate_prefix(request);
    }

    auto parse_environment_text(const std::string& text, const std::string& path)
      -> util::Result<formats::EnvironmentFile>
    {
        if (formats::is_requirements_file_name(path))
        {
            return formats::parse_requirements_txt(text, path);
        }
        if (formats::is_pyproject_file_name(path))
        {
            return formats::parse_pyproject(text, path);
        }
        auto file = formats::parse_environment_yaml(text, path);
        if (!file)
        {
            return util::unexpected(file.error());
        }
        for (const auto& diagnostic : file->diagnostics)
        {
            if (diagnostic.severity == model::Severity::error)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, diagnostic.message + " [" + diagnostic.rule + "]",
                  util::SourceLocation{ path, diagnostic.position.line,
                                        diagnostic.position.column },
                  diagnostic.fix));
            }
        }
        return file;
    }

    auto load_environment_file(const std::string& path) -> util::Result<LoadedEnvironmentFile>
    {
        auto text = read_input(path);
        if (!text)
        {
            return util::unexpected(text.error());
        }
        auto file = parse_environment_text(*text, path);
        if (!file)
        {
            return util::unexpected(file.error());
        }
        return LoadedEnvironmentFile{ path, util::Sha256::hex_of(*text), std::move(*file) };
    }

    auto current_machine(bool probe_gpu, const std::optional<std::string>& python,
                         const system::Environment& variables) -> MachineState
    {
        MachineState state;
        state.machine.platform = prefix::current_platform();
        state.machine.python = python;
        if (!probe_gpu)
        {
            // The OS facts alone: --no-gpu keeps `check` to the packages' cost.
            state.machine.glibc = system::read_os(system::SystemRoot("/")).glibc_version;
            return state;
        }
        system::ProbeOptions options;
        options.environment = variables;
        state.facts = system::probe_machine(options);
        const auto& facts = *state.facts;
        state.machine.glibc = facts.os.glibc_version;
        state.machine.driver_version = model::driver_version(facts);
        if (const auto cuda = model::driver_cuda_version(facts))
        {
            state.machine.cuda_driver_version = cuda->to_string();
        }
        // The GPU list is known only when NVML or the CUDA driver answered.
        if (facts.nvml.initialized() || facts.cuda.initialized())
        {
            std::vector<model::LockedGpu> gpus;
            for (const auto& gpu : model::gpu_summaries(facts))
            {
                gpus.push_back(model::LockedGpu{ gpu.index, gpu.name, gpu.uuid, gpu.pci_bus_id,
                                                 gpu.compute_capability(),
                                                 gpu.memory_total_bytes });
            }
            state.machine.gpus = std::move(gpus);
        }
        return state;
    }

    auto record_performance(std::string& why_not) -> std::optional<std::vector<model::PerfBaseline>>
    {
        gpu::SmokeRequest request;
        request.mode = model::SmokeMode::quick;
        request.device = std::nullopt;
        const auto report = gpu::run_smoke(request, {});
        if (report.availability != model::GpuAvailability::available)
        {
            why_not = report.diagnosis.empty() ? std::string(model::to_string(report.availability))
                                               : report.diagnosis;
            return std::nullopt;
        }
        std::vector<model::PerfBaseline> baselines;
        for (const auto& device : report.devices)
        {
            baselines.push_back(model::make_baseline(device, model::SmokeMode::quick));
        }
        return baselines;
    }

    auto now_rfc3339() -> std::string
    {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::system_clock::now().time_since_epoch());
        return util::format_rfc3339_utc(seconds.count());
    }

    namespace
    {
        namespace fs = std::filesystem;

        struct CheckOptions
        {
            PrefixSelection selection;
            std::string env;
            std::string lock;
            std::string environment = "default";
            std::string platform;
            bool deep = false;
            bool untracked = false;
            bool no_gpu = false;
            bool verbose = false;
            unsigned jobs = 0;
            std::vector<std::string> perf_tolerances;
            ReportFormatChoice format;
            std::string output;
        };

        // The machine facts that explain a performance drop on one GPU (NVML's view of it).
        auto perf_context(const std::optional<model::MachineFacts>& facts, int device_index)
          -> model::PerfContext
        {
            model::PerfContext context;
            if (!facts)
            {
                return context;
            }
            for (const auto& gpu : facts->nvml.gpus)
            {
                if (gpu.index != device_index)
                {
                    continue;
                }
                context.gpu_name = gpu.name;
                context.pcie_generation_current = gpu.pcie_generation_current;
                context.pcie_generation_max = gpu.pcie_generation_max;
                context.pcie_width_current = gpu.pcie_width_current;
                context.pcie_width_max = gpu.pcie_width_max;
                context.sm_clock_mhz_current = gpu.sm_clock_mhz;
                context.sm_clock_mhz_max = gpu.sm_clock_max_mhz;
                if (gpu.clock_event_reasons)
                {
                    context.clock_event_reasons =
                      model::clock_event_reason_names(*gpu.clock_event_reasons);
                }
                context.ecc_corrected_volatile = gpu.ecc_corrected_volatile;
                context.ecc_uncorrected_volatile = gpu.ecc_uncorrected_volatile;
                context.other_compute_processes = gpu.compute_processes;
            }
            return context;
        }

        // "Performs as locked": a quick smoke run against every locked baseline.
        auto compare_performance(const std::vector<model::PerfBaseline>& baselines,
                                 const MachineState& state, const checks::PerfTolerance& tolerance)
          -> std::vector<model::CheckOutcome>
        {
            gpu::SmokeRequest request;
            request.mode = model::SmokeMode::quick;
            request.device = std::nullopt;
            const auto report = gpu::run_smoke(request, {});
            if (report.availability != model::GpuAvailability::available)
            {
                model::CheckOutcome outcome;
                outcome.id = "perf";
                outcome.status = model::Status::fail;
                outcome.message =
                  "the lock records performance baselines, but no GPU could be probed: " +
                  report.diagnosis;
                outcome.fix =
                  "run on the locked machine, or pass --no-gpu to check the packages only";
                return { outcome };
            }
            std::vector<model::CheckOutcome> outcomes;
            for (const auto& baseline : baselines)
            {
                const auto device = std::find_if(
                  report.devices.begin(), report.devices.end(),
                  [&](const auto& smoke) { return smoke.device.index == baseline.device_index; });
                if (device == report.devices.end())
                {
                    model::CheckOutcome outcome;
                    outcome.id = "perf";
                    outcome.status = model::Status::fail;
                    outcome.message = "GPU " + std::to_string(baseline.device_index) + " (" +
                                      baseline.device_name +
                                      ") has a baseline but is not on this machine";
                    outcomes.push_back(outcome);
                    continue;
                }
                const auto comparisons = checks::compare_performance(
                  baseline, *device, perf_context(state.facts, baseline.device_index), tolerance);
                auto device_outcomes =
                  checks::to_check_outcomes(comparisons, baseline.device_index);
                outcomes.insert(outcomes.end(), device_outcomes.begin(), device_outcomes.end());
            }
            return outcomes;
        }

        struct ResolvedInputs
        {
            std::string env;
            std::string lock;
        };

        // With neither --env nor --lock: ./environment.yml and the lock beside it.
        auto resolve_inputs(const CheckOptions& options, model::EnvironmentCheck& check)
          -> util::Result<ResolvedInputs>
        {
            ResolvedInputs inputs{ options.env, options.lock };
            if (!inputs.env.empty() || !inputs.lock.empty())
            {
                return inputs;
            }
            std::error_code error;
            const bool has_env = fs::is_regular_file(default_environment_file, error);
            const std::string beside =
              formats::default_lock_path(has_env ? default_environment_file : "");
            const bool has_lock = fs::is_regular_file(beside, error);
            if (!has_env && !has_lock)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage,
                  "nothing to check against: no --env or --lock, and no ./environment.yml or ./" +
                    beside,
                  {}, "pass --env FILE and/or --lock FILE, or run in the project directory"));
            }
            if (has_env)
            {
                inputs.env = default_environment_file;
                check.notes.push_back(std::string("using ./") + default_environment_file);
            }
            if (has_lock)
            {
                inputs.lock = beside;
                check.notes.push_back("using the lock beside it: ./" + beside);
            }
            else
            {
                check.notes.push_back("no lock beside it (./" + beside +
                                      "): package identity, machine and performance not checked; "
                                      "`envcheck lock` writes one");
            }
            return inputs;
        }

        auto parse_perf_tolerance(const CheckOptions& options)
          -> util::Result<checks::PerfTolerance>
        {
            checks::PerfTolerance tolerance;
            for (const auto& text : options.perf_tolerances)
            {
                if (auto applied = checks::apply_perf_tolerance(tolerance, text); !applied)
                {
                    return util::unexpected(applied.error());
                }
            }
            return tolerance;
        }

        // Every metric --perf-tolerance names must be one the lock has a baseline for.
        auto check_tolerance_keys(const checks::PerfTolerance& tolerance,
                                  const std::vector<model::PerfBaseline>& baselines)
          -> util::Result<void>
        {
            std::set<std::string> locked;
            for (const auto& baseline : baselines)
            {
                for (const auto& metric : baseline.metrics)
                {
                    locked.insert(metric.key());
                }
            }
            for (const auto& [key, value] : tolerance.per_metric)
            {
                if (!locked.contains(key))
                {
                    std::string names;
                    for (const auto& name : locked)
                    {
                        names += (names.empty() ? "" : ", ") + name;
                    }
                    return util::unexpected(util::make_error(
                      util::ErrorKind::usage,
                      "--perf-tolerance: the lock has no baseline for '" + key + "'", {},
                      locked.empty() ? "the lock records no performance baselines"
                                     : "the lock's metrics: " + names));
                }
            }
            return {};
        }

        auto run_check(const CheckOptions& options) -> int
        {
            const RunClock clock;
            const auto tolerance = parse_perf_tolerance(options);
            if (!tolerance)
            {
                return report_error(tolerance.error());
            }
            model::EnvironmentCheck check;
            check.deep = options.deep;
            std::optional<model::MachineFacts> probed_facts; // for the nfd features
            const auto inputs = resolve_inputs(options, check);
            if (!inputs)
            {
                return report_error(inputs.error());
            }
            const auto variables = system::read_environment();
            const auto located = locate_environment(options.selection, variables);
            if (!located)
            {
                return report_error(located.error());
            }
            check.prefix = located->path;
            if (located->how != "--prefix")
            {
                check.notes.push_back("environment from " + located->how);
            }
            const std::string platform =
              options.platform.empty() ? prefix::current_platform() : options.platform;

            // Read every input before comparing anything: unreadable input is exit 2.
            std::optional<LoadedEnvironmentFile> environment_file;
            if (!inputs->env.empty())
            {
                auto loaded = load_environment_file(inputs->env);
                if (!loaded)
                {
                    return report_error(loaded.error());
                }
                environment_file = std::move(*loaded);
                check.environment_file = inputs->env;
            }
            std::optional<model::Lock> lock;
            if (!inputs->lock.empty())
            {
                const auto text = read_input(inputs->lock);
                if (!text)
                {
                    return report_error(text.error());
                }
                auto parsed =
                  formats::parse_any_lock(*text, inputs->lock, { platform, options.environment });
                if (!parsed)
                {
                    return report_error(parsed.error());
                }
                lock = std::move(*parsed);
                if (auto known = check_tolerance_keys(
                      *tolerance, lock->performance.value_or(std::vector<model::PerfBaseline>{}));
                    !known)
                {
                    return report_error(known.error());
                }
                check.lock_file = inputs->lock;
                check.lock_format = std::string(model::to_string(lock->format));
                check.notes.insert(check.notes.end(), lock->notes.begin(), lock->notes.end());
            }
            auto installed =
              prefix::read_prefix(located->path, prefix::ReadOptions{ options.deep, options.jobs });
            if (!installed)
            {
                return report_error(installed.error());
            }
            check.problems = installed->problems;

            std::vector<model::PackageFinding> from_environment_file;
            if (environment_file)
            {
                auto result = checks::check_environment_file(
                  environment_file->file, environment_file->path, *installed, platform);
                if (!result)
                {
                    return report_error(result.error());
                }
                from_environment_file = std::move(result->packages);
                check.notes.insert(check.notes.end(), result->notes.begin(), result->notes.end());
            }
            if (lock)
            {
                check.packages = checks::merge_findings(std::move(from_environment_file),
                                                        checks::compare_to_lock(*lock, *installed));
                if (environment_file && lock->environment_file &&
                    lock->environment_file->sha256 != environment_file->sha256)
                {
                    check.notes.push_back(environment_file->path +
                                          " changed after the lock was written (sha256 differs): "
                                          "re-lock once the environment matches it");
                }
                // The driver and GPUs are probed only when the lock has something to compare them
                // with: a lock made without a GPU (or with --no-gpu) records them as unknown.
                const bool lock_knows_gpu =
                  lock->machine.driver_version || lock->machine.cuda_driver_version ||
                  lock->machine.gpus || (lock->performance && !lock->performance->empty());
                const auto state = current_machine(!options.no_gpu && lock_knows_gpu,
                                                   installed->python_version, variables);
                probed_facts = state.facts;
                if (lock->format == model::LockFormat::envcheck)
                {
                    check.machine = checks::compare_machine(lock->machine, state.machine);
                }
                else if (lock->machine.platform)
                {
                    model::LockedMachine platform_only;
                    platform_only.platform = lock->machine.platform;
                    model::LockedMachine here;
                    here.platform = prefix::current_platform();
                    check.machine = { checks::compare_machine(platform_only, here).front() };
                }
                if (lock->performance && !lock->performance->empty())
                {
                    if (options.no_gpu)
                    {
                        check.notes.push_back(
                          "--no-gpu: the lock's performance baselines were not measured");
                    }
                    else
                    {
                        check.performance =
                          compare_performance(*lock->performance, state, *tolerance);
                    }
                }
            }
            else
            {
                check.packages = std::move(from_environment_file);
            }
            // Like `pip check` and conda's consistency check: every installed package's own
            // requirements against the rest of the environment.
            {
                auto consistency = checks::check_consistency(*installed, platform);
                check.packages.insert(check.packages.end(),
                                      std::make_move_iterator(consistency.packages.begin()),
                                      std::make_move_iterator(consistency.packages.end()));
                check.notes.insert(check.notes.end(), consistency.notes.begin(),
                                   consistency.notes.end());
            }
            if (options.deep)
            {
                auto verified =
                  prefix::verify_files(located->path, installed->files,
                                       prefix::VerifyOptions{ options.jobs, options.untracked });
                check.files = std::move(verified.findings);
                check.deep_summary = verified.summary;
            }

            std::string rendered;
            if (options.format.name == "json")
            {
                rendered = report::render_check_json(check);
            }
            else if (options.format.name == "text")
            {
                rendered =
                  report::render_check_text(check, report::CheckTextOptions{ options.verbose });
            }
            else
            {
                auto run = model::to_check_run(check);
                clock.stamp(run);
                auto features =
                  probed_facts ? node_features_from(*probed_facts) : report::NodeFeatures{};
                features.lock_matches = check.passed();
                rendered = render_fleet_report(options.format.name, { run }, features,
                                               options.format.expiry_seconds);
            }
            if (const int status = emit(rendered, options.output); status != code(Exit::ok))
            {
                return status;
            }
            return check.passed() ? code(Exit::ok) : code(Exit::findings);
        }
    }

    auto run_default_check() -> int
    {
        return run_check(CheckOptions{});
    }

    auto setup_check(CLI::App& app) -> Run
    {
        auto options = std::make_shared<CheckOptions>();
        add_input_options(app);
        add_prefix_options(app, options->selection);
        app.add_option("--env", options->env, "The environment file whose specs must be satisfied");
        app.add_option(
          "--lock", options->lock,
          "The lock to match: envcheck's, conda-lock.yml, pixi.lock or an @EXPLICIT file");
        app.add_option("--environment", options->environment,
                       "The pixi.lock environment (default: default)");
        app.add_option(
          "--platform", options->platform,
          "The platform of a multi-platform lock (default: this machine's, e.g. linux-64)");
        auto* deep = app.add_flag(
          "--deep", options->deep,
          "Also verify every installed file against its package's sha256 and size (conda "
          "records' paths_data, pip distributions' RECORD)");
        app
          .add_flag("--untracked", options->untracked,
                    "With --deep: also report files in pip distributions' directories that no "
                    "RECORD lists")
          ->needs(deep);
        app.add_flag("--no-gpu", options->no_gpu,
                     "Do not probe the driver and GPUs or measure performance");
        app
          .add_option("--perf-tolerance", options->perf_tolerances,
                      "How far a locked performance metric may drop: 15% (every metric; default "
                      "10%, or 3x the locked spread when larger) or METRIC=5% for one, such as "
                      "bandwidth.h2d_pinned_gbps=5% (repeatable)")
          ->option_text("DROP|METRIC=DROP")
          ->allow_extra_args(false);
        app.add_option("-j,--jobs", options->jobs,
                       "Threads for reading and hashing (default: one per core)");
        add_report_format_options(app, options->format, { "text", "json" });
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app.add_flag("-v,--verbose", options->verbose, "List the packages that match too");
        return [options] { return run_check(*options); };
    }
}
