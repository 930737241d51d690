// Loading the environment file a command is given (check, lock, diff): read through the ports,
// parsed, and refused when the loader reports an error.
#ifndef ENVCHECK_APP_ENVIRONMENT_FILE_HPP
#define ENVCHECK_APP_ENVIRONMENT_FILE_HPP

#include <optional>
#include <string>

#include "app/ports.hpp"
#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    // The project file `check` and `lock` use when none is named (README "Default action").
    inline constexpr const char* default_environment_file = "environment.yml";

    struct LoadedEnvironmentFile
    {
        std::string path;
        std::string sha256; // of the bytes
        formats::EnvironmentFile file;
    };

    // Parses environment-file text; one that loads with error diagnostics fails
    // (ErrorKind::parse) with the first of them.
    [[nodiscard]] auto parse_environment_text(const std::string& text, const std::string& path)
      -> util::Result<formats::EnvironmentFile>;

    // Reads (files.read_input: a path, "-" or a URL) and parses an environment file.
    [[nodiscard]] auto load_environment_file(const std::string& path, Files& files)
      -> util::Result<LoadedEnvironmentFile>;

    // The same for a file that may not be named: nullopt for an empty path.
    [[nodiscard]] auto load_named_environment_file(const std::string& path, Files& files)
      -> util::Result<std::optional<LoadedEnvironmentFile>>;
}

#endif
