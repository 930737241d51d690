// Reading the environment files and locks a command is given: local paths, "-" (stdin),
// process substitution (/dev/fd/N), and http(s):// or file:// URLs through libcurl. The
// transfer options (--ca-bundle, --connect-timeout, --download-timeout, --max-download) are the
// same for every command; one command runs per process, so they are kept here once.
#ifndef ENVCHECK_CLI_INPUTS_HPP
#define ENVCHECK_CLI_INPUTS_HPP

#include <string>

#include "util/result.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    // Adds the transfer options to a command that reads environment files or locks.
    void add_input_options(CLI::App& app);

    // The text of `path_or_url`, with the transfer options given on the command line.
    [[nodiscard]] auto read_input(const std::string& path_or_url) -> util::Result<std::string>;

    [[nodiscard]] auto is_url(const std::string& path_or_url) -> bool;
}

#endif
