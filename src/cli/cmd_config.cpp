// `envcheck config` (app/config.hpp): the effective configuration and where each value came
// from. Exit 0; 2 when the configuration cannot be read or is wrong (main reports that before
// any command runs).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "app/config.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "report/config_report.hpp"
#include "util/strings.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ConfigOptions
        {
            std::string format = "text";
            bool format_given = false;
            std::string output;
        };

        auto run_config(const ConfigOptions& options, app::Ports& ports,
                        const app::LoadedConfig& loaded) -> int
        {
            std::string format = options.format;
            if (const auto* configured = loaded.config.format_for("config");
                configured != nullptr && !options.format_given)
            {
                if (configured->value != "text" && configured->value != "json")
                {
                    const auto& where = configured->source;
                    return report_error(util::make_error(
                      util::ErrorKind::usage,
                      "the configured format \"" + configured->value +
                        "\" is not one of config's (text, json)",
                      util::SourceLocation{ where.file, where.line, where.column }));
                }
                format = configured->value;
            }
            const auto text = format == "json"
                                ? report::render_config_json(loaded.config, loaded.how)
                                : report::render_config_text(loaded.config, loaded.how);
            return emit(text, options.output, ports.files);
        }
    }

    auto setup_config(CLI::App& app, TransferOptions& /*transfer*/) -> Run
    {
        auto options = std::make_shared<ConfigOptions>();
        app.add_option("--format", options->format, "Report format: text, json")
          ->check(CLI::IsMember({ "text", "json" }))
          ->each([options](const std::string& /*name*/) { options->format_given = true; })
          ->option_text("text|json");
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        return [options](app::Ports& ports, const app::LoadedConfig& config)
        { return run_config(*options, ports, config); };
    }
}
