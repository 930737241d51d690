#include "app/check.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "app/environment_file.hpp"
#include "app/machine_state.hpp"
#include "app/marker_python.hpp"
#include "app/spec_against_lock.hpp"
#include "checks/consistency.hpp"
#include "checks/doctor_hardware.hpp"
#include "checks/env_check.hpp"
#include "checks/lock_check.hpp"
#include "checks/perf.hpp"
#include "formats/lock.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    namespace
    {
        struct ResolvedInputs
        {
            std::string env;
            std::string lock;
        };

        // With neither env nor lock: the project's files (find_project_files), named in notes.
        auto resolve_inputs(const CheckRequest& request, const Files& files,
                            std::vector<std::string>& notes) -> util::Result<ResolvedInputs>
        {
            ResolvedInputs inputs{ request.env, request.lock };
            if (!inputs.env.empty() || !inputs.lock.empty())
            {
                return inputs;
            }
            const auto project = find_project_files(files);
            if (project.empty())
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage,
                  "nothing to check against: no --env or --lock, and no ./environment.yml or "
                  "lock here (" +
                    util::join(project.looked_for, ", ") + ")",
                  {}, "pass --env FILE and/or --lock FILE, or run in the project directory"));
            }
            if (!project.spec.empty())
            {
                inputs.env = project.spec;
                notes.push_back("using ./" + project.spec);
            }
            if (!project.lock.empty())
            {
                inputs.lock = project.lock;
                notes.push_back("using the lock beside it: ./" + project.lock);
            }
            else
            {
                notes.push_back("no lock beside it (./" + project.looked_for.front() +
                                "): package identity, machine and performance not checked; "
                                "`envcheck lock` writes one");
            }
            if (!project.other_locks.empty())
            {
                notes.push_back("also here, not used: ./" +
                                util::join(project.other_locks, ", ./") + " (the first of " +
                                util::join(project.looked_for, ", ") +
                                " is used; --lock picks another)");
            }
            return inputs;
        }

        struct ParsedTolerance
        {
            checks::PerfTolerance tolerance;
            std::vector<std::string> named; // the metrics --perf-tolerance names
        };

        // --perf-tolerance, over the configuration's tolerances.
        auto parse_perf_tolerance(const std::vector<std::string>& texts,
                                  const config::CheckConfig& configured)
          -> util::Result<ParsedTolerance>
        {
            ParsedTolerance parsed;
            for (const auto& text : texts)
            {
                if (auto applied = checks::apply_perf_tolerance(parsed.tolerance, text); !applied)
                {
                    return util::unexpected(applied.error());
                }
            }
            for (const auto& [metric, value] : parsed.tolerance.per_metric)
            {
                parsed.named.push_back(metric);
            }
            for (const auto& [metric, setting] : configured.tolerances)
            {
                parsed.tolerance.per_metric.try_emplace(metric, setting.value);
            }
            return parsed;
        }

        // Every metric --perf-tolerance names must be one the lock has a baseline for (the
        // configuration's may name metrics of other locks).
        auto check_tolerance_keys(const std::vector<std::string>& named,
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
            for (const auto& key : named)
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

        struct CheckInputs
        {
            std::optional<LoadedEnvironmentFile> environment_file;
            std::optional<model::Lock> lock;
            std::string lock_text; // kept for select_for_python
        };

        // Reads every input before anything is compared: unreadable input is exit 2.
        auto load_inputs(const ResolvedInputs& inputs, const CheckRequest& request,
                         const std::string& platform,
                         const std::vector<std::string>& named_tolerances, Files& files,
                         model::EnvironmentCheck& check) -> util::Result<CheckInputs>
        {
            CheckInputs loaded;
            if (!inputs.env.empty())
            {
                auto file = load_environment_file(inputs.env, files);
                if (!file)
                {
                    return util::unexpected(file.error());
                }
                loaded.environment_file = std::move(*file);
                check.environment_file = inputs.env;
            }
            if (inputs.lock.empty())
            {
                return loaded;
            }
            auto text = files.read_input(inputs.lock);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            auto lock = formats::parse_any_lock(
              *text, inputs.lock, { platform, request.environment, request.categories });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            if (auto known = check_tolerance_keys(
                  named_tolerances, lock->performance.value_or(std::vector<model::PerfBaseline>{}));
                !known)
            {
                return util::unexpected(known.error());
            }
            check.lock_file = inputs.lock;
            check.lock_format = std::string(model::to_string(lock->format));
            if (formats::selects_by_python(lock->format))
            {
                loaded.lock_text = std::move(*text);
            }
            else
            {
                check.notes.insert(check.notes.end(), lock->notes.begin(), lock->notes.end());
            }
            loaded.lock = std::move(*lock);
            return loaded;
        }

        // The packages of a uv.lock or pylock.toml for the installed environment's python: they
        // select by markers, for a python only the environment names. load_inputs read the text
        // once (every error found before anything else is read); it is read again here.
        auto select_for_python(CheckInputs& inputs, const CheckRequest& request,
                               const std::string& platform,
                               const model::InstalledEnvironment& installed,
                               model::EnvironmentCheck& check) -> util::Result<void>
        {
            if (!inputs.lock || !formats::selects_by_python(inputs.lock->format))
            {
                return {};
            }
            if (installed.python_version)
            {
                auto lock = formats::parse_any_lock(
                  inputs.lock_text, check.lock_file.value_or(""),
                  { platform, request.environment, request.categories, *installed.python_version });
                if (!lock)
                {
                    return util::unexpected(lock.error());
                }
                inputs.lock = std::move(*lock);
            }
            check.notes.insert(check.notes.end(), inputs.lock->notes.begin(),
                               inputs.lock->notes.end());
            return {};
        }

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

        // The workers as a pure module's independent items (which runs the few serially:
        // util::for_each_if_worth).
        auto shared_work(Ports& ports, unsigned jobs) -> util::ForEachIndex
        {
            return [&ports, jobs](std::size_t count, const util::IndexWork& run)
            { ports.workers.for_each(count, jobs, run); };
        }

        auto failed_perf(std::string message, std::string fix = {}) -> model::CheckOutcome
        {
            model::CheckOutcome outcome;
            outcome.id = "perf";
            outcome.status = model::Status::fail;
            outcome.message = std::move(message);
            outcome.fix = std::move(fix);
            return outcome;
        }

        // A second smoke run of the probes whose metrics dropped, on the GPUs they dropped on,
        // and the drops compared again with it (checks::confirm_drops): a transient drop does
        // not fail the check. Costs a second child (a CUDA context) only when something dropped.
        void confirm_drops(const std::vector<model::PerfBaseline>& baselines,
                           const MachineState& state, const checks::PerfTolerance& tolerance,
                           const std::map<int, std::string>& busy, Ports& ports,
                           std::map<int, std::vector<checks::PerfComparison>>& compared,
                           std::vector<std::string>& notes)
        {
            SmokeRunRequest again = quick_on_every_gpu();
            std::vector<int> dropped_on;
            for (const auto& [index, comparisons] : compared)
            {
                const auto probes = checks::probes_to_measure_again(comparisons);
                for (const auto& probe : probes)
                {
                    if (std::find(again.probes.begin(), again.probes.end(), probe) ==
                        again.probes.end())
                    {
                        again.probes.push_back(probe);
                    }
                }
                if (!probes.empty())
                {
                    dropped_on.push_back(index);
                }
            }
            if (dropped_on.empty())
            {
                return;
            }
            if (dropped_on.size() == 1)
            {
                again.device = dropped_on.front();
            }
            const auto report = ports.smoke.start(again)->proceed(busy);
            for (const auto& baseline : baselines)
            {
                const auto comparisons = compared.find(baseline.device_index);
                const auto* device = report.device(baseline.device_index);
                if (comparisons == compared.end() || device == nullptr)
                {
                    continue;
                }
                comparisons->second = checks::confirm_drops(
                  std::move(comparisons->second), baseline, *device,
                  perf_context(state.facts, baseline.device_index), tolerance);
                // A pass that hides a drop: said, since it cost a second run and may recur.
                for (const auto& comparison : comparisons->second)
                {
                    if (comparison.at_first && comparison.status != model::Status::fail)
                    {
                        notes.push_back("GPU " + std::to_string(baseline.device_index) + ": " +
                                        comparison.message + ", a transient drop");
                    }
                }
            }
        }

        // "Performs as locked": the quick smoke run, started before the machine was probed,
        // against every locked baseline; a drop is measured again before it fails.
        auto compare_performance(const std::vector<model::PerfBaseline>& baselines,
                                 const MachineState& state, const checks::PerfTolerance& tolerance,
                                 bool even_if_busy, PendingSmoke& smoke, Ports& ports,
                                 std::vector<std::string>& notes)
          -> std::vector<model::CheckOutcome>
        {
            const auto busy = gpus_to_spare(quick_on_every_gpu(), state.facts, even_if_busy);
            const auto report = smoke.proceed(busy);
            // Every locked GPU busy: nothing was to be measured, whatever the probes could do.
            const bool measures_any = std::any_of(
              baselines.begin(), baselines.end(),
              [&](const auto& baseline) { return !busy.contains(baseline.device_index); });
            if (measures_any && report.availability != model::GpuAvailability::available)
            {
                return { failed_perf(
                  "the lock records performance baselines, but no GPU could be probed: " +
                    report.diagnosis,
                  "run on the locked machine, or pass --no-gpu to check the packages only") };
            }
            std::map<int, std::vector<checks::PerfComparison>> compared;
            for (const auto& baseline : baselines)
            {
                const auto* device = report.device(baseline.device_index);
                if (device != nullptr && !busy.contains(baseline.device_index))
                {
                    compared[baseline.device_index] = checks::compare_performance(
                      baseline, *device, perf_context(state.facts, baseline.device_index),
                      tolerance);
                }
            }
            confirm_drops(baselines, state, tolerance, busy, ports, compared, notes);
            std::vector<model::CheckOutcome> outcomes;
            for (const auto& baseline : baselines)
            {
                if (const auto reason = busy.find(baseline.device_index); reason != busy.end())
                {
                    auto spared = failed_perf(reason->second);
                    spared.status = model::Status::skip;
                    spared.labels["gpu"] = std::to_string(baseline.device_index);
                    outcomes.push_back(std::move(spared));
                    continue;
                }
                const auto comparisons = compared.find(baseline.device_index);
                if (comparisons == compared.end())
                {
                    outcomes.push_back(failed_perf("GPU " + std::to_string(baseline.device_index) +
                                                   " (" + baseline.device_name +
                                                   ") has a baseline but is not on this machine"));
                    continue;
                }
                auto device_outcomes =
                  checks::to_check_outcomes(comparisons->second, baseline.device_index);
                outcomes.insert(outcomes.end(), device_outcomes.begin(), device_outcomes.end());
            }
            return outcomes;
        }

        // The machine part of a lock: envcheck's locks record the whole machine; the other
        // formats at most the platform.
        auto compare_machine(const model::Lock& lock, const MachineState& state,
                             const std::string& platform_here) -> std::vector<model::CheckOutcome>
        {
            if (lock.format == model::LockFormat::envcheck)
            {
                return checks::compare_machine(lock.machine, state.machine);
            }
            if (!lock.machine.platform)
            {
                return {};
            }
            model::LockedMachine platform_only;
            platform_only.platform = lock.machine.platform;
            model::LockedMachine here;
            here.platform = platform_here;
            return { checks::compare_machine(platform_only, here).front() };
        }

        // The hardware gates (Xid, ECC, links, GPU count against the lock's GPUs or the expected
        // count) after the machine's other outcomes.
        void add_hardware_gates(const model::MachineFacts& facts, const CheckRequest& request,
                                const std::optional<std::vector<model::LockedGpu>>& locked_gpus,
                                model::EnvironmentCheck& check)
        {
            auto gates = checks::run_hardware_gates(
              checks::DoctorInput{ facts, std::nullopt, request.hardware, locked_gpus });
            check.machine.insert(check.machine.end(), std::make_move_iterator(gates.begin()),
                                 std::make_move_iterator(gates.end()));
        }

        // The quick smoke run "performs as locked" needs, started as soon as the lock is read:
        // its child loads the driver (cuInit: 0.1 to 0.2 s on an H200) while the environment is
        // read and the machine probed, and opens the GPUs only once NVML has said that nobody else
        // computes on them (early_go_ahead), or the whole probe which to spare. None with
        // --no-gpu, or without baselines to compare.
        auto start_smoke_for(const CheckInputs& inputs, const CheckRequest& request, Ports& ports)
          -> std::unique_ptr<PendingSmoke>
        {
            const bool has_baselines =
              inputs.lock && inputs.lock->performance && !inputs.lock->performance->empty();
            if (!has_baselines || request.no_gpu)
            {
                return nullptr;
            }
            auto smoke = ports.smoke.start(quick_on_every_gpu());
            if (request.even_if_busy)
            {
                smoke->go({}); // nothing to wait for: no GPU is spared
            }
            return smoke;
        }

        // Packages, machine and performance against the lock; returns the machine facts when
        // the driver and GPUs were probed.
        // `draft`: the lock's package findings, drafted beside the consistency check.
        auto check_against_lock(model::Lock& lock, checks::LockFindingsDraft draft,
                                const CheckInputs& inputs, model::InstalledEnvironment& installed,
                                const CheckRequest& request, const checks::PerfTolerance& tolerance,
                                PendingSmoke* smoke, Ports& ports, model::EnvironmentCheck& check)
          -> std::optional<model::MachineFacts>
        {
            // The packages move into the findings, which are all that is read of them from here
            // on (issue 19: copying them was a tenth of checking 10,000 records).
            check.packages =
              checks::merge_findings(std::move(check.packages),
                                     checks::finish_lock_findings(
                                       std::move(draft), std::exchange(installed.packages, {})));
            const auto& file = inputs.environment_file;
            if (file && lock.environment_file && lock.environment_file->sha256 != file->sha256)
            {
                check.notes.push_back(file->path +
                                      " changed after the lock was written (sha256 differs): "
                                      "re-lock once the environment matches it");
            }
            // The driver and GPUs are probed only when the lock has something to compare them
            // with: a lock made without a GPU (or with --no-gpu) records them as unknown.
            const bool has_baselines = lock.performance && !lock.performance->empty();
            const bool lock_knows_gpu = lock.machine.driver_version ||
                                        lock.machine.cuda_driver_version || lock.machine.gpus ||
                                        has_baselines;
            // The smoke run's go-ahead as soon as NVML says nobody else computes; with
            // --even-if-busy it was given when the run started.
            const auto state =
              current_machine(!request.no_gpu && lock_knows_gpu, installed.python_version, ports,
                              smoke != nullptr ? early_go_ahead(*smoke) : NvmlHeard{});
            check.machine = compare_machine(lock, state, ports.machine.platform());
            if (state.facts)
            {
                add_hardware_gates(*state.facts, request, lock.machine.gpus, check);
            }
            if (has_baselines && request.no_gpu)
            {
                check.notes.push_back(
                  "--no-gpu: the lock's performance baselines were not measured");
            }
            else if (smoke)
            {
                check.performance =
                  compare_performance(*lock.performance, state, tolerance, request.even_if_busy,
                                      *smoke, ports, check.notes);
            }
            return state.facts;
        }

        // Everything against the installed environment: the environment file's specs, the lock
        // (packages, machine, performance) and, deep, every file. Returns the machine facts
        // when the driver and GPUs were probed. The lock's and the environment's packages end
        // up in the findings.
        auto compare(CheckInputs& inputs, model::InstalledEnvironment& installed,
                     const std::string& prefix, const std::string& platform,
                     const CheckRequest& request, const checks::PerfTolerance& tolerance,
                     PendingSmoke* smoke, Ports& ports, model::EnvironmentCheck& check)
          -> util::Result<std::optional<model::MachineFacts>>
        {
            check.problems = installed.problems;
            if (const auto& file = inputs.environment_file)
            {
                auto result =
                  checks::check_environment_file(file->file, file->path, installed, platform);
                if (!result)
                {
                    return util::unexpected(result.error());
                }
                check.packages = std::move(result->packages);
                check.notes.insert(check.notes.end(), result->notes.begin(), result->notes.end());
            }
            // Like `pip check` and conda's consistency check: every installed package's own
            // requirements against the rest of the environment; beside it, the lock's package
            // findings, both only reading the installed packages (issue 19: one after the
            // other, they were a third of checking 5,000 records on two cores).
            checks::ConsistencyCheck consistency;
            std::optional<checks::LockFindingsDraft> draft;
            ports.workers.for_each(2, request.jobs,
                                   [&](std::size_t part)
                                   {
                                       if (part == 0)
                                       {
                                           consistency = checks::check_consistency(
                                             installed, platform, shared_work(ports, request.jobs));
                                       }
                                       else if (inputs.lock)
                                       {
                                           draft = checks::draft_lock_findings(
                                             std::exchange(inputs.lock->packages, {}),
                                             std::exchange(inputs.lock->optional_packages, {}),
                                             installed.packages, shared_work(ports, request.jobs));
                                       }
                                   });
            check.packages.insert(check.packages.end(),
                                  std::make_move_iterator(consistency.packages.begin()),
                                  std::make_move_iterator(consistency.packages.end()));
            check.notes.insert(check.notes.end(), consistency.notes.begin(),
                               consistency.notes.end());
            std::optional<model::MachineFacts> facts;
            if (inputs.lock)
            {
                facts = check_against_lock(*inputs.lock, std::move(draft).value(), inputs,
                                           installed, request, tolerance, smoke, ports, check);
            }
            if (request.deep)
            {
                auto verified =
                  ports.prefixes.verify(prefix, installed.files, request.jobs, request.untracked);
                check.files = std::move(verified.findings);
                check.deep_summary = verified.summary;
            }
            return facts;
        }

        // An expected GPU count (--expect-gpus, the configuration's check.gpu-count) with no
        // lock that made the GPUs probed: probe them and run the hardware gates, gpu.count among
        // them, as check --lock does.
        void check_expected_gpus(const CheckRequest& request,
                                 const model::InstalledEnvironment& installed,
                                 std::optional<model::MachineFacts>& facts, Ports& ports,
                                 model::EnvironmentCheck& check)
        {
            if (!request.hardware.expected_gpu_count || facts)
            {
                return;
            }
            if (request.no_gpu)
            {
                check.notes.push_back("--no-gpu: the expected GPU count (" +
                                      std::to_string(*request.hardware.expected_gpu_count) +
                                      ") was not checked");
                return;
            }
            facts = current_machine(true, installed.python_version, ports).facts;
            if (!facts)
            {
                return;
            }
            add_hardware_gates(*facts, request, std::nullopt, check);
        }

        // `with_runs`: CheckRequest::fleet_runs.
        auto fleet_view(const model::EnvironmentCheck& check,
                        const std::optional<model::MachineFacts>& facts, const RunClock& clock,
                        bool with_runs) -> FleetView
        {
            FleetView fleet{ {}, facts ? node_features_from(*facts) : report::NodeFeatures{} };
            if (with_runs)
            {
                fleet.runs.push_back(model::to_check_run(check));
                clock.stamp(fleet.runs.front());
            }
            fleet.features.lock_matches = check.passed();
            return fleet;
        }
    }

    namespace
    {
        // Whether to check env against lock alone: asked for, or both given and no environment
        // selected or active.
        auto without_prefix(const CheckRequest& request, const PrefixSelection& selection,
                            const ResolvedInputs& inputs, Prefixes& prefixes) -> bool
        {
            if (request.no_prefix)
            {
                return true;
            }
            return !inputs.env.empty() && !inputs.lock.empty() && selection.prefix.empty() &&
                   selection.name.empty() && !prefixes.locate(selection);
        }

        // Nothing selected or activated, and pixi has installed the project's environment:
        // that one (README "What envcheck with no command does").
        auto pixi_selection(const PrefixSelection& selection, Ports& ports) -> bool
        {
            return selection.prefix.empty() && selection.name.empty() &&
                   variable(ports.environment, "VIRTUAL_ENV").empty() &&
                   variable(ports.environment, "CONDA_PREFIX").empty() &&
                   ports.files.is_directory(pixi_default_prefix);
        }

        auto check_lock_against_env(const ResolvedInputs& inputs, const CheckRequest& request,
                                    Ports& ports, model::EnvironmentCheck& check)
          -> util::Result<void>
        {
            Files& files = ports.files;
            if (inputs.env.empty() || inputs.lock.empty() || request.deep)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage,
                  "without an installed environment, check compares --env with --lock: pass "
                  "both" +
                    std::string(request.deep ? ", and no --deep (no files to verify)" : "")));
            }
            auto file = load_environment_file(inputs.env, files);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            const auto text = files.read_input(inputs.lock);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            check.environment_file = inputs.env;
            check.lock_file = inputs.lock;
            check.notes.push_back("no installed environment: the specs of " + inputs.env +
                                  " against the packages of " + inputs.lock);
            formats::LockSelection python;
            MarkerPython(request.python, ports.frameworks).apply(*text, inputs.lock, python);
            return check_specs_against_lock(*file, *text,
                                            { inputs.lock, request.environment, request.categories,
                                              request.platform, ports.machine.platform(),
                                              python.python_version, python.python_source },
                                            check);
        }
    }

    auto CheckOutcome::verdict() const -> Verdict
    {
        return check.passed() ? Verdict::clean : Verdict::findings;
    }

    auto run_check(const CheckRequest& request, Ports& ports) -> util::Result<CheckOutcome>
    {
        const RunClock clock(ports.clock);
        const auto tolerances = parse_perf_tolerance(request.perf_tolerances, request.config);
        if (!tolerances)
        {
            return util::unexpected(tolerances.error());
        }
        const checks::PerfTolerance& tolerance = tolerances->tolerance;
        model::EnvironmentCheck check;
        check.deep = request.deep;
        const auto resolved = resolve_inputs(request, ports.files, check.notes);
        if (!resolved)
        {
            return util::unexpected(resolved.error());
        }
        PrefixSelection selection = request.selection;
        const bool pixi = pixi_selection(selection, ports);
        if (pixi)
        {
            selection.prefix = pixi_default_prefix;
        }
        if (without_prefix(request, selection, *resolved, ports.prefixes))
        {
            if (auto compared = check_lock_against_env(*resolved, request, ports, check); !compared)
            {
                return util::unexpected(compared.error());
            }
            auto fleet = fleet_view(check, std::nullopt, clock, request.fleet_runs);
            return CheckOutcome{ std::move(check), std::move(fleet) };
        }
        const auto located = ports.prefixes.locate(selection);
        if (!located)
        {
            return util::unexpected(located.error());
        }
        check.prefix = located->path;
        if (pixi)
        {
            check.notes.push_back(std::string("environment from ./") + pixi_default_prefix +
                                  " (pixi's default environment; none is activated)");
        }
        else if (located->how != "--prefix")
        {
            check.notes.push_back("environment from " + located->how);
        }
        const std::string platform =
          request.platform.empty() ? ports.machine.platform() : request.platform;
        // The environment file and lock are read while the prefix is: at 10,000 records the
        // lock alone is a tenth of the work (issue 19).
        std::optional<util::Result<CheckInputs>> inputs;
        std::optional<util::Result<model::InstalledEnvironment>> installed;
        ports.workers.for_each(2, request.jobs,
                               [&](std::size_t part)
                               {
                                   if (part == 0)
                                   {
                                       inputs = load_inputs(*resolved, request, platform,
                                                            tolerances->named, ports.files, check);
                                   }
                                   else
                                   {
                                       installed = ports.prefixes.read(
                                         located->path,
                                         PrefixReadOptions{ request.deep, request.jobs });
                                   }
                               });
        if (!*inputs)
        {
            return util::unexpected(inputs->error());
        }
        if (!*installed)
        {
            return util::unexpected(installed->error());
        }
        // Started with the workers joined: the smoke test's child is forked and runs without
        // exec, so no other thread of ours may hold a lock at that moment.
        const auto smoke = start_smoke_for(**inputs, request, ports);
        if (auto selected = select_for_python(**inputs, request, platform, **installed, check);
            !selected)
        {
            return util::unexpected(selected.error());
        }
        auto facts = compare(**inputs, **installed, located->path, platform, request, tolerance,
                             smoke.get(), ports, check);
        if (!facts)
        {
            return util::unexpected(facts.error());
        }
        check_expected_gpus(request, **installed, *facts, ports, check);
        auto fleet = fleet_view(check, *facts, clock, request.fleet_runs);
        return CheckOutcome{ std::move(check), std::move(fleet) };
    }
}
