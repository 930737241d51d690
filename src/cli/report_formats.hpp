// The report formats of the checking commands, as tables: each command's own formats (text,
// json, ...) are rows {name, render} in its cmd_<name>.cpp; the fleet formats every checking
// command shares (junit, prometheus node_exporter textfile, nfd Node Feature Discovery feature
// file, markdown, github annotations plus the markdown job summary appended to
// $GITHUB_STEP_SUMMARY, npd: a Node Problem Detector custom plugin's one line) are rows here,
// over the outcome's app::FleetView. The renderers are in src/report.
#ifndef ENVCHECK_CLI_REPORT_FORMATS_HPP
#define ENVCHECK_CLI_REPORT_FORMATS_HPP

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "cli/output.hpp"
#include "config/config.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    struct ReportFormatChoice
    {
        std::string name = "text";
        std::int64_t expiry_seconds = 3600; // nfd: how long nfd-worker keeps the features
        std::size_t npd_max_length = 80;    // npd: NPD's max_output_length
        std::string output;                 // -o: written atomically; empty or "-": stdout
        bool given = false;                 // --format was on the command line
        std::vector<std::string> allowed;   // the command's formats, then the fleet formats
    };

    // Without --format on the command line: the configuration's [format] for `command` (else its
    // "default"), which must be one of the command's formats (ErrorKind::usage at its line).
    [[nodiscard]] auto apply_configured_format(ReportFormatChoice& choice,
                                               const config::Config& config,
                                               std::string_view command) -> util::Result<void>;

    inline constexpr std::string_view output_help =
      "Write the report to this file (atomically) instead of stdout";

    // Adds --format (the command's own formats, then the fleet formats), -o/--output,
    // --expiry and --npd-max-length.
    void add_report_format_options(CLI::App& app, ReportFormatChoice& choice,
                                   const std::vector<std::string>& own_formats,
                                   std::string_view output_description = output_help);

    // The report in the fleet format `choice` names; it must be one of them.
    [[nodiscard]] auto render_fleet_report(const ReportFormatChoice& choice,
                                           const app::FleetView& fleet, app::Ports& ports)
      -> std::string;

    // The exit code of a checking command's outcome: its verdict's, except with --format npd,
    // where it follows NPD's protocol over the runs (exit_codes.hpp, exit_for(NpdStatus)): a
    // check that could not run is Unknown (2), not a node problem (1).
    [[nodiscard]] auto report_exit(const ReportFormatChoice& choice, const app::FleetView& fleet,
                                   app::Verdict verdict) -> int;

    // Appends the markdown summary of `runs` to the file $GITHUB_STEP_SUMMARY names, when it is
    // set (GitHub Actions shows it on the run's page).
    void append_github_job_summary(const std::vector<model::CheckRun>& runs, app::Ports& ports);

    template<class Outcome>
    struct OwnFormat
    {
        std::string_view name;
        std::function<std::string(const Outcome&)> render;
    };

    // The command's own format when `choice` names one, else the fleet format.
    template<class Outcome>
    [[nodiscard]] auto render_report(std::span<const OwnFormat<Outcome>> own,
                                     const ReportFormatChoice& choice, const Outcome& outcome,
                                     app::Ports& ports) -> std::string
    {
        for (const auto& format : own)
        {
            if (format.name == choice.name)
            {
                return format.render(outcome);
            }
        }
        return render_fleet_report(choice, outcome.fleet, ports);
    }

    // A use case's result in the chosen format, to choice.output, and its exit code (output.hpp).
    template<class Outcome>
    [[nodiscard]] auto conclude_report(const util::Result<Outcome>& result,
                                       std::span<const OwnFormat<Outcome>> own,
                                       const ReportFormatChoice& choice, app::Ports& ports) -> int
    {
        if (!result)
        {
            return report_error(result.error());
        }
        if (const int status =
              emit(render_report(own, choice, *result, ports), choice.output, ports.files);
            status != code(Exit::ok))
        {
            return status;
        }
        return report_exit(choice, result->fleet, result->verdict());
    }
}

#endif
