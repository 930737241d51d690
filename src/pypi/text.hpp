// Character classes of the Python grammars this module mirrors. packaging's regular expressions
// run on Python str: `\s` and str.strip() also match Unicode spaces (U+00A0, U+2029, ...), which
// are decoded here from UTF-8; everything else in these grammars is ASCII.
#ifndef ENVCHECK_PYPI_TEXT_HPP
#define ENVCHECK_PYPI_TEXT_HPP

#include <cstddef>
#include <string>
#include <string_view>

#include "util/chars.hpp"

namespace envcheck::pypi::detail
{
    // Byte length of the Python whitespace character at `pos`, 0 when there is none.
    [[nodiscard]] auto python_space_at(std::string_view text, std::size_t pos) -> std::size_t;
    // The index of the first non-whitespace byte at or after `pos`.
    [[nodiscard]] auto skip_python_space(std::string_view text, std::size_t pos) -> std::size_t;
    // str.strip(): removes Python whitespace at both ends.
    [[nodiscard]] auto strip_python_space(std::string_view text) -> std::string_view;
    // ASCII whitespace trimmed off both ends; unlike util::trim the result always points into
    // `text` (an all-space input gives an empty view at its end), so offsets stay computable.
    [[nodiscard]] auto trim_ascii(std::string_view text) -> std::string_view;
    [[nodiscard]] auto trim_ascii_right(std::string_view text) -> std::string_view;
    [[nodiscard]] auto contains_python_space(std::string_view text) -> bool;

    using util::chars::is_alnum;
    using util::chars::is_alpha;
    using util::chars::is_digit;
    using util::chars::to_lower;
    // A regex word character (ASCII): letters, digits and '_'.
    [[nodiscard]] constexpr auto is_word(char c) -> bool
    {
        return is_alnum(c) || c == '_';
    }
    [[nodiscard]] auto lowercase(std::string_view text) -> std::string;
    // Case-insensitive (ASCII) prefix test at `pos`.
    [[nodiscard]] auto istarts_with_at(std::string_view text, std::size_t pos,
                                       std::string_view word) -> bool;
}

#endif
