// Small string helpers shared by every module. ASCII only: package names, versions and keys
// are ASCII by their grammars; user text passes through untouched.
#ifndef ENVCHECK_UTIL_STRINGS_HPP
#define ENVCHECK_UTIL_STRINGS_HPP

#include <charconv>
#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::util
{
    inline constexpr std::string_view whitespace = " \t\r\n\f\v";

    [[nodiscard]] auto trim(std::string_view text) -> std::string_view;
    [[nodiscard]] auto trim_left(std::string_view text) -> std::string_view;
    [[nodiscard]] auto trim_right(std::string_view text) -> std::string_view;

    [[nodiscard]] auto to_lower(std::string_view text) -> std::string;
    void lower_in_place(std::string& text); // to_lower without a new string
    [[nodiscard]] auto iequals(std::string_view a, std::string_view b) -> bool;
    // to_lower(a) <=> to_lower(b), without making either.
    [[nodiscard]] auto compare_lowercase(std::string_view a, std::string_view b)
      -> std::strong_ordering;
    [[nodiscard]] auto istarts_with(std::string_view text, std::string_view prefix) -> bool;

    [[nodiscard]] auto is_digit(char c) -> bool;
    [[nodiscard]] auto is_alpha(char c) -> bool;
    [[nodiscard]] auto is_alnum(char c) -> bool;
    [[nodiscard]] auto is_space(char c) -> bool;

    // Splits on every occurrence of `sep`; keeps empty pieces.
    [[nodiscard]] auto split(std::string_view text, char sep) -> std::vector<std::string_view>;
    // Splits into lines at \n, dropping a trailing \r from each (CRLF files).
    [[nodiscard]] auto split_lines(std::string_view text) -> std::vector<std::string_view>;
    [[nodiscard]] auto join(const std::vector<std::string>& parts, std::string_view sep)
      -> std::string;
    [[nodiscard]] auto replace_all(std::string_view text, std::string_view from,
                                   std::string_view to) -> std::string;

    // Parses a whole string as an unsigned decimal number, without overflow.
    [[nodiscard]] auto parse_uint(std::string_view text) -> std::optional<unsigned long long>;
    [[nodiscard]] auto parse_int(std::string_view text) -> std::optional<long long>;
    // The value of one hex digit (either case), or -1.
    [[nodiscard]] auto hex_digit_value(char c) -> int;

    // std::to_chars with a style and precision: locale-independent.
    [[nodiscard]] auto format_number(double value, std::chars_format style, int precision)
      -> std::string;

    // A fraction as a percentage with `decimals` digits after the point: 0.052 -> "5.2%" (1).
    [[nodiscard]] auto format_percent(double fraction, int decimals = 0) -> std::string;
    // URL percent-decoding: each %XX becomes its byte; a '%' without two hex digits stays.
    [[nodiscard]] auto percent_decode(std::string_view text) -> std::string;

    // 1-based line and column of a byte offset in text.
    struct LineColumn
    {
        std::size_t line = 1;
        std::size_t column = 1;
    };
    [[nodiscard]] auto line_column_at(std::string_view text, std::size_t offset) -> LineColumn;

    // Whether text is valid UTF-8; on failure, the offset of the first bad byte.
    [[nodiscard]] auto find_invalid_utf8(std::string_view text) -> std::optional<std::size_t>;

    // fnmatch-style matching with only '*' (any run, possibly empty) as wildcard; ASCII
    // case-insensitive when asked. Linear-time, no backtracking blow-up.
    [[nodiscard]] auto glob_match(std::string_view pattern, std::string_view text,
                                  bool case_insensitive = false) -> bool;

    // Lowercase hex of bytes, and the reverse (nullopt on odd length or a non-hex digit).
    [[nodiscard]] auto to_hex(std::string_view bytes) -> std::string;
    [[nodiscard]] auto is_hex(std::string_view text) -> bool;

    // Levenshtein distance, for "did you mean" suggestions.
    [[nodiscard]] auto edit_distance(std::string_view a, std::string_view b) -> std::size_t;
    // The candidate closest to `word`, if it is close enough to be a plausible typo.
    [[nodiscard]] auto closest_match(std::string_view word,
                                     const std::vector<std::string>& candidates)
      -> std::optional<std::string>;
}

#endif
