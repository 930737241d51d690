// ASCII character classes, inline: the parsers call them per byte (util::is_space searches a
// string per call, which showed up as the largest cost of parsing a spec).
#ifndef ENVCHECK_UTIL_CHARS_HPP
#define ENVCHECK_UTIL_CHARS_HPP

namespace envcheck::util::chars
{
    [[nodiscard]] constexpr auto is_space(char c) -> bool
    {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    }

    [[nodiscard]] constexpr auto is_digit(char c) -> bool
    {
        return c >= '0' && c <= '9';
    }

    [[nodiscard]] constexpr auto is_alpha(char c) -> bool
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    [[nodiscard]] constexpr auto is_alnum(char c) -> bool
    {
        return is_digit(c) || is_alpha(c);
    }

    [[nodiscard]] constexpr auto to_lower(char c) -> char
    {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
}

#endif
