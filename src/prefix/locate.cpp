#include "prefix/locate.hpp"

#include <algorithm>
#include <filesystem>

#include "fsio/files.hpp"
#include "util/strings.hpp"

namespace envcheck::prefix
{
    namespace
    {
        namespace fs = std::filesystem;

        auto is_environment(const fs::path& path) -> bool
        {
            std::error_code ignored;
            return fs::is_directory(path / "conda-meta", ignored) ||
                   fs::is_regular_file(path / "pyvenv.cfg", ignored);
        }

        void append_split(std::vector<std::string>& out, const std::string& value)
        {
            for (const auto piece : util::split(value, ':'))
            {
                if (!piece.empty())
                {
                    out.emplace_back(piece);
                }
            }
        }

        auto usual_roots(const CondaSearchPaths& search) -> std::vector<std::string>
        {
            std::vector<std::string> roots = search.root_prefixes;
            if (!search.home.empty())
            {
                for (const char* installer :
                     { "miniforge3", "miniconda3", "anaconda3", "mambaforge", "micromamba" })
                {
                    roots.push_back(search.home + "/" + installer);
                }
            }
            roots.emplace_back("/opt/conda");
            return roots;
        }

        // ~/.conda/environments.txt: one registered prefix per line.
        auto registered_environments(const std::string& home) -> std::vector<std::string>
        {
            if (home.empty())
            {
                return {};
            }
            const auto text = fsio::read_file(home + "/.conda/environments.txt");
            std::vector<std::string> prefixes;
            if (!text)
            {
                return prefixes;
            }
            for (const auto line : util::split_lines(*text))
            {
                const auto trimmed = util::trim(line);
                if (!trimmed.empty() && trimmed.front() != '#')
                {
                    prefixes.emplace_back(trimmed);
                }
            }
            return prefixes;
        }
    }

    auto envs_directories(const CondaSearchPaths& search) -> std::vector<std::string>
    {
        std::vector<std::string> dirs = search.envs_dirs;
        for (const auto& root : search.root_prefixes)
        {
            dirs.push_back(root + "/envs");
        }
        if (!search.home.empty())
        {
            dirs.push_back(search.home + "/.conda/envs");
        }
        for (const auto& root : usual_roots(search))
        {
            dirs.push_back(root + "/envs");
        }
        std::vector<std::string> unique;
        for (auto& dir : dirs)
        {
            if (std::find(unique.begin(), unique.end(), dir) == unique.end())
            {
                unique.push_back(std::move(dir));
            }
        }
        return unique;
    }

    auto locate_prefix(const LocateRequest& request) -> util::Result<LocatedPrefix>
    {
        if (!request.prefix.empty())
        {
            return LocatedPrefix{ request.prefix, "--prefix" };
        }
        if (request.name.empty())
        {
            if (!request.search.virtual_env.empty())
            {
                return LocatedPrefix{ request.search.virtual_env, "$VIRTUAL_ENV" };
            }
            if (!request.search.conda_prefix.empty())
            {
                return LocatedPrefix{ request.search.conda_prefix, "$CONDA_PREFIX" };
            }
            return util::unexpected(
              util::make_error(util::ErrorKind::usage, "no environment to read", {},
                               "pass --prefix PATH or -n NAME, or activate the environment"));
        }
        const std::string& name = request.name;
        if (name.find('/') != std::string::npos)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage, "'" + name + "' is a path, not an environment name", {},
              "use --prefix " + name));
        }
        if (name == "base" || name == "root")
        {
            for (const auto& root : usual_roots(request.search))
            {
                if (is_environment(root))
                {
                    return LocatedPrefix{ root, "-n " + name + " (the root prefix)" };
                }
            }
        }
        const auto dirs = envs_directories(request.search);
        for (const auto& dir : dirs)
        {
            const fs::path candidate = fs::path(dir) / name;
            if (is_environment(candidate))
            {
                return LocatedPrefix{ candidate.string(), "-n " + name + " (" + dir + ")" };
            }
        }
        for (const auto& registered : registered_environments(request.search.home))
        {
            if (fs::path(registered).filename() == name && is_environment(registered))
            {
                return LocatedPrefix{ registered, "-n " + name + " (~/.conda/environments.txt)" };
            }
        }
        return util::unexpected(
          util::make_error(util::ErrorKind::usage, "no environment named '" + name + "'", {},
                           "looked in " + util::join(dirs, ", ") +
                             " and ~/.conda/environments.txt; pass --prefix PATH"));
    }

    auto search_paths_from(const std::map<std::string, std::string>& variables) -> CondaSearchPaths
    {
        const auto variable = [&](const char* name)
        {
            const auto found = variables.find(name);
            return found == variables.end() ? std::string() : found->second;
        };
        CondaSearchPaths search;
        search.conda_prefix = variable("CONDA_PREFIX");
        search.virtual_env = variable("VIRTUAL_ENV");
        search.home = variable("HOME");
        append_split(search.envs_dirs, variable("CONDA_ENVS_PATH"));
        append_split(search.envs_dirs, variable("CONDA_ENVS_DIRS"));
        for (const char* name : { "CONDA_ROOT", "MAMBA_ROOT_PREFIX" })
        {
            if (auto value = variable(name); !value.empty())
            {
                search.root_prefixes.push_back(std::move(value));
            }
        }
        // $CONDA_EXE is <root>/bin/conda (or <root>/condabin/conda).
        const fs::path conda_exe = variable("CONDA_EXE");
        if (!conda_exe.empty() && conda_exe.has_parent_path())
        {
            search.root_prefixes.push_back(conda_exe.parent_path().parent_path().string());
        }
        return search;
    }

    auto current_platform() -> std::string
    {
#if defined(__linux__) && defined(__x86_64__)
        return "linux-64";
#elif defined(__linux__) && defined(__aarch64__)
        return "linux-aarch64";
#elif defined(__linux__) && defined(__powerpc64__)
        return "linux-ppc64le";
#elif defined(__linux__) && defined(__s390x__)
        return "linux-s390x";
#elif defined(__linux__) && defined(__i386__)
        return "linux-32";
#elif defined(__APPLE__) && defined(__aarch64__)
        return "osx-arm64";
#elif defined(__APPLE__) && defined(__x86_64__)
        return "osx-64";
#elif defined(_WIN64)
        return "win-64";
#else
        return "unknown";
#endif
    }
}
