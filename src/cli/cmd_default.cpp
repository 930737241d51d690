// `envcheck` with no subcommand (README "Default action"): in a project directory (one with
// ./environment.yml) it is `envcheck check` with no arguments; elsewhere it reports the
// machine, as `envcheck probe` does.
#include <filesystem>

#include "cli/cmd_check.hpp"
#include "cli/cmd_probe.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "report/probe_text.hpp"

namespace envcheck::cli
{
    auto run_default() -> int
    {
        std::error_code error;
        if (std::filesystem::is_regular_file(default_environment_file, error))
        {
            return run_default_check();
        }
        constexpr double driver_timeout_seconds = 20.0;
        const auto facts = probe_this_machine("/", driver_timeout_seconds);
        if (!facts)
        {
            return report_error(facts.error());
        }
        return emit(report::render_probe_text(*facts), "");
    }
}
