// Character classes for the specs parsers, inline: util::is_space searches a string per call,
// which showed up as the largest cost of parsing a spec.
#ifndef ENVCHECK_SPECS_CHARS_HPP
#define ENVCHECK_SPECS_CHARS_HPP

namespace envcheck::specs::chars
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
}

#endif
