// envcheck doctor (app/doctor.hpp): walks the chain from hardware to framework and names the
// first broken link. Exit 0 when CUDA is usable (and the given environment can use it); 1 when
// a check failed; 2 on bad usage or an environment that cannot be read.
#include "app/doctor.hpp"
#include "cli/commands.hpp"
#include "report/doctor_report.hpp"
#include "report/html_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct DoctorOptions
        {
            app::HardwareGateOptions hardware;
            app::DoctorRequest request;
            FormatChoice format;
            bool list = false;
        };

        auto run_doctor(DoctorOptions options, app::Ports& ports, const app::LoadedConfig& config)
          -> int
        {
            if (const int status = configure_format(options.format, config.config, "doctor"))
            {
                return status;
            }
            options.request.skip = config.config.doctor.skip;
            options.request.hardware =
              app::hardware_gate_policy(options.hardware, config.config.check);
            if (options.list)
            {
                return emit(report::render_doctor_check_list(app::doctor_check_list()),
                            options.format.output, ports.files);
            }
            using Outcome = app::DoctorOutcome;
            const std::array<Format<Outcome>, 3> own{ {
              { "text", [](const Outcome& out) { return report::render_doctor_text(out.view); } },
              { "json", [](const Outcome& out) { return report::render_doctor_json(out.view); } },
              { "html", [](const Outcome& out) { return report::render_doctor_html(out.view); } },
            } };
            return conclude<Outcome>(app::run_doctor(options.request, ports), own, options.format,
                                     ports);
        }
    }

    auto setup_doctor(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<DoctorOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        add_root_option(app, request.root);
        add_hardware_gate_options(app, options->hardware);
        auto* prefix =
          app
            .add_option(
              "-p,--prefix", request.prefix,
              "The installed environment (conda prefix or venv) to check; default $VIRTUAL_ENV, "
              "else $CONDA_PREFIX")
            ->option_text("DIR");
        auto* env = app
                      .add_option("--env", request.env_file,
                                  "An environment.yml whose pinned CUDA runtime to check")
                      ->option_text("FILE");
        auto* lock =
          app
            .add_option(
              "--lock", request.lock_file,
              "A lock (envcheck, conda-lock, pixi, @EXPLICIT) whose CUDA runtime to check")
            ->option_text("FILE");
        prefix->excludes(env)->excludes(lock);
        env->excludes(lock);
        app.add_option("--platform", request.platform,
                       "The platform to read from a multi-platform lock (default linux-64)");
        add_format_options(app, options->format, { { "text", "json", "html" }, true });
        add_driver_timeout_option(app, request.timeout_seconds);
        app
          .add_option("--framework-timeout", request.framework_timeout_seconds,
                      "Seconds the environment's python may take per framework (default 180)")
          ->check(CLI::PositiveNumber);
        app.add_flag("--no-framework-check", request.no_framework_check,
                     "Do not run the environment's python (framework.runtime-check is skipped)");
        app.add_flag("--list", options->list, "List the checks, in walk order, and exit");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_doctor(*options, ports, config); };
    }
}
