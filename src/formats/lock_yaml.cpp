#include "formats/lock_yaml.hpp"

namespace envcheck::formats::lock_yaml
{
    auto load_mapping(std::string_view text, std::string_view file_name, std::string_view what)
      -> util::Result<yaml::Document>
    {
        auto loaded = yaml::parse(text, file_name);
        if (loaded && !loaded->root().is_mapping())
        {
            const auto root = loaded->root();
            return util::unexpected(util::make_error(
              util::ErrorKind::parse,
              "not " + std::string(what) + ": the top level is not a mapping",
              util::SourceLocation{ std::string(file_name), root.line(), root.column() }));
        }
        return loaded;
    }

    auto error(util::ErrorKind kind, std::string message, util::SourceLocation where,
               std::string hint) -> util::Error
    {
        return util::make_error(kind, std::move(message), std::move(where), std::move(hint));
    }
}
