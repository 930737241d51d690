#include "app/slurm_health.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "app/machine_state.hpp"
#include "checks/doctor.hpp"
#include "checks/lock_check.hpp"
#include "checks/slurm_health.hpp"
#include "checks/slurm_policy.hpp"
#include "formats/lock.hpp"
#include "formats/slurm_node.hpp"

namespace envcheck::app
{
    namespace
    {
        struct LockCheck
        {
            checks::DoctorEnvironment environment; // the lock's packages, for env.* checks
            model::CheckRun run;
            std::optional<std::vector<model::LockedGpu>> gpus; // gpu.count
        };

        // The installed environment against the lock: packages and the machine's OS facts, the
        // fast path of `check --no-gpu` (no GPU measurement, no file hashing).
        auto check_against_lock(const SlurmHealthRequest& request, Ports& ports)
          -> util::Result<LockCheck>
        {
            const auto text = ports.files.read_file(request.lock);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            const std::string platform =
              request.platform.empty() ? ports.machine.platform() : request.platform;
            auto lock = formats::parse_any_lock(*text, request.lock, { platform, "default" });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            const auto located = ports.prefixes.locate(request.selection);
            if (!located)
            {
                return util::unexpected(located.error());
            }
            const auto installed = ports.prefixes.read(located->path, PrefixReadOptions{});
            if (!installed)
            {
                return util::unexpected(installed.error());
            }
            model::EnvironmentCheck check;
            check.prefix = located->path;
            check.lock_file = request.lock;
            check.problems = installed->problems;
            check.packages = checks::compare_to_lock(*lock, *installed);
            if (lock->format == model::LockFormat::envcheck)
            {
                const auto here = current_machine(false, installed->python_version, ports);
                check.machine = checks::compare_machine(lock->machine, here.machine);
            }
            checks::DoctorEnvironment environment;
            environment.source = "--lock " + request.lock;
            environment.packages = lock->packages;
            environment.framework_check_skipped =
              "slurm-health does not run the environment's python";
            return LockCheck{ std::move(environment), model::to_check_run(check),
                              lock->machine.gpus };
        }

        auto scontrol_failed(const util::Error& error) -> util::Error
        {
            auto failed = error;
            failed.kind = util::ErrorKind::io;
            failed.message = "scontrol failed: " + error.message;
            return failed;
        }

        auto apply(const checks::SlurmDecision& decision, const std::string& node,
                   const ScontrolCall& call, Slurm& slurm) -> util::Result<void>
        {
            switch (decision.action)
            {
                case checks::SlurmAction::drain:
                    return slurm.drain_node(node, decision.reason, call);
                case checks::SlurmAction::resume:
                    return slurm.resume_node(node, call);
                case checks::SlurmAction::none:
                    break;
            }
            return {};
        }

        // The checks of the node: the doctor's, then the lock's.
        struct NodeChecks
        {
            std::vector<model::CheckRun> runs;
            report::NodeFeatures features;
        };

        auto run_node_checks(const SlurmHealthRequest& request,
                             const checks::SlurmHealthBudget& budget, Ports& ports)
          -> util::Result<NodeChecks>
        {
            const RunClock clock(ports.clock);
            // Inputs first: an unreadable lock or prefix is a usage error, not a sick node.
            std::optional<LockCheck> lock_check;
            if (!request.lock.empty())
            {
                auto checked = check_against_lock(request, ports);
                if (!checked)
                {
                    return util::unexpected(checked.error());
                }
                lock_check = std::move(*checked);
            }
            // The hook's own CUDA_VISIBLE_DEVICES ('' or NoDevFiles in a job without GPUs) is a
            // property of the calling process, not of the node.
            auto machine = probe_machine(request.root,
                                         std::chrono::duration<double>(budget.driver_probe).count(),
                                         ports, checks::node_level_variables(ports.environment));
            if (!machine)
            {
                return util::unexpected(machine.error());
            }
            checks::DoctorInput input{ std::move(machine).value(), std::nullopt, request.hardware,
                                       std::nullopt };
            if (lock_check)
            {
                input.environment = lock_check->environment;
                input.locked_gpus = lock_check->gpus;
            }
            const auto doctor = checks::run_doctor(input);
            NodeChecks checked{ { { "doctor", doctor.outcomes, 0.0, 0.0 } },
                                node_features_from(input.machine) };
            checked.features.cuda_usable = doctor.passed();
            if (lock_check)
            {
                checked.runs.push_back(lock_check->run);
                checked.features.lock_matches = lock_check->run.passed();
            }
            for (auto& run : checked.runs)
            {
                clock.stamp(run);
            }
            return checked;
        }
    }

    auto SlurmHealthOutcome::verdict() const -> Verdict
    {
        const bool passed = std::all_of(view.runs.begin(), view.runs.end(),
                                        [](const model::CheckRun& run) { return run.passed(); });
        return passed ? Verdict::clean : Verdict::findings;
    }

    auto run_slurm_health(const SlurmHealthRequest& request, Ports& ports)
      -> util::Result<SlurmHealthOutcome>
    {
        const auto hook =
          request.prolog ? checks::SlurmHook::prolog : checks::SlurmHook::health_check;
        const auto budget = checks::slurm_health_budget(
          std::chrono::milliseconds(static_cast<long long>(request.timeout_seconds * 1000.0)));
        const std::string node = checks::slurm_node_name(
          request.node, variable(ports.environment, "SLURMD_NODENAME"), ports.machine.hostname());
        if (node.empty())
        {
            return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                     "no node name: the host name is empty", {},
                                                     "pass --node NAME"));
        }
        if (auto problem = formats::single_node_name_problem(node); !problem.empty())
        {
            return util::unexpected(util::make_error(util::ErrorKind::usage, std::move(problem), {},
                                                     "pass --node with one node's name"));
        }
        auto checked = run_node_checks(request, budget, ports);
        if (!checked)
        {
            return util::unexpected(checked.error());
        }
        const ScontrolCall call{ request.scontrol, budget.scontrol_call };
        std::optional<formats::SlurmNode> state;
        if (checks::needs_node_state(hook, checked->runs))
        {
            auto shown = ports.slurm.show_node(node, call);
            if (!shown)
            {
                return util::unexpected(scontrol_failed(shown.error()));
            }
            state = std::move(*shown);
        }
        const auto decision = checks::decide_slurm_hook_action(state, checked->runs);
        if (!request.dry_run)
        {
            if (auto applied = apply(decision, node, call, ports.slurm); !applied)
            {
                return util::unexpected(scontrol_failed(applied.error()));
            }
        }
        SlurmHealthOutcome outcome;
        auto& view = outcome.view;
        view.node = node;
        view.hook = std::string(checks::to_string(hook));
        view.runs = checked->runs;
        if (state)
        {
            view.state = report::SlurmNodeView{ state->states, state->reason };
        }
        view.action = std::string(checks::to_string(decision.action));
        view.drain_reason = decision.reason;
        view.explanation = decision.explanation;
        view.dry_run = request.dry_run;
        outcome.fleet = FleetView{ std::move(checked->runs), std::move(checked->features) };
        return outcome;
    }
}
