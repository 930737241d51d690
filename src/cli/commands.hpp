// The setup functions of every subcommand (one cmd_<name>.cpp each), for the table in
// commands.cpp.
#ifndef ENVCHECK_CLI_COMMANDS_HPP
#define ENVCHECK_CLI_COMMANDS_HPP

#include "cli/command.hpp"

namespace envcheck::cli
{
    auto setup_lock(CLI::App& app) -> Run;
    auto setup_check(CLI::App& app) -> Run;
    auto setup_export(CLI::App& app) -> Run;
    auto setup_smoke(CLI::App& app) -> Run;
    auto setup_probe(CLI::App& app) -> Run;
    auto setup_doctor(CLI::App& app) -> Run;
    auto setup_lint(CLI::App& app) -> Run;
    auto setup_diff(CLI::App& app) -> Run;
    auto setup_slurm_health(CLI::App& app) -> Run;
}

#endif
