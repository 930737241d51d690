// envcheck slurm-health (app/slurm_health.hpp): the doctor's machine checks (and, with --lock,
// the installed environment against its lock) as a Slurm HealthCheckProgram or Prolog, draining
// and resuming the node. Scripts for slurm.conf: envs/fleet/slurm/.
//
// Exit codes: 0 the checks pass; 1 a check failed (a Prolog's non-zero exit makes Slurm drain
// the node and requeue the job); 2 bad usage, an unreadable lock or prefix, or scontrol that
// cannot be run.
#include "app/slurm_health.hpp"
#include "cli/commands.hpp"
#include "report/slurm_health_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct SlurmHealthOptions
        {
            app::HardwareGateOptions hardware;
            app::SlurmHealthRequest request;
            FormatChoice format;
        };

        auto run_slurm_health(SlurmHealthOptions options, app::Ports& ports,
                              const app::LoadedConfig& config) -> int
        {
            if (const int status = configure_format(options.format, config.config, "slurm-health"))
            {
                return status;
            }
            options.request.hardware =
              app::hardware_gate_policy(options.hardware, config.config.check);
            using Outcome = app::SlurmHealthOutcome;
            const std::array<Format<Outcome>, 2> own{ {
              { "text",
                [](const Outcome& out) { return report::render_slurm_health_text(out.view); } },
              { "json",
                [](const Outcome& out) { return report::render_slurm_health_json(out.view); } },
            } };
            // The action lines go to slurmd's log whatever the report's format: on stdout when
            // the report went to a file, else on stderr beside it.
            const auto& format = options.format;
            const auto log_actions = [&format, &ports](const Outcome& outcome)
            {
                if (format.name != "text")
                {
                    const std::string text = report::render_slurm_health_text(outcome.view);
                    format.output.empty() || format.output == "-"
                      ? warn(text)
                      : static_cast<void>(emit(text, "", ports.files));
                }
            };
            return conclude<Outcome>(app::run_slurm_health(options.request, ports), own, format,
                                     ports, log_actions);
        }
    }

    auto setup_slurm_health(CLI::App& app, TransferOptions& /*transfer*/) -> Run
    {
        auto options = std::make_shared<SlurmHealthOptions>();
        auto& request = options->request;
        app
          .add_option("--node", request.node,
                      "The Slurm node to act on (default $SLURMD_NODENAME, else the short host "
                      "name)")
          ->option_text("NAME");
        add_root_option(app, request.root);
        add_hardware_gate_options(app, options->hardware);
        auto* lock = app
                       .add_option("--lock", request.lock,
                                   "Also check the installed environment against this lock "
                                   "(packages and OS; no GPU measurement)")
                       ->option_text("FILE");
        add_prefix_options(app, request.selection);
        app.get_option("--prefix")->needs(lock);
        app.get_option("--name")->needs(lock);
        app.add_option("--platform", request.platform,
                       "The platform of a multi-platform lock (default: this machine's)");
        app.add_flag("--prolog", request.prolog,
                     "Run as Prolog: ask scontrol only when a check failed (exit 1 makes "
                     "Slurm drain the node and requeue the job)");
        app.add_flag("--dry-run", request.dry_run,
                     "Print what would be done to the node; change nothing");
        app
          .add_option("--scontrol", request.scontrol,
                      "The scontrol program (default: scontrol from PATH)")
          ->option_text("PATH");
        app
          .add_option("--timeout", request.timeout_seconds,
                      "Seconds the whole run may take, driver probe and scontrol included "
                      "(default 40; slurmd kills a health check after 60)")
          ->check(CLI::Range(5.0, 3600.0));
        add_format_options(app, options->format,
                           { { "text", "json" },
                             true,
                             "Write the report to this file (atomically); the action lines still "
                             "go to stdout" });
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_slurm_health(*options, ports, config); };
    }
}
