// envcheck slurm-health: the doctor's machine checks (and, with --lock, the installed
// environment against its lock) as a Slurm HealthCheckProgram or Prolog. A failing check drains
// the node with the reason "envcheck: <check>: <message>"; a node envcheck drained is resumed
// once its checks pass; drains set by anyone else are left alone (checks/slurm_policy.hpp).
// Scripts for slurm.conf: envs/fleet/slurm/.
//
// Exit codes: 0 the checks pass; 1 a check failed (a Prolog's non-zero exit makes Slurm drain
// the node and requeue the job); 2 bad usage, an unreadable lock or prefix, or scontrol that
// cannot be run.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checks/doctor.hpp"
#include "checks/lock_check.hpp"
#include "checks/slurm_health.hpp"
#include "checks/slurm_policy.hpp"
#include "cli/cmd_check.hpp"
#include "cli/cmd_probe.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fleet_output.hpp"
#include "cli/output.hpp"
#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "model/environment.hpp"
#include "prefix/locate.hpp"
#include "prefix/reader.hpp"
#include "report/slurm_health_report.hpp"
#include "slurm/scontrol.hpp"
#include "system/host.hpp"
#include "system/system_root.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct SlurmHealthOptions
        {
            std::string node;
            std::string root = "/";
            std::string lock;
            PrefixSelection selection;
            std::string platform;
            bool prolog = false;
            bool dry_run = false;
            std::string scontrol = "scontrol";
            double timeout_seconds = 40.0;
            ReportFormatChoice format;
            std::string output;
        };

        struct LockCheck
        {
            checks::DoctorEnvironment environment; // the lock's packages, for env.* checks
            model::CheckRun run;
        };

        // The installed environment against the lock: packages and the machine's OS facts, the
        // fast path of `check --no-gpu` (no GPU measurement, no file hashing).
        auto check_against_lock(const SlurmHealthOptions& options,
                                const system::Environment& variables) -> util::Result<LockCheck>
        {
            const auto text = fsio::read_file(options.lock);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            const std::string platform =
              options.platform.empty() ? prefix::current_platform() : options.platform;
            auto lock = formats::parse_any_lock(*text, options.lock, { platform, "default" });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            const auto located = locate_environment(options.selection, variables);
            if (!located)
            {
                return util::unexpected(located.error());
            }
            const auto installed = prefix::read_prefix(located->path);
            if (!installed)
            {
                return util::unexpected(installed.error());
            }
            model::EnvironmentCheck check;
            check.prefix = located->path;
            check.lock_file = options.lock;
            check.problems = installed->problems;
            check.packages = checks::compare_to_lock(*lock, *installed);
            if (lock->format == model::LockFormat::envcheck)
            {
                const auto here = current_machine(false, installed->python_version, variables);
                check.machine = checks::compare_machine(lock->machine, here.machine);
            }
            checks::DoctorEnvironment environment;
            environment.source = "--lock " + options.lock;
            environment.packages = lock->packages;
            environment.framework_check_skipped =
              "slurm-health does not run the environment's python";
            return LockCheck{ std::move(environment), model::to_check_run(check) };
        }

        auto scontrol_failed(const util::Error& error) -> int
        {
            auto failed = error;
            failed.kind = util::ErrorKind::io;
            failed.message = "scontrol failed: " + error.message;
            return report_error(failed);
        }

        auto apply(const checks::SlurmDecision& decision, const std::string& node,
                   const slurm::ScontrolOptions& scontrol) -> util::Result<void>
        {
            switch (decision.action)
            {
                case checks::SlurmAction::drain:
                    return slurm::drain_node(node, decision.reason, scontrol);
                case checks::SlurmAction::resume:
                    return slurm::resume_node(node, scontrol);
                case checks::SlurmAction::none:
                    break;
            }
            return {};
        }

        auto run_slurm_health(const SlurmHealthOptions& options) -> int
        {
            const RunClock clock;
            const auto hook =
              options.prolog ? checks::SlurmHook::prolog : checks::SlurmHook::health_check;
            const auto budget = checks::slurm_health_budget(
              std::chrono::milliseconds(static_cast<long long>(options.timeout_seconds * 1000.0)));
            // The hook's own CUDA_VISIBLE_DEVICES ('' or NoDevFiles in a job without GPUs) is a
            // property of this process, not of the node: neither the checks nor the probe
            // children see it.
            ::unsetenv("CUDA_VISIBLE_DEVICES");
            const auto variables = checks::node_level_variables(system::read_environment());
            const auto slurmd_nodename = variables.find("SLURMD_NODENAME");
            const std::string node = checks::slurm_node_name(
              options.node,
              slurmd_nodename == variables.end() ? std::string() : slurmd_nodename->second,
              system::read_hostname(system::SystemRoot("/")));
            if (node.empty())
            {
                return report_error(util::make_error(util::ErrorKind::usage,
                                                     "no node name: the host name is empty", {},
                                                     "pass --node NAME"));
            }
            if (auto problem = formats::single_node_name_problem(node); !problem.empty())
            {
                return report_error(util::make_error(util::ErrorKind::usage, std::move(problem), {},
                                                     "pass --node with one node's name"));
            }

            // Inputs first: an unreadable lock or prefix is a usage error, not a sick node.
            std::optional<LockCheck> lock_check;
            if (!options.lock.empty())
            {
                auto checked = check_against_lock(options, variables);
                if (!checked)
                {
                    return report_error(checked.error());
                }
                lock_check = std::move(*checked);
            }
            auto machine = probe_this_machine(
              options.root, std::chrono::duration<double>(budget.driver_probe).count(), variables);
            if (!machine)
            {
                return report_error(machine.error());
            }
            checks::DoctorInput input{ std::move(machine).value(), std::nullopt };
            if (lock_check)
            {
                input.environment = lock_check->environment;
            }
            const auto doctor = checks::run_doctor(input);
            std::vector<model::CheckRun> runs{ { "doctor", doctor.outcomes, 0.0, 0.0 } };
            if (lock_check)
            {
                runs.push_back(lock_check->run);
            }
            for (auto& run : runs)
            {
                clock.stamp(run);
            }

            const slurm::ScontrolOptions scontrol{ options.scontrol, budget.scontrol_call };
            std::optional<formats::SlurmNode> state;
            if (checks::needs_node_state(hook, runs))
            {
                auto shown = slurm::show_node(node, scontrol);
                if (!shown)
                {
                    return scontrol_failed(shown.error());
                }
                state = std::move(*shown);
            }
            const auto decision = checks::decide_slurm_hook_action(state, runs);
            if (!options.dry_run)
            {
                if (auto applied = apply(decision, node, scontrol); !applied)
                {
                    return scontrol_failed(applied.error());
                }
            }

            report::SlurmHealthView view;
            view.node = node;
            view.hook = std::string(checks::to_string(hook));
            view.runs = runs;
            if (state)
            {
                view.state = report::SlurmNodeView{ state->states, state->reason };
            }
            view.action = std::string(checks::to_string(decision.action));
            view.drain_reason = decision.reason;
            view.explanation = decision.explanation;
            view.dry_run = options.dry_run;
            const std::string log = report::render_slurm_health_text(view);
            std::string rendered;
            if (options.format.name == "text")
            {
                rendered = log;
            }
            else if (options.format.name == "json")
            {
                rendered = report::render_slurm_health_json(view);
            }
            else
            {
                auto features = node_features_from(input.machine);
                features.cuda_usable = doctor.passed();
                if (lock_check)
                {
                    features.lock_matches = lock_check->run.passed();
                }
                rendered = render_fleet_report(options.format.name, runs, features,
                                               options.format.expiry_seconds);
            }
            if (const int status = emit(rendered, options.output); status != code(Exit::ok))
            {
                return status;
            }
            // The action lines go to slurmd's log whatever the report's format: on stdout when
            // the report went to a file, else on stderr beside it.
            if (options.format.name != "text")
            {
                (options.output.empty() || options.output == "-" ? std::cerr : std::cout) << log;
            }
            const bool passed = std::all_of(
              runs.begin(), runs.end(), [](const model::CheckRun& run) { return run.passed(); });
            return passed ? code(Exit::ok) : code(Exit::findings);
        }
    }

    auto setup_slurm_health(CLI::App& app) -> Run
    {
        auto options = std::make_shared<SlurmHealthOptions>();
        app
          .add_option("--node", options->node,
                      "The Slurm node to act on (default $SLURMD_NODENAME, else the short host "
                      "name)")
          ->option_text("NAME");
        add_root_option(app, options->root);
        auto* lock = app
                       .add_option("--lock", options->lock,
                                   "Also check the installed environment against this lock "
                                   "(packages and OS; no GPU measurement)")
                       ->option_text("FILE");
        add_prefix_options(app, options->selection);
        app.get_option("--prefix")->needs(lock);
        app.get_option("--name")->needs(lock);
        app.add_option("--platform", options->platform,
                       "The platform of a multi-platform lock (default: this machine's)");
        app.add_flag("--prolog", options->prolog,
                     "Run as Slurm's Prolog: ask scontrol only when a check failed (exit 1 makes "
                     "Slurm drain the node and requeue the job)");
        app.add_flag("--dry-run", options->dry_run,
                     "Print what would be done to the node; change nothing");
        app
          .add_option("--scontrol", options->scontrol,
                      "The scontrol program (default: scontrol from PATH)")
          ->option_text("PATH");
        app
          .add_option("--timeout", options->timeout_seconds,
                      "Seconds the whole run may take, driver probe and scontrol included "
                      "(default 40; slurmd kills a health check after 60)")
          ->check(CLI::Range(5.0, 3600.0));
        add_report_format_options(app, options->format, { "text", "json" });
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically); the action lines still go "
                       "to stdout");
        return [options] { return run_slurm_health(*options); };
    }
}
