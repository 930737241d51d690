#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "util/strings.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::cli
{
    namespace
    {
        // "Report format: text, json; for fleet tooling: junit, prometheus (node_exporter
        // textfile), ..."
        auto format_help(const FormatOptions& options) -> std::string
        {
            std::string help = "Report format: " + util::join(options.own, ", ");
            if (options.fleet)
            {
                std::vector<std::string> fleet;
                for (const auto& format : report::fleet_formats())
                {
                    fleet.push_back(std::string(format.name) +
                                    (format.description.empty()
                                       ? ""
                                       : " (" + std::string(format.description) + ")"));
                }
                help += "; for fleet tooling: " + util::join(fleet, ", ");
            }
            return help;
        }

        void add_fleet_options(CLI::App& app, FormatChoice& choice)
        {
            app
              .add_option("--expiry", choice.fleet.expiry_seconds,
                          "With --format nfd: seconds after which nfd-worker drops the features "
                          "(default 3600)")
              ->check(CLI::PositiveNumber);
            app
              .add_option("--npd-max-length", choice.fleet.npd_max_length,
                          "With --format npd: the plugin config's max_output_length, in bytes "
                          "(default 80, NPD's)")
              ->check(CLI::Range(std::size_t{ 16 }, std::size_t{ 1 } << 20U));
        }
    }

    void add_format_options(CLI::App& app, FormatChoice& choice, const FormatOptions& options)
    {
        choice.name = options.own.front();
        choice.allowed = options.own;
        for (const auto& format :
             options.fleet ? report::fleet_formats() : std::span<const report::FleetFormat>{})
        {
            if (std::find(choice.allowed.begin(), choice.allowed.end(), format.name) ==
                choice.allowed.end())
            {
                choice.allowed.emplace_back(format.name);
            }
        }
        app.add_option("--format", choice.name, format_help(options))
          ->transform(CLI::IsMember(choice.allowed, CLI::ignore_case))
          ->each([&choice](const std::string& /*name*/) { choice.given = true; })
          ->option_text(util::join(choice.allowed, "|"));
        app.add_option("-o,--output", choice.output, std::string(options.output_help));
        if (options.fleet)
        {
            add_fleet_options(app, choice);
        }
    }

    auto configure_format(FormatChoice& choice, const config::Config& config,
                          std::string_view command) -> int
    {
        if (choice.given)
        {
            return code(Exit::ok);
        }
        auto configured = config::configured_format(config, command, choice.allowed);
        if (!configured)
        {
            return report_error(configured.error());
        }
        choice.name = configured->value_or(choice.name);
        return code(Exit::ok);
    }

    auto emit(std::string_view raw, const std::string& path, app::Files& files,
              app::Files::WriteMode mode) -> int
    {
        // Everything a command writes passes here: no credentials in URLs, no terminal commands
        // from package metadata.
        const std::string content = util::safe_output(raw);
        if (path.empty() || path == "-")
        {
            std::cout << content << std::flush;
            return code(Exit::ok);
        }
        std::cout.flush(); // /dev/stdout is written through, after what cout holds
        auto written = files.write_atomic(path, content, mode);
        if (!written)
        {
            return report_error(written.error());
        }
        return code(Exit::ok);
    }

    auto render_fleet(const FormatChoice& choice, const app::FleetView& fleet, app::Ports& ports)
      -> std::string
    {
        const auto* format = report::find_fleet_format(choice.name);
        auto options = choice.fleet;
        options.now_unix_seconds = ports.clock.unix_seconds();
        return (format != nullptr ? format : report::find_fleet_format("markdown"))
          ->render(fleet.runs, fleet.features, options);
    }

    void append_github_job_summary(const std::vector<model::CheckRun>& runs, app::Ports& ports)
    {
        if (const auto summary = app::variable(ports.environment, "GITHUB_STEP_SUMMARY");
            !summary.empty())
        {
            ports.files.append(summary, report::render_markdown(runs));
        }
    }

    auto fleet_exit(const FormatChoice& choice, const app::FleetView& fleet, app::Verdict verdict)
      -> int
    {
        if (choice.name == "npd" && verdict != app::Verdict::usage)
        {
            return code(exit_for(report::npd_status(fleet.runs)));
        }
        return code(exit_for(verdict));
    }
}
