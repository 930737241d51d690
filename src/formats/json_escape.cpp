#include "formats/json_escape.hpp"

#include <cstdint>

#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        auto read_hex4(std::string_view text, std::size_t at, std::uint32_t& value) -> bool
        {
            if (at + 4 > text.size())
            {
                return false;
            }
            value = 0;
            for (std::size_t k = 0; k < 4; ++k)
            {
                const int digit = util::hex_digit_value(text[at + k]);
                if (digit < 0)
                {
                    return false;
                }
                value = (value << 4) | static_cast<std::uint32_t>(digit);
            }
            return true;
        }

        void append_utf8(std::string& out, std::uint32_t code_point)
        {
            if (code_point < 0x80)
            {
                out += static_cast<char>(code_point);
            }
            else if (code_point < 0x800)
            {
                out += static_cast<char>(0xC0 | (code_point >> 6));
                out += static_cast<char>(0x80 | (code_point & 0x3F));
            }
            else if (code_point < 0x10000)
            {
                out += static_cast<char>(0xE0 | (code_point >> 12));
                out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (code_point & 0x3F));
            }
            else
            {
                out += static_cast<char>(0xF0 | (code_point >> 18));
                out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
                out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (code_point & 0x3F));
            }
        }

        auto simple_escape(char letter) -> char
        {
            switch (letter)
            {
                case '"':
                    return '"';
                case '\\':
                    return '\\';
                case '/':
                    return '/';
                case 'b':
                    return '\b';
                case 'f':
                    return '\f';
                case 'n':
                    return '\n';
                case 'r':
                    return '\r';
                case 't':
                    return '\t';
                default:
                    return '\0';
            }
        }
    }

    auto decode_json_escape(std::string_view text, std::size_t at, std::string& out) -> JsonEscape
    {
        if (at + 1 >= text.size())
        {
            return { at, "unterminated escape in a string" };
        }
        const char letter = text[at + 1];
        if (letter != 'u')
        {
            const char decoded = simple_escape(letter);
            if (decoded == '\0')
            {
                return {
                    at,
                    "invalid escape in a string (JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"
                };
            }
            out += decoded;
            return { at + 2, {} };
        }
        std::uint32_t code_point = 0;
        if (!read_hex4(text, at + 2, code_point))
        {
            return { at, "\\u must be followed by four hex digits" };
        }
        std::size_t end = at + 6;
        if (code_point >= 0xD800 && code_point <= 0xDBFF)
        {
            std::uint32_t low = 0;
            if (end + 1 >= text.size() || text[end] != '\\' || text[end + 1] != 'u')
            {
                return { at, "a high surrogate \\u escape must be followed by a low one" };
            }
            if (!read_hex4(text, end + 2, low) || low < 0xDC00 || low > 0xDFFF)
            {
                return { at, "invalid low surrogate after a high surrogate \\u escape" };
            }
            code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
            end += 6;
        }
        else if (code_point >= 0xDC00 && code_point <= 0xDFFF)
        {
            return { at, "a low surrogate \\u escape without a high one" };
        }
        append_utf8(out, code_point);
        return { end, {} };
    }
}
