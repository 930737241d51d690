// envcheck's entry point and its only catch site.
#include <algorithm>
#include <exception>
#include <iostream>
#include <map>

#include "app/version.hpp"
#include "cli/commands.hpp"
#include "report/version_text.hpp"

namespace
{
    using namespace envcheck::cli;

    // The command line: the global options, one subcommand per row of the command table, and
    // what they fill. One command runs per process: the transfer options are its.
    struct CommandLine
    {
        CLI::App app{ "envcheck: reproducible, verifiable GPU Python environments.\n"
                      "With no command: check ./environment.yml and the lock beside it against\n"
                      "the activated environment ($VIRTUAL_ENV, else $CONDA_PREFIX) and this "
                      "machine;\nwithout an environment file, report the machine.",
                      "envcheck" };
        bool show_version = false;
        std::string config_file;
        TransferOptions transfer;
        std::map<const CLI::App*, Run> runners;

        explicit CommandLine(std::span<char*> args)
        {
            app.set_help_all_flag("--help-all", "Print help for every command");
            app.add_flag("--version", show_version,
                         "Print the version, the CUDA runtime and the GPU architectures built in");
            app.fallthrough(false);
            // Before or after the command: `envcheck --config F lint`, `envcheck lint --config F`.
            const std::string config_help =
              "The configuration file (.envcheck.toml, or a pyproject.toml with [tool.envcheck]); "
              "default $ENVCHECK_CONFIG, else the first found from here upward";
            app.add_option("--config", config_file, config_help)->option_text("FILE");
            // Only the named command's options are made (all: 0.35 ms of a 2.5 ms lint, issue 19).
            const bool all = std::ranges::find(args, std::string_view("--help-all")) != args.end();
            for (const auto& command : commands())
            {
                CLI::App* sub =
                  app.add_subcommand(std::string(command.name), std::string(command.description));
                const auto setup = [this, sub, &command, config_help]
                {
                    runners[sub] = command.setup(*sub, transfer);
                    sub->add_option("--config", config_file, config_help)->option_text("FILE");
                };
                all ? setup() : void(sub->preparse_callback([setup](std::size_t) { setup(); }));
            }
            app.require_subcommand(0, 1);
        }
    };

    auto run(int argc, char** argv) -> int
    {
        namespace app = envcheck::app;
        CommandLine line({ argv, static_cast<std::size_t>(argc) });
        try
        {
            line.app.parse(argc, argv);
        }
        catch (const CLI::ParseError& error)
        {
            // Help and version requests exit 0; every other parse error is bad usage.
            const int status = line.app.exit(error);
            return status == 0 ? code(Exit::ok) : code(Exit::usage);
        }
        if (line.show_version)
        {
            std::cout << envcheck::report::render_version(app::envcheck_version(),
                                                          envcheck::host::embedded_runtime());
            return code(Exit::ok);
        }
        envcheck::host::RealPorts real(line.transfer, app::envcheck_version());
        const auto config =
          app::load_config({ line.config_file, formatted_commands() }, real.ports());
        if (!config)
        {
            return report_error(config.error());
        }
        for (const auto& [sub, runner] : line.runners)
        {
            if (sub->parsed())
            {
                return runner(real.ports(), *config);
            }
        }
        return run_default(real.ports(), *config);
    }
}

auto main(int argc, char** argv) -> int
{
    try
    {
        envcheck::host::start_workers();
        return run(argc, argv);
    }
    catch (const std::exception& error)
    {
        envcheck::cli::warn(
          std::string("envcheck: internal error: ") + error.what() +
          "\n  This is a bug in envcheck; please report it with the command that caused it.\n");
        return envcheck::cli::code(envcheck::cli::Exit::internal);
    }
}
