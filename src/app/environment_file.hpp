// Loading the environment file a command is given (check, lock, diff): read through the ports,
// parsed, and refused when the loader reports an error.
#ifndef ENVCHECK_APP_ENVIRONMENT_FILE_HPP
#define ENVCHECK_APP_ENVIRONMENT_FILE_HPP

#include <optional>
#include <string>
#include <vector>

#include "app/ports.hpp"
#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    // The project file `check` and `lock` use when none is named (README "Default action").
    inline constexpr const char* default_environment_file = "environment.yml";
    // The spec of a project without environment.yml that has a lock (uv, pixi).
    inline constexpr const char* project_pyproject_file = "pyproject.toml";
    // The environment pixi installs for a project, used when none is activated.
    inline constexpr const char* pixi_default_prefix = ".pixi/envs/default";

    // The files `check` uses in a project directory when it is given neither --env nor --lock
    // (README "What envcheck with no command does"): ./environment.yml (else ./pyproject.toml,
    // when a lock is beside it), and the first lock present of: envcheck's beside the
    // environment file (environment.lock.json), pixi.lock, conda-lock.yml, uv.lock,
    // pylock.toml. envcheck's lock comes first because it alone records the machine and the
    // performance; the locks present but not used are listed.
    struct ProjectFiles
    {
        std::string spec;                     // empty: none
        std::string lock;                     // empty: none
        std::vector<std::string> other_locks; // present, not used
        std::vector<std::string> looked_for;  // every lock name, in order

        [[nodiscard]] auto empty() const -> bool { return spec.empty() && lock.empty(); }
    };
    [[nodiscard]] auto find_project_files(const Files& files) -> ProjectFiles;

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
