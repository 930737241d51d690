// What the YAML lock readers (conda-lock.yml, pixi.lock) share: loading the one document of a
// text with the YAML event reader (formats/yaml_document.hpp), and their errors.
#ifndef ENVCHECK_FORMATS_LOCK_YAML_HPP
#define ENVCHECK_FORMATS_LOCK_YAML_HPP

#include <string>
#include <string_view>

#include "formats/yaml_document.hpp"
#include "util/result.hpp"

namespace envcheck::formats::lock_yaml
{
    // The document of `text`, whose top level must be a mapping: anything else is "not <what>:
    // the top level is not a mapping" (what: "a conda-lock file", "a pixi.lock"). YAML errors
    // carry file, line and column.
    [[nodiscard]] auto load_mapping(std::string_view text, std::string_view file_name,
                                    std::string_view what) -> util::Result<yaml::Document>;

    // The scalar under `key` of a mapping as a string; "" when missing, null or not a scalar.
    [[nodiscard]] inline auto text(const yaml::Node& map, std::string_view key) -> std::string
    {
        return std::string(map.text(key));
    }

    [[nodiscard]] auto error(util::ErrorKind kind, std::string message, util::SourceLocation where,
                             std::string hint = {}) -> util::Error;
}

#endif
