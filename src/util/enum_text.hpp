// Reading an enum back from the text its to_string gives, for the enums whose names appear in
// command lines, reports and locks.
#ifndef ENVCHECK_UTIL_ENUM_TEXT_HPP
#define ENVCHECK_UTIL_ENUM_TEXT_HPP

#include <initializer_list>
#include <optional>
#include <string_view>

namespace envcheck::util
{
    // The value among `values` whose to_string (found by argument-dependent lookup) is `text`.
    template<class Enum>
    [[nodiscard]] auto parse_enum(std::string_view text, std::initializer_list<Enum> values)
      -> std::optional<Enum>
    {
        for (const Enum value : values)
        {
            if (to_string(value) == text)
            {
                return value;
            }
        }
        return std::nullopt;
    }
}

#endif
