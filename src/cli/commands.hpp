// The cli's own vocabulary. Subcommands are rows of one table (commands.cpp): name, one-line
// description, and a setup function that declares the options on its CLI::App and returns the
// function that runs it. Each subcommand lives in its own cmd_<name>.cpp: an options struct with
// every field initialised (mostly the use case's request, app/<name>.hpp), setup_<name>(), and a
// run function that calls the use case with the run's ports and hands the result to conclude.
//
// Options several commands declare alike (options.cpp): the transfer options of the commands
// that read environment files and locks (main owns one TransferOptions per run and the real ports
// read URLs with it), which environment (--prefix, -n), which root (--root), which part of a lock
// and the hardware gates' policy.
//
// How a command's report ends (output.cpp): --format picks a row of the command's own formats (a
// table in its cmd_<name>.cpp) or, for the checking commands, of the fleet formats
// (report/fleet_formats.hpp); the report goes to stdout or atomically to --output; the outcome's
// verdict becomes the exit code (exit_codes.hpp).
#ifndef ENVCHECK_CLI_COMMANDS_HPP
#define ENVCHECK_CLI_COMMANDS_HPP

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/config.hpp"
#include "app/hardware_gates.hpp"
#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "cli/exit_codes.hpp"
#include "config/config.hpp"
#include "host/ports.hpp"
#include "report/fleet_formats.hpp"
#include "util/keep_until_exit.hpp"
#include "util/result.hpp"

namespace envcheck::cli
{
    using TransferOptions = host::TransferOptions;

    // Runs the command with the run's ports and configuration (app/config.hpp).
    using Run = std::function<int(app::Ports& ports, const app::LoadedConfig& config)>;

    struct Command
    {
        std::string_view name;
        std::string_view description;
        // `transfer`: the run's transfer options, for the commands that read URLs.
        Run (*setup)(CLI::App& app, TransferOptions& transfer);
    };

    [[nodiscard]] auto commands() -> std::span<const Command>;

    // What `envcheck` does with no subcommand (README "Default action"): in a project directory
    // (one with ./environment.yml or a lock, app::find_project_files) `envcheck check` with no
    // arguments; elsewhere the machine report of `envcheck probe`.
    [[nodiscard]] auto run_default(app::Ports& ports, const app::LoadedConfig& config) -> int;

    // The commands with a --format that [format] in the configuration may set.
    [[nodiscard]] auto formatted_commands() -> std::vector<std::string>;

    auto setup_lock(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_check(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_export(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_smoke(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_probe(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_doctor(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_lint(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_diff(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_slurm_health(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_config(CLI::App& app, TransferOptions& transfer) -> Run;
    auto setup_report(CLI::App& app, TransferOptions& transfer) -> Run;

    // `envcheck check` with no arguments, and `envcheck probe` of this machine, as text.
    [[nodiscard]] auto run_default_check(app::Ports& ports, const app::LoadedConfig& config) -> int;
    [[nodiscard]] auto run_default_probe(app::Ports& ports) -> int;

    void add_input_options(CLI::App& app, TransferOptions& options);
    void add_prefix_options(CLI::App& app, app::PrefixSelection& selection);

    // Which part of a lock is read: --platform, --environment (pixi.lock), --category
    // (conda-lock) and --python X.Y[.Z] (uv.lock, pylock.toml without an installed environment:
    // app/marker_python.hpp).
    void add_lock_part_options(CLI::App& app, std::string& platform, std::string& environment,
                               std::vector<std::string>& categories, std::string& python);
    void add_root_option(CLI::App& app, std::string& root);
    // --timeout of the commands that walk the doctor's chain (doctor, report).
    void add_driver_timeout_option(CLI::App& app, double& seconds);
    // --fatal-xids LIST and --expect-gpus N (doctor, check, slurm-health).
    void add_hardware_gate_options(CLI::App& app, app::HardwareGateOptions& options);

    struct FormatChoice
    {
        std::string name = "text";        // add_format_options: the command's first format
        std::string output;               // -o: written atomically; empty or "-": stdout
        bool given = false;               // --format was on the command line
        std::vector<std::string> allowed; // the command's formats, then the fleet formats
        report::FleetFormatOptions fleet; // --expiry, --npd-max-length
    };

    struct FormatOptions
    {
        std::vector<std::string> own; // the command's formats, the default first
        bool fleet = false;           // the fleet formats too (the checking commands)
        std::string_view output_help =
          "Write the report to this file (atomically) instead of stdout";
    };

    // Adds --format and -o/--output; with the fleet formats also --expiry and --npd-max-length.
    void add_format_options(CLI::App& app, FormatChoice& choice, const FormatOptions& options);

    // Without --format on the command line: the configuration's [format] for `command`
    // (config::configured_format). Returns 0, or the exit code of the error it reported.
    [[nodiscard]] auto configure_format(FormatChoice& choice, const config::Config& config,
                                        std::string_view command) -> int;

    // Writes util::safe_output(content) to stdout when `path` is empty or "-", else atomically to
    // `path` (through the files port). Returns 0, or the exit code of the error it reported.
    [[nodiscard]] auto emit(std::string_view content, const std::string& path, app::Files& files,
                            app::Files::WriteMode mode = app::Files::WriteMode::replace) -> int;

    // The fleet format `choice` names (markdown for any other name: --format allows no other).
    [[nodiscard]] auto render_fleet(const FormatChoice& choice, const app::FleetView& fleet,
                                    app::Ports& ports) -> std::string;

    // Appends the markdown summary of `runs` to the file $GITHUB_STEP_SUMMARY names, when it is
    // set (GitHub Actions shows it on the run's page).
    void append_github_job_summary(const std::vector<model::CheckRun>& runs, app::Ports& ports);

    // A checking command's exit code: its verdict's, except with --format npd, where it follows
    // NPD's protocol over the runs: a check that could not run is Unknown (2), not a problem (1).
    [[nodiscard]] auto fleet_exit(const FormatChoice& choice, const app::FleetView& fleet,
                                  app::Verdict verdict) -> int;

    // A row of a command's own formats.
    template<class Outcome>
    struct Format
    {
        std::string_view name;
        std::function<std::string(const Outcome&)> render;
    };

    template<class Outcome>
    concept HasFleetView = requires(const Outcome& outcome)
    {
        outcome.fleet.runs;
    };

    // The outcome in the chosen format: a row of `own`, else a fleet format.
    template<class Outcome>
    [[nodiscard]] auto render(std::span<const Format<Outcome>> own, const FormatChoice& choice,
                              const Outcome& outcome, app::Ports& ports) -> std::string
    {
        if constexpr (HasFleetView<Outcome>)
        {
            if (choice.name == "github") // the fleet format or a command's own (lint's)
            {
                append_github_job_summary(outcome.fleet.runs, ports);
            }
        }
        for (const auto& format : own)
        {
            if (format.name == choice.name)
            {
                return format.render(outcome);
            }
        }
        if constexpr (HasFleetView<Outcome>)
        {
            return render_fleet(choice, outcome.fleet, ports);
        }
        return own.front().render(outcome); // --format allows no other name
    }

    // A use case's result: an error is reported (exit 2, or 3 for a bug); an outcome is
    // rendered in the chosen format, written (then `written` runs), and mapped to its exit code.
    template<class Outcome>
    [[nodiscard]] auto conclude(util::Result<Outcome> result, std::span<const Format<Outcome>> own,
                                const FormatChoice& choice, app::Ports& ports,
                                const std::function<void(const Outcome&)>& written = {}) -> int
    {
        if (!result)
        {
            return report_error(result.error());
        }
        if (const int status =
              emit(render(own, choice, *result, ports), choice.output, ports.files);
            status != code(Exit::ok))
        {
            return status;
        }
        if (written)
        {
            written(*result);
        }
        int status = code(exit_for(result->verdict()));
        if constexpr (HasFleetView<Outcome>)
        {
            status = fleet_exit(choice, result->fleet, result->verdict());
        }
        util::keep_until_exit(std::move(result));
        return status;
    }
}

#endif
