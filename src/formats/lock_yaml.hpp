// What the YAML lock readers (conda-lock.yml, pixi.lock) share: loading one document with
// yaml-cpp on text, and reading scalars without exceptions.
#ifndef ENVCHECK_FORMATS_LOCK_YAML_HPP
#define ENVCHECK_FORMATS_LOCK_YAML_HPP

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "util/result.hpp"

namespace envcheck::formats::lock_yaml
{
    // The single document of `text`; YAML errors carry file, line and column.
    [[nodiscard]] auto load(std::string_view text, std::string_view file_name)
      -> util::Result<YAML::Node>;

    // As load, for formats whose top level is a mapping: anything else is "not <what>: the top
    // level is not a mapping" (what: "a conda-lock file", "a pixi.lock").
    [[nodiscard]] auto load_mapping(std::string_view text, std::string_view file_name,
                                    std::string_view what) -> util::Result<YAML::Node>;

    // The value under `key` of a mapping, or a null node when `map` is not a mapping or has no
    // such key (yaml-cpp's own operator[] gives an "invalid" node that throws when inspected).
    [[nodiscard]] auto child(const YAML::Node& map, const char* key) -> YAML::Node;

    // The scalar under `key` of a mapping, or "" when it is missing, null or not a scalar.
    [[nodiscard]] auto scalar(const YAML::Node& map, const char* key) -> std::string;

    // Where a node starts (1-based).
    [[nodiscard]] auto location(std::string_view file_name, const YAML::Node& node)
      -> util::SourceLocation;

    // Runs a reader over loaded YAML. yaml-cpp throws when a node is used as the wrong kind; a
    // reader is written not to, and this turns any it missed into a parse error, never a crash.
    template<class Read>
    [[nodiscard]] auto guarded(std::string_view file_name, Read&& read) -> decltype(read())
    {
        try
        {
            return read();
        }
        catch (const YAML::Exception& failure)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::parse, "unexpected YAML structure: " + failure.msg,
                               util::SourceLocation{ std::string(file_name), 0, 0 }));
        }
    }

    [[nodiscard]] auto error(util::ErrorKind kind, std::string message, util::SourceLocation where,
                             std::string hint = {}) -> util::Error;
}

#endif
