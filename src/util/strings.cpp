#include "util/strings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace envcheck::util
{
    auto trim_left(std::string_view text) -> std::string_view
    {
        // An all-blank input gives an empty view at its end, never a null view, so callers
        // can still compute offsets from data().
        const auto start = text.find_first_not_of(whitespace);
        return start == std::string_view::npos ? text.substr(text.size()) : text.substr(start);
    }

    auto trim_right(std::string_view text) -> std::string_view
    {
        const auto end = text.find_last_not_of(whitespace);
        return end == std::string_view::npos ? text.substr(0, 0) : text.substr(0, end + 1);
    }

    auto trim(std::string_view text) -> std::string_view
    {
        return trim_right(trim_left(text));
    }

    auto is_digit(char c) -> bool
    {
        return c >= '0' && c <= '9';
    }

    auto is_alpha(char c) -> bool
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    auto is_alnum(char c) -> bool
    {
        return is_digit(c) || is_alpha(c);
    }

    auto is_space(char c) -> bool
    {
        return whitespace.find(c) != std::string_view::npos;
    }

    namespace
    {
        auto lower(char c) -> char
        {
            return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        }
    }

    auto to_lower(std::string_view text) -> std::string
    {
        std::string out(text);
        lower_in_place(out);
        return out;
    }

    void lower_in_place(std::string& text)
    {
        std::transform(text.begin(), text.end(), text.begin(), lower);
    }

    auto compare_lowercase(std::string_view a, std::string_view b) -> std::strong_ordering
    {
        const std::size_t common = std::min(a.size(), b.size());
        for (std::size_t i = 0; i < common; ++i)
        {
            const auto x = static_cast<unsigned char>(lower(a[i]));
            const auto y = static_cast<unsigned char>(lower(b[i]));
            if (x != y)
            {
                return x <=> y;
            }
        }
        return a.size() <=> b.size();
    }

    auto iequals(std::string_view a, std::string_view b) -> bool
    {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(),
                          [](char x, char y) { return lower(x) == lower(y); });
    }

    auto istarts_with(std::string_view text, std::string_view prefix) -> bool
    {
        return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
    }

    auto split(std::string_view text, char sep) -> std::vector<std::string_view>
    {
        std::vector<std::string_view> parts;
        std::size_t start = 0;
        while (true)
        {
            const auto pos = text.find(sep, start);
            if (pos == std::string_view::npos)
            {
                parts.push_back(text.substr(start));
                return parts;
            }
            parts.push_back(text.substr(start, pos - start));
            start = pos + 1;
        }
    }

    auto split_lines(std::string_view text) -> std::vector<std::string_view>
    {
        std::vector<std::string_view> lines;
        if (text.empty())
        {
            return lines;
        }
        for (auto line : split(text, '\n'))
        {
            if (!line.empty() && line.back() == '\r')
            {
                line.remove_suffix(1);
            }
            lines.push_back(line);
        }
        if (text.back() == '\n')
        {
            lines.pop_back(); // the empty piece after the final newline is not a line
        }
        return lines;
    }

    auto join(const std::vector<std::string>& parts, std::string_view sep) -> std::string
    {
        std::string out;
        for (std::size_t i = 0; i < parts.size(); ++i)
        {
            if (i != 0)
            {
                out += sep;
            }
            out += parts[i];
        }
        return out;
    }

    auto replace_all(std::string_view text, std::string_view from, std::string_view to)
      -> std::string
    {
        if (from.empty())
        {
            return std::string(text);
        }
        std::string out;
        std::size_t start = 0;
        while (true)
        {
            const auto pos = text.find(from, start);
            if (pos == std::string_view::npos)
            {
                out += text.substr(start);
                return out;
            }
            out += text.substr(start, pos - start);
            out += to;
            start = pos + from.size();
        }
    }

    auto parse_uint(std::string_view text) -> std::optional<unsigned long long>
    {
        if (text.empty())
        {
            return std::nullopt;
        }
        unsigned long long value = 0;
        for (const char c : text)
        {
            if (!is_digit(c))
            {
                return std::nullopt;
            }
            const auto digit = static_cast<unsigned long long>(c - '0');
            if (value > (std::numeric_limits<unsigned long long>::max() - digit) / 10)
            {
                return std::nullopt;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    auto hex_digit_value(char c) -> int
    {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f')
        {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F')
        {
            return c - 'A' + 10;
        }
        return -1;
    }

    auto percent_decode(std::string_view text) -> std::string
    {
        std::string out;
        out.reserve(text.size());
        for (std::size_t i = 0; i < text.size(); ++i)
        {
            const int high = i + 2 < text.size() ? hex_digit_value(text[i + 1]) : -1;
            const int low = i + 2 < text.size() ? hex_digit_value(text[i + 2]) : -1;
            if (text[i] == '%' && high >= 0 && low >= 0)
            {
                out += static_cast<char>(high * 16 + low);
                i += 2;
            }
            else
            {
                out += text[i];
            }
        }
        return out;
    }

    auto parse_int(std::string_view text) -> std::optional<long long>
    {
        bool negative = false;
        if (!text.empty() && (text.front() == '-' || text.front() == '+'))
        {
            negative = text.front() == '-';
            text.remove_prefix(1);
        }
        const auto magnitude = parse_uint(text);
        if (!magnitude)
        {
            return std::nullopt;
        }
        constexpr auto max = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
        if (*magnitude > max + (negative ? 1 : 0))
        {
            return std::nullopt;
        }
        if (negative)
        {
            return *magnitude == max + 1 ? std::numeric_limits<long long>::min()
                                         : -static_cast<long long>(*magnitude);
        }
        return static_cast<long long>(*magnitude);
    }

    auto line_column_at(std::string_view text, std::size_t offset) -> LineColumn
    {
        LineColumn at;
        offset = std::min(offset, text.size());
        for (std::size_t i = 0; i < offset; ++i)
        {
            if (text[i] == '\n')
            {
                ++at.line;
                at.column = 1;
            }
            else
            {
                ++at.column;
            }
        }
        return at;
    }

    auto find_invalid_utf8(std::string_view text) -> std::optional<std::size_t>
    {
        const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
        const std::size_t size = text.size();
        std::size_t i = 0;
        while (i < size)
        {
            const unsigned char c = bytes[i];
            if (c < 0x80)
            {
                ++i;
                continue;
            }
            std::size_t length = 0;
            unsigned int code = 0;
            unsigned int min = 0;
            if ((c & 0xE0) == 0xC0)
            {
                length = 2;
                code = c & 0x1Fu;
                min = 0x80;
            }
            else if ((c & 0xF0) == 0xE0)
            {
                length = 3;
                code = c & 0x0Fu;
                min = 0x800;
            }
            else if ((c & 0xF8) == 0xF0)
            {
                length = 4;
                code = c & 0x07u;
                min = 0x10000;
            }
            else
            {
                return i;
            }
            if (i + length > size)
            {
                return i;
            }
            for (std::size_t k = 1; k < length; ++k)
            {
                if ((bytes[i + k] & 0xC0) != 0x80)
                {
                    return i;
                }
                code = (code << 6) | (bytes[i + k] & 0x3Fu);
            }
            // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid.
            if (code < min || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
            {
                return i;
            }
            i += length;
        }
        return std::nullopt;
    }

    auto glob_match(std::string_view pattern, std::string_view text, bool case_insensitive) -> bool
    {
        auto same = [case_insensitive](char a, char b)
        { return case_insensitive ? lower(a) == lower(b) : a == b; };
        // Greedy matching with a single backtrack point: linear for '*'-only globs.
        std::size_t p = 0;
        std::size_t t = 0;
        std::size_t star = std::string_view::npos;
        std::size_t resume = 0;
        while (t < text.size())
        {
            if (p < pattern.size() && pattern[p] == '*')
            {
                star = p++;
                resume = t;
            }
            else if (p < pattern.size() && same(pattern[p], text[t]))
            {
                ++p;
                ++t;
            }
            else if (star != std::string_view::npos)
            {
                p = star + 1;
                t = ++resume;
            }
            else
            {
                return false;
            }
        }
        while (p < pattern.size() && pattern[p] == '*')
        {
            ++p;
        }
        return p == pattern.size();
    }

    auto to_hex(std::string_view bytes) -> std::string
    {
        static constexpr char digits[] = "0123456789abcdef";
        std::string out;
        out.reserve(bytes.size() * 2);
        for (const char byte : bytes)
        {
            const auto b = static_cast<unsigned char>(byte);
            out += digits[b >> 4];
            out += digits[b & 0x0F];
        }
        return out;
    }

    auto is_hex(std::string_view text) -> bool
    {
        return !text.empty() && std::all_of(text.begin(), text.end(),
                                            [](char c) {
                                                return is_digit(c) || (c >= 'a' && c <= 'f') ||
                                                       (c >= 'A' && c <= 'F');
                                            });
    }

    auto edit_distance(std::string_view a, std::string_view b) -> std::size_t
    {
        std::vector<std::size_t> row(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j)
        {
            row[j] = j;
        }
        for (std::size_t i = 1; i <= a.size(); ++i)
        {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j)
            {
                const std::size_t above = row[j];
                row[j] = std::min({ row[j] + 1, row[j - 1] + 1,
                                    diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1) });
                diagonal = above;
            }
        }
        return row[b.size()];
    }

    auto closest_match(std::string_view word, const std::vector<std::string>& candidates)
      -> std::optional<std::string>
    {
        std::optional<std::string> best;
        std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
        for (const auto& candidate : candidates)
        {
            const auto distance = edit_distance(word, candidate);
            if (distance < best_distance)
            {
                best_distance = distance;
                best = candidate;
            }
        }
        return best;
    }

    auto format_number(double value, std::chars_format style, int precision) -> std::string
    {
        std::array<char, 64> buffer{};
        const auto result =
          std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, style, precision);
        return std::string(buffer.data(), result.ptr);
    }

    auto format_percent(double fraction, int decimals) -> std::string
    {
        return format_number(100.0 * fraction, std::chars_format::fixed, decimals) + "%";
    }
}
