#include "app/config.hpp"

#include <utility>

#include "app/lint.hpp"
#include "checks/doctor.hpp"

namespace envcheck::app
{
    namespace
    {
        auto join_path(const std::string& directory, const std::string& name) -> std::string
        {
            return directory.ends_with('/') ? directory + name : directory + "/" + name;
        }

        // "/a/b" -> "/a", "/a" -> "/"; "/" has none.
        auto parent_of(const std::string& directory) -> std::string
        {
            const auto slash = directory.find_last_of('/');
            if (slash == std::string::npos || slash == 0)
            {
                return "/";
            }
            return directory.substr(0, slash);
        }

        auto read_named(const std::string& path, const std::string& how,
                        const config::KnownIds& known, Files& files) -> util::Result<LoadedConfig>
        {
            auto text = files.read_file(path);
            if (!text)
            {
                auto error = text.error();
                error.kind = util::ErrorKind::usage;
                error.message =
                  "cannot read the configuration named by " + how + ": " + error.message;
                return util::unexpected(std::move(error));
            }
            const bool pyproject = path == "pyproject.toml" || path.ends_with("/pyproject.toml");
            if (pyproject)
            {
                auto parsed = config::parse_pyproject_config(*text, path, known);
                if (!parsed)
                {
                    return util::unexpected(parsed.error());
                }
                if (!*parsed)
                {
                    return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                             "the configuration named by " + how +
                                                               " has no [tool.envcheck] table",
                                                             util::SourceLocation{ path, 0, 0 }));
                }
                return LoadedConfig{ std::move(**parsed), how };
            }
            auto parsed = config::parse_config(*text, path, known);
            if (!parsed)
            {
                return util::unexpected(parsed.error());
            }
            return LoadedConfig{ std::move(*parsed), how };
        }
    }

    auto known_config_ids(const std::vector<std::string>& commands) -> config::KnownIds
    {
        config::KnownIds known;
        known.rules = suppressible_rule_ids();
        for (const auto& check : checks::doctor_checks())
        {
            known.doctor_checks.emplace_back(check.id);
        }
        known.commands = commands;
        return known;
    }

    auto load_config(const ConfigRequest& request, Ports& ports) -> util::Result<LoadedConfig>
    {
        const auto known = known_config_ids(request.commands);
        if (!request.file.empty())
        {
            return read_named(request.file, "--config", known, ports.files);
        }
        if (const auto named = variable(ports.environment, config_variable); !named.empty())
        {
            return read_named(named, std::string("$") + config_variable, known, ports.files);
        }
        const std::string start = ports.files.current_directory();
        std::string directory = start;
        for (;;)
        {
            const auto own = join_path(directory, config_file_name);
            if (ports.files.is_regular_file(own))
            {
                return read_named(own, "found in " + directory, known, ports.files);
            }
            const auto pyproject = join_path(directory, "pyproject.toml");
            if (ports.files.is_regular_file(pyproject))
            {
                auto text = ports.files.read_file(pyproject);
                if (!text)
                {
                    return util::unexpected(text.error());
                }
                auto parsed = config::parse_pyproject_config(*text, pyproject, known);
                if (!parsed)
                {
                    return util::unexpected(parsed.error());
                }
                if (*parsed)
                {
                    return LoadedConfig{ std::move(**parsed), "found in " + directory };
                }
            }
            if (ports.files.exists(join_path(directory, ".git")))
            {
                std::string searched = "none in ";
                searched += start;
                searched += " or above it up to ";
                searched += directory;
                searched += " (the top of its git repository)";
                return LoadedConfig{ {}, std::move(searched) };
            }
            if (directory == "/")
            {
                return LoadedConfig{ {}, "none in " + start + " or above it" };
            }
            directory = parent_of(directory);
        }
    }
}
