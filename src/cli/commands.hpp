// Subcommands are rows of one table (commands.cpp): name, one-line description, and a setup
// function that declares the options on its CLI::App and returns the function that runs it.
// Each subcommand lives in its own cmd_<name>.cpp: an options struct with every field
// initialised (mostly the use case's request, app/<name>.hpp), setup_<name>(), and a run
// function that calls the use case with the run's ports, renders, and maps to an exit code.
#ifndef ENVCHECK_CLI_COMMANDS_HPP
#define ENVCHECK_CLI_COMMANDS_HPP

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/config.hpp"
#include "app/ports.hpp"
#include "cli/options.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
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
}

#endif
