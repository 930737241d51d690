// `envcheck` with no subcommand.
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"

namespace envcheck::cli
{
    auto run_default() -> int
    {
        std::cerr << "envcheck: no command given; run 'envcheck --help' for the list of commands\n";
        return code(Exit::usage);
    }
}
