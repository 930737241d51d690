#include "cli/report_formats.hpp"

#include <algorithm>
#include <array>

#include <CLI/CLI.hpp>

#include "report/fleet_formats.hpp"
#include "util/strings.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct FleetContext
        {
            const ReportFormatChoice& choice;
            app::Ports& ports;
        };

        struct FleetFormat
        {
            std::string_view name;
            std::string (*render)(const app::FleetView& fleet, const FleetContext& context);
        };

        const std::array<FleetFormat, 6> fleet_formats{ {
          { "junit", [](const app::FleetView& fleet, const FleetContext&)
            { return report::render_junit(fleet.runs); } },
          { "prometheus", [](const app::FleetView& fleet, const FleetContext&)
            { return report::render_prometheus(fleet.runs); } },
          { "nfd",
            [](const app::FleetView& fleet, const FleetContext& context)
            {
                return report::render_nfd(fleet.runs, fleet.features,
                                          report::NfdOptions{ "envcheck.io",
                                                              context.ports.clock.unix_seconds(),
                                                              context.choice.expiry_seconds });
            } },
          { "markdown", [](const app::FleetView& fleet, const FleetContext&)
            { return report::render_markdown(fleet.runs); } },
          { "github",
            [](const app::FleetView& fleet, const FleetContext& context)
            {
                append_github_job_summary(fleet.runs, context.ports);
                return report::render_github_annotations(fleet.runs);
            } },
          { "npd", [](const app::FleetView& fleet, const FleetContext& context)
            { return report::render_npd(fleet.runs, context.choice.npd_max_length); } },
        } };
    }

    void add_report_format_options(CLI::App& app, ReportFormatChoice& choice,
                                   const std::vector<std::string>& own_formats,
                                   std::string_view output_description)
    {
        std::vector<std::string> names = own_formats;
        for (const auto& format : fleet_formats)
        {
            if (std::find(names.begin(), names.end(), format.name) == names.end())
            {
                names.emplace_back(format.name);
            }
        }
        app
          .add_option(
            "--format", choice.name,
            "Report format: " + util::join(own_formats, ", ") +
              "; for fleet tooling: junit, prometheus (node_exporter textfile), nfd (Node "
              "Feature Discovery), markdown, github, npd (Node Problem Detector custom plugin)")
          ->check(CLI::IsMember(names))
          ->each([&choice](const std::string& /*name*/) { choice.given = true; })
          ->option_text(util::join(names, "|"));
        choice.allowed = names;
        app.add_option("-o,--output", choice.output, std::string(output_description));
        app
          .add_option(
            "--expiry", choice.expiry_seconds,
            "With --format nfd: seconds after which nfd-worker drops the features (default 3600)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--npd-max-length", choice.npd_max_length,
                      "With --format npd: the plugin config's max_output_length, in bytes "
                      "(default 80, NPD's)")
          ->check(CLI::Range(std::size_t{ 16 }, std::size_t{ 1 } << 20U));
    }

    auto apply_configured_format(ReportFormatChoice& choice, const config::Config& config,
                                 std::string_view command) -> util::Result<void>
    {
        const auto* configured = config.format_for(command);
        if (choice.given || configured == nullptr)
        {
            return {};
        }
        if (std::find(choice.allowed.begin(), choice.allowed.end(), configured->value) ==
            choice.allowed.end())
        {
            const auto& where = configured->source;
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "the configured format \"" + configured->value + "\" is not one of " +
                std::string(command) + "'s",
              util::SourceLocation{ where.file, where.line, where.column },
              std::string(command) + " writes " + util::join(choice.allowed, ", ") +
                "; set [format] " + std::string(command) + " = \"...\" for it alone"));
        }
        choice.name = configured->value;
        return {};
    }

    auto render_fleet_report(const ReportFormatChoice& choice, const app::FleetView& fleet,
                             app::Ports& ports) -> std::string
    {
        const auto named = [&](std::string_view name)
        {
            return std::find_if(fleet_formats.begin(), fleet_formats.end(),
                                [&](const FleetFormat& row) { return row.name == name; });
        };
        // --format accepts only the table's names; anything else would be markdown.
        const auto found = named(choice.name);
        const auto& row = found == fleet_formats.end() ? *named("markdown") : *found;
        return row.render(fleet, FleetContext{ choice, ports });
    }

    auto report_exit(const ReportFormatChoice& choice, const app::FleetView& fleet,
                     app::Verdict verdict) -> int
    {
        if (choice.name == "npd" && verdict != app::Verdict::usage)
        {
            return code(exit_for(report::npd_status(fleet.runs)));
        }
        return code(exit_for(verdict));
    }

    void append_github_job_summary(const std::vector<model::CheckRun>& runs, app::Ports& ports)
    {
        if (const auto summary = app::variable(ports.environment, "GITHUB_STEP_SUMMARY");
            !summary.empty())
        {
            ports.files.append(summary, report::render_markdown(runs));
        }
    }
}
