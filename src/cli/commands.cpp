// The command table: one row per subcommand, in the order `envcheck --help` lists them.
#include <array>

#include "cli/command.hpp"
#include "cli/commands.hpp"

namespace envcheck::cli
{
    namespace
    {
        constexpr std::array<Command, 0> table{{
        }};
    }

    auto commands() -> std::span<const Command>
    {
        return table;
    }
}
