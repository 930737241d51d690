#include "formats/pyproject.hpp"

#include <string>

#include "formats/toml_document.hpp"

namespace envcheck::formats
{
    namespace
    {
        auto shape_error(std::string_view file_name, const TomlValue& value, std::string what)
          -> util::Error
        {
            return util::make_error(util::ErrorKind::parse,
                                    std::move(what) + ", not " + std::string(to_string(value.kind)),
                                    util::SourceLocation{ std::string(file_name),
                                                          value.position.line,
                                                          value.position.column });
        }

        // An array of requirement strings into pip lines.
        auto add_lines(std::string_view file_name, const TomlValue& array, const std::string& where,
                       EnvironmentFile& file) -> util::Result<void>
        {
            if (array.kind != TomlValue::Kind::array)
            {
                return util::unexpected(
                  shape_error(file_name, array, where + " must be an array of requirements"));
            }
            for (const auto& item : array.items)
            {
                if (item.kind != TomlValue::Kind::string)
                {
                    return util::unexpected(
                      shape_error(file_name, item, where + " must hold requirement strings"));
                }
                if (file.pip.empty())
                {
                    file.pip_position = item.position;
                }
                // The string's first character, after its opening quote.
                file.pip.push_back(EnvPipLine{
                  item.text, TextPosition{ item.position.line, item.position.column + 1 }, {} });
            }
            return {};
        }
    }

    auto is_pyproject_file_name(std::string_view file_name) -> bool
    {
        return file_name == "pyproject.toml" || file_name.ends_with("/pyproject.toml");
    }

    auto parse_pyproject(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>
    {
        auto document = parse_toml(text, file_name);
        if (!document)
        {
            return util::unexpected(document.error());
        }
        EnvironmentFile file;
        file.has_dependencies = true;
        if (const auto* project = document->find("project"))
        {
            if (project->kind != TomlValue::Kind::table)
            {
                return util::unexpected(
                  shape_error(file_name, *project, "[project] must be a table"));
            }
            if (const auto* dependencies = project->find("dependencies"))
            {
                if (auto added = add_lines(file_name, *dependencies, "project.dependencies", file);
                    !added)
                {
                    return util::unexpected(added.error());
                }
            }
            if (const auto* optional = project->find("optional-dependencies"))
            {
                for (const auto& [group, lines] : optional->members)
                {
                    if (auto added = add_lines(file_name, lines,
                                               "project.optional-dependencies." + group, file);
                        !added)
                    {
                        return util::unexpected(added.error());
                    }
                }
            }
        }
        if (const auto* groups = document->find("dependency-groups"))
        {
            for (const auto& [group, lines] : groups->members)
            {
                if (lines.kind != TomlValue::Kind::array)
                {
                    return util::unexpected(shape_error(
                      file_name, lines, "dependency-groups." + group + " must be an array"));
                }
                for (const auto& item : lines.items)
                {
                    if (item.kind == TomlValue::Kind::table)
                    {
                        continue; // {include-group = "x"}: that group is read on its own
                    }
                    if (item.kind != TomlValue::Kind::string)
                    {
                        return util::unexpected(shape_error(file_name, item,
                                                            "dependency-groups." + group +
                                                              " must hold requirement strings"));
                    }
                    file.pip.push_back(
                      EnvPipLine{ item.text,
                                  TextPosition{ item.position.line, item.position.column + 1 },
                                  {} });
                }
            }
        }
        return file;
    }
}
