// The setup functions of every subcommand (one cmd_<name>.cpp each), for the table in
// commands.cpp.
#ifndef ENVCHECK_CLI_COMMANDS_HPP
#define ENVCHECK_CLI_COMMANDS_HPP

#include "cli/command.hpp"

namespace envcheck::cli
{
}

#endif
