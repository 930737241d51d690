// How a command's report ends: --format picks a row of the command's own formats (a table in its
// cmd_<name>.cpp) or, for the checking commands, of the fleet formats (report/fleet_formats.hpp);
// the report goes to stdout or atomically to --output; the outcome's verdict becomes the exit
// code (exit_codes.hpp).
#ifndef ENVCHECK_CLI_OUTPUT_HPP
#define ENVCHECK_CLI_OUTPUT_HPP

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "cli/exit_codes.hpp"
#include "config/config.hpp"
#include "report/fleet_formats.hpp"
#include "util/result.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
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
    // (config::configured_format).
    [[nodiscard]] auto apply_configured_format(FormatChoice& choice, const config::Config& config,
                                               std::string_view command) -> util::Result<void>;

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

    // The exit code of an outcome that was written.
    template<class Outcome>
    [[nodiscard]] auto exit_code(const FormatChoice& choice, const Outcome& outcome) -> int
    {
        if constexpr (HasFleetView<Outcome>)
        {
            return fleet_exit(choice, outcome.fleet, outcome.verdict());
        }
        return code(exit_for(outcome.verdict()));
    }

    // A use case's result: an error is reported (exit 2, or 3 for a bug); an outcome is
    // rendered in the chosen format, written, and mapped to its exit code.
    template<class Outcome>
    [[nodiscard]] auto conclude(const util::Result<Outcome>& result,
                                std::span<const Format<Outcome>> own, const FormatChoice& choice,
                                app::Ports& ports) -> int
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
        return exit_code(choice, *result);
    }
}

#endif
