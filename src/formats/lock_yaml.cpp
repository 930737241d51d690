#include "formats/lock_yaml.hpp"

namespace envcheck::formats::lock_yaml
{
    auto load(std::string_view text, std::string_view file_name) -> util::Result<YAML::Node>
    {
        try
        {
            return YAML::Load(std::string(text));
        }
        catch (const YAML::Exception& failure)
        {
            // yaml-cpp marks are 0-based; -1 when unknown.
            const auto line =
              failure.mark.line >= 0 ? static_cast<std::size_t>(failure.mark.line) + 1 : 0;
            const auto column =
              failure.mark.column >= 0 ? static_cast<std::size_t>(failure.mark.column) + 1 : 0;
            return util::unexpected(
              util::make_error(util::ErrorKind::parse, "invalid YAML: " + failure.msg,
                               util::SourceLocation{ std::string(file_name), line, column }));
        }
    }

    auto load_mapping(std::string_view text, std::string_view file_name, std::string_view what)
      -> util::Result<YAML::Node>
    {
        auto loaded = load(text, file_name);
        if (loaded && !loaded->IsMap())
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::parse,
                               "not " + std::string(what) + ": the top level is not a mapping",
                               util::SourceLocation{ std::string(file_name), 0, 0 }));
        }
        return loaded;
    }

    auto child(const YAML::Node& map, const char* key) -> YAML::Node
    {
        if (!map.IsDefined() || !map.IsMap())
        {
            return YAML::Node();
        }
        const YAML::Node value = map[key];
        return value.IsDefined() ? value : YAML::Node();
    }

    auto scalar(const YAML::Node& map, const char* key) -> std::string
    {
        const YAML::Node value = child(map, key);
        return value.IsScalar() ? value.Scalar() : std::string();
    }

    auto location(std::string_view file_name, const YAML::Node& node) -> util::SourceLocation
    {
        const YAML::Mark mark = node.Mark();
        if (mark.line < 0)
        {
            return util::SourceLocation{ std::string(file_name), 0, 0 };
        }
        return util::SourceLocation{ std::string(file_name),
                                     static_cast<std::size_t>(mark.line) + 1,
                                     static_cast<std::size_t>(mark.column) + 1 };
    }

    auto error(util::ErrorKind kind, std::string message, util::SourceLocation where,
               std::string hint) -> util::Error
    {
        return util::make_error(kind, std::move(message), std::move(where), std::move(hint));
    }
}
