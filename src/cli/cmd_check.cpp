// envcheck check (app/check.hpp): does the installed environment match its environment file
// and its lock? Exit 0 when everything matches, 1 on drift, 2 on bad usage or unreadable input.
#include "app/check.hpp"
#include "cli/commands.hpp"
#include "report/check_json.hpp"
#include "report/check_text.hpp"
#include "report/html_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct CheckOptions
        {
            app::HardwareGateOptions hardware;
            app::CheckRequest request;
            FormatChoice format;
            bool verbose = false;
        };

        auto run_check(CheckOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            if (const int status = configure_format(options.format, config.config, "check"))
            {
                return status;
            }
            options.request.config = config.config.check;
            options.request.hardware =
              app::hardware_gate_policy(options.hardware, config.config.check);
            using Outcome = app::CheckOutcome;
            const report::CheckTextOptions text{ options.verbose };
            const std::array<Format<Outcome>, 3> own{ {
              { "text",
                [&](const Outcome& out) { return report::render_check_text(out.check, text); } },
              { "json", [](const Outcome& out) { return report::render_check_json(out.check); } },
              { "html", [](const Outcome& out) { return report::render_check_html(out.check); } },
            } };
            options.request.fleet_runs = report::find_fleet_format(options.format.name) != nullptr;
            return conclude<Outcome>(app::run_check(options.request, ports), own, options.format,
                                     ports);
        }
    }

    auto run_default_check(app::Ports& ports, const app::LoadedConfig& config) -> int
    {
        return run_check(CheckOptions{}, ports, config);
    }

    auto setup_check(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<CheckOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        add_prefix_options(app, request.selection);
        add_hardware_gate_options(app, options->hardware);
        app.add_option("--env", request.env, "The environment file whose specs must be satisfied");
        app.add_option(
          "--lock", request.lock,
          "The lock to match: envcheck's, conda-lock.yml, pixi.lock or an @EXPLICIT file");
        add_lock_part_options(app, request.platform, request.environment, request.categories,
                              request.python);
        auto* deep = app.add_flag(
          "--deep", request.deep,
          "Also verify every installed file against its package's sha256 and size (conda "
          "records' paths_data, pip distributions' RECORD)");
        app
          .add_flag("--untracked", request.untracked,
                    "With --deep: also report files in pip distributions' directories that no "
                    "RECORD lists")
          ->needs(deep);
        app.add_flag("--no-prefix", request.no_prefix,
                     "Check --env against --lock alone, per platform of the lock, without an "
                     "installed environment (also when both are given and none is active)");
        app.add_flag("--even-if-busy", request.even_if_busy,
                     "Measure the lock's performance on GPUs that other processes compute on "
                     "too (default: skip them)");
        app.add_flag("--no-gpu", request.no_gpu,
                     "Do not probe the driver and GPUs or measure performance");
        app
          .add_option("--perf-tolerance", request.perf_tolerances,
                      "How far a locked performance metric may drop: 15% (every metric; default "
                      "4%, or 1.5x the locked spread when larger) or METRIC=5% for one, such as "
                      "bandwidth.h2d_pinned_gbps=5% (repeatable)")
          ->option_text("DROP|METRIC=DROP")
          ->allow_extra_args(false);
        app.add_option("-j,--jobs", request.jobs,
                       "Threads for reading and hashing (default: one per usable CPU)");
        add_format_options(app, options->format, { { "text", "json", "html" }, true });
        app.add_flag("-v,--verbose", options->verbose, "List the packages that match too");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_check(*options, ports, config); };
    }
}
