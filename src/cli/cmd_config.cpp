// `envcheck config` (app/config.hpp): the effective configuration and where each value came
// from. Exit 0; 2 when the configuration cannot be read or is wrong (main reports that before
// any command runs).
#include "cli/commands.hpp"
#include "report/config_report.hpp"

namespace envcheck::cli
{
    namespace
    {
        auto run_config(FormatChoice format, app::Ports& ports, const app::LoadedConfig& loaded)
          -> int
        {
            if (const int status = configure_format(format, loaded.config, "config"))
            {
                return status;
            }
            const auto text = format.name == "json"
                                ? report::render_config_json(loaded.config, loaded.how)
                                : report::render_config_text(loaded.config, loaded.how);
            return emit(text, format.output, ports.files);
        }
    }

    auto setup_config(CLI::App& app, TransferOptions& /*transfer*/) -> Run
    {
        auto format = std::make_shared<FormatChoice>();
        add_format_options(app, *format, { { "text", "json" } });
        return [format](app::Ports& ports, const app::LoadedConfig& config)
        { return run_config(*format, ports, config); };
    }
}
