#include "app/environment_file.hpp"

#include <utility>

#include "formats/lock.hpp"
#include "formats/pyproject.hpp"
#include "formats/requirements_txt.hpp"
#include "util/sha256.hpp"

namespace envcheck::app
{
    auto parse_environment_text(const std::string& text, const std::string& path)
      -> util::Result<formats::EnvironmentFile>
    {
        if (formats::is_requirements_file_name(path))
        {
            return formats::parse_requirements_txt(text, path);
        }
        if (formats::is_pyproject_file_name(path))
        {
            return formats::parse_pyproject(text, path);
        }
        auto file = formats::parse_environment_yaml(text, path);
        if (!file)
        {
            return util::unexpected(file.error());
        }
        for (const auto& diagnostic : file->diagnostics)
        {
            if (diagnostic.severity == model::Severity::error)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, diagnostic.message + " [" + diagnostic.rule + "]",
                  util::SourceLocation{ path, diagnostic.position.line,
                                        diagnostic.position.column },
                  diagnostic.fix));
            }
        }
        return file;
    }

    auto load_environment_file(const std::string& path, Files& files)
      -> util::Result<LoadedEnvironmentFile>
    {
        auto text = files.read_input(path);
        if (!text)
        {
            return util::unexpected(text.error());
        }
        auto file = parse_environment_text(*text, path);
        if (!file)
        {
            return util::unexpected(file.error());
        }
        return LoadedEnvironmentFile{ path, util::Sha256::hex_of(*text), std::move(*file) };
    }

    auto load_named_environment_file(const std::string& path, Files& files)
      -> util::Result<std::optional<LoadedEnvironmentFile>>
    {
        if (path.empty())
        {
            return std::optional<LoadedEnvironmentFile>{};
        }
        auto loaded = load_environment_file(path, files);
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        return std::optional(std::move(*loaded));
    }

    auto find_project_files(const Files& files) -> ProjectFiles
    {
        ProjectFiles found;
        const bool has_environment = files.is_regular_file(default_environment_file);
        // envcheck's own lock by the environment file's name, then each format's plain file
        // names (not its globs), in the registry's order.
        found.looked_for = { formats::default_lock_path(has_environment ? default_environment_file
                                                                        : "") };
        for (const auto& row : formats::lock_formats())
        {
            for (const auto name : row.file_names)
            {
                if (row.format != model::LockFormat::envcheck &&
                    name.find('*') == std::string_view::npos)
                {
                    found.looked_for.emplace_back(name);
                }
            }
        }
        for (const auto& name : found.looked_for)
        {
            if (!files.is_regular_file(name))
            {
                continue;
            }
            (found.lock.empty() ? found.lock : found.other_locks.emplace_back()) = name;
        }
        if (has_environment)
        {
            found.spec = default_environment_file;
        }
        else if (!found.lock.empty() && files.is_regular_file(project_pyproject_file))
        {
            found.spec = project_pyproject_file;
        }
        return found;
    }
}
