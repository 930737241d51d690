// The configuration of a run (config/config.hpp): --config FILE, else $ENVCHECK_CONFIG, else
// the first `.envcheck.toml`, or pyproject.toml with a [tool.envcheck] table, in the working
// directory or one above it. The walk upward stops at the filesystem root and at the top of a
// git repository (a directory holding .git): a project's configuration never comes from outside
// its repository. In one directory, .envcheck.toml wins over pyproject.toml; a pyproject.toml
// without [tool.envcheck] is passed over. `envcheck config` prints the result.
#ifndef ENVCHECK_APP_CONFIG_HPP
#define ENVCHECK_APP_CONFIG_HPP

#include <string>
#include <vector>

#include "app/ports.hpp"
#include "config/config.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    inline constexpr const char* config_file_name = ".envcheck.toml";
    inline constexpr const char* config_variable = "ENVCHECK_CONFIG";

    struct ConfigRequest
    {
        std::string file;                  // --config FILE; empty: $ENVCHECK_CONFIG, else search
        std::vector<std::string> commands; // the commands [format] may name
    };

    struct LoadedConfig
    {
        config::Config config; // config.file empty: none found, every setting its default
        // How it was found: "--config", "$ENVCHECK_CONFIG", "found in /work/project", or why
        // none was ("none in /work/project or above it (up to /work/project, a git repository's
        // top)").
        std::string how;
    };

    // Ids a configuration may name: the lint rules, the doctor checks and `commands`.
    [[nodiscard]] auto known_config_ids(const std::vector<std::string>& commands)
      -> config::KnownIds;

    // Fails (ErrorKind::usage) when the file named cannot be read, or a configuration does not
    // parse or names an unknown key or id.
    [[nodiscard]] auto load_config(const ConfigRequest& request, Ports& ports)
      -> util::Result<LoadedConfig>;
}

#endif
