// Subcommands are rows of one table (commands.cpp): name, one-line description, and a setup
// function that declares the options on its CLI::App and returns the function that runs it.
// Each subcommand lives in its own cmd_<name>.cpp: an options struct with every field
// initialised, setup_<name>(), and run_<name>(const Options&) -> int.
#ifndef ENVCHECK_CLI_COMMAND_HPP
#define ENVCHECK_CLI_COMMAND_HPP

#include <functional>
#include <span>
#include <string_view>

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    using Run = std::function<int()>;

    struct Command
    {
        std::string_view name;
        std::string_view description;
        Run (*setup)(CLI::App& app);
    };

    [[nodiscard]] auto commands() -> std::span<const Command>;

    // What `envcheck` does with no subcommand (README "Default action").
    [[nodiscard]] auto run_default() -> int;
}

#endif
