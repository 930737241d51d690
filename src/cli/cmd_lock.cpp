// envcheck lock (app/lock.hpp): writes the lock of an installed environment. Exit 0 when it was
// written or is up to date; 1 when refused (the environment does not satisfy its file, or a
// different lock is there and --force was not given); 2 on bad usage, unreadable input or an
// unreadable conda-meta record.
#include <iostream>

#include "app/lock.hpp"
#include "cli/commands.hpp"
#include "report/check_text.hpp"
#include "report/lock_summary.hpp"

namespace envcheck::cli
{
    namespace
    {
        // What lock did, or why it refused: on stdout when the lock is in place, else stderr.
        auto report_lock(const app::LockOutcome& outcome) -> int
        {
            const auto& path = outcome.path;
            switch (outcome.status)
            {
                case app::LockStatus::written:
                    std::cout << "envcheck: wrote " << path << ": "
                              << report::describe_lock(outcome.lock) << '\n';
                    if (!outcome.performance_not_recorded.empty())
                    {
                        std::cout << "  performance not recorded: "
                                  << outcome.performance_not_recorded << '\n';
                    }
                    break;
                case app::LockStatus::up_to_date:
                    std::cout << "envcheck: " << path << " is up to date ("
                              << report::describe_lock(outcome.lock) << ")\n";
                    break;
                case app::LockStatus::unreadable_records:
                    return report_unreadable_records(
                      outcome.unreadable,
                      "not locked: " + std::to_string(outcome.unreadable.problems.size()) +
                        " record(s) of the environment cannot be read, so the lock would leave "
                        "packages out",
                      "reinstall the packages named above (or remove their records), then lock "
                      "again");
                case app::LockStatus::unsatisfied:
                    warn(report::render_check_text(outcome.unsatisfied) +
                         "envcheck: not locked: the environment does not satisfy " +
                         outcome.unsatisfied.environment_file.value_or("") +
                         "; install what it asks for, or change the file\n");
                    break;
                case app::LockStatus::differs:
                    warn("envcheck: " + path +
                         " exists and differs: " + std::to_string(outcome.packages_differ) +
                         " package(s) differ; the machine or performance part may too\n");
                    warn("  `envcheck check --lock " + path + "` shows the differences\n");
                    warn("envcheck: not replaced; pass --force to replace it\n");
                    break;
                case app::LockStatus::not_a_lock:
                    warn("envcheck: " + path + " exists and is not an envcheck lock (" +
                         outcome.not_a_lock.to_string() +
                         ")\nenvcheck: not replaced; pass --force to replace it\n");
                    break;
            }
            return code(exit_for(outcome.verdict()));
        }

        auto lock_and_report(const app::LockRequest& request, app::Ports& ports) -> int
        {
            const auto outcome = app::run_lock(request, ports);
            return outcome ? report_lock(*outcome) : report_error(outcome.error());
        }
    }

    auto setup_lock(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<app::LockRequest>();
        auto& request = *options;
        add_input_options(app, transfer);
        add_prefix_options(app, request.selection);
        app.add_option("--env", request.env,
                       "The environment file the environment must satisfy (default "
                       "./environment.yml when present)");
        app.add_option(
          "-o,--output", request.output,
          "Where to write the lock (default: <env file stem>.lock.json beside it, else "
          "./environment.lock.json)");
        app.add_flag("--force", request.force, "Replace an existing lock that differs");
        app.add_flag("--no-gpu", request.no_gpu,
                     "Do not probe the driver and GPUs, and record no performance baselines");
        app.add_flag("--even-if-busy", request.even_if_busy,
                     "Measure the baselines on GPUs that other processes compute on too "
                     "(default: they get none)");
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return lock_and_report(*options, ports); };
    }
}
