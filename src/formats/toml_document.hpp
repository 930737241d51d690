// TOML text -> a small tree of values with the line and column of each, through toml++ (the one
// TOML reader of envcheck: pyproject.toml here; uv.lock, pylock.toml and a config file build on
// it). toml++ is used header-only, so the shipped binary needs no TOML library at run time.
// Pure.
#ifndef ENVCHECK_FORMATS_TOML_DOCUMENT_HPP
#define ENVCHECK_FORMATS_TOML_DOCUMENT_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct TomlMember;

    struct TomlValue
    {
        enum class Kind
        {
            string,
            integer,
            floating,
            boolean,
            date_time, // dates, times and date-times, kept as their TOML text
            array,
            table,
        };

        Kind kind = Kind::table;
        std::string text;             // a string's value; other scalars as TOML writes them
        std::vector<TomlValue> items; // array
        // A table's members, in document order. (Not pair<string, TomlValue>: a pair of an
        // incomplete type, which clang's libstdc++ builds reject.)
        std::vector<TomlMember> members;
        TextPosition position; // where the value starts

        // A table's member, nullptr when absent or when this is not a table.
        [[nodiscard]] auto find(std::string_view key) const -> const TomlValue*;
    };

    struct TomlMember
    {
        std::string key;
        TomlValue value;
    };

    [[nodiscard]] auto to_string(TomlValue::Kind kind) -> std::string_view;

    // The whole document as a table. Errors: ErrorKind::parse with file, line and column.
    [[nodiscard]] auto parse_toml(std::string_view text, std::string_view file_name)
      -> util::Result<TomlValue>;
}

#endif
