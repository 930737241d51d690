// The report formats of the checking commands, as tables: each command's own formats (text,
// json, ...) are rows {name, render} in its cmd_<name>.cpp; the fleet formats every checking
// command shares (junit, prometheus node_exporter textfile, nfd Node Feature Discovery feature
// file, markdown, github annotations plus the markdown job summary appended to
// $GITHUB_STEP_SUMMARY) are rows here, over the outcome's app::FleetView. The renderers are in
// src/report.
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

    // Adds --format (the command's own formats, then the fleet formats), -o/--output and
    // --expiry.
    void add_report_format_options(CLI::App& app, ReportFormatChoice& choice,
                                   const std::vector<std::string>& own_formats,
                                   std::string_view output_description = output_help);

    // The report in a fleet format; `format` must be one of them.
    [[nodiscard]] auto render_fleet_report(std::string_view format, const app::FleetView& fleet,
                                           std::int64_t expiry_seconds, app::Ports& ports)
      -> std::string;

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
        return render_fleet_report(choice.name, outcome.fleet, choice.expiry_seconds, ports);
    }

    // A use case's result in the chosen format, to choice.output, and its exit code (output.hpp).
    template<class Outcome>
    [[nodiscard]] auto conclude_report(const util::Result<Outcome>& result,
                                       std::span<const OwnFormat<Outcome>> own,
                                       const ReportFormatChoice& choice, app::Ports& ports) -> int
    {
        return conclude(
          result,
          [&](const Outcome& outcome) { return render_report(own, choice, outcome, ports); },
          choice.output, ports.files);
    }
}

#endif
