// Which environment to read: --prefix, else -n NAME looked up as conda does, else the activated
// one: $VIRTUAL_ENV (a venv activated on top of a conda environment is the one its python runs
// in), then $CONDA_PREFIX. The process environment comes in as values (the cli's map of environment
// variables), so tests pass their own.
#ifndef ENVCHECK_PREFIX_LOCATE_HPP
#define ENVCHECK_PREFIX_LOCATE_HPP

#include <map>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace envcheck::prefix
{
    struct CondaSearchPaths
    {
        std::string conda_prefix;           // $CONDA_PREFIX
        std::string virtual_env;            // $VIRTUAL_ENV
        std::string home;                   // $HOME
        std::vector<std::string> envs_dirs; // $CONDA_ENVS_PATH / $CONDA_ENVS_DIRS, in order
        std::vector<std::string>
          root_prefixes; // $CONDA_ROOT, $MAMBA_ROOT_PREFIX, $CONDA_EXE's root
    };

    struct LocateRequest
    {
        std::string prefix; // --prefix
        std::string name;   // -n
        CondaSearchPaths search;
    };

    struct LocatedPrefix
    {
        std::string path;
        std::string
          how; // for the report: "--prefix", "-n ml (~/.conda/environments.txt)", "$CONDA_PREFIX"
    };

    // conda's order for a name: "base" is the root prefix; otherwise the envs directories
    // ($CONDA_ENVS_PATH, <root>/envs for each known root, ~/.conda/envs, and the roots of the
    // usual installers: ~/miniforge3, ~/miniconda3, ~/anaconda3, ~/mambaforge, /opt/conda), then
    // the environments registered in ~/.conda/environments.txt. Fails with ErrorKind::usage
    // naming where it looked.
    [[nodiscard]] auto locate_prefix(const LocateRequest& request) -> util::Result<LocatedPrefix>;

    // The candidates for a name, in the order they are tried (for messages and tests).
    [[nodiscard]] auto envs_directories(const CondaSearchPaths& search) -> std::vector<std::string>;

    // The search paths from environment variables: CONDA_PREFIX, HOME, CONDA_ENVS_PATH,
    // CONDA_ENVS_DIRS, CONDA_ROOT, MAMBA_ROOT_PREFIX and CONDA_EXE.
    [[nodiscard]] auto search_paths_from(const std::map<std::string, std::string>& variables)
      -> CondaSearchPaths;

    // The conda platform (subdir) this envcheck was built for and runs on: "linux-64",
    // "linux-aarch64", "osx-arm64", ...
    [[nodiscard]] auto current_platform() -> std::string;
}

#endif
