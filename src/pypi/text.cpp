#include "pypi/text.hpp"

namespace envcheck::pypi::detail
{
    namespace
    {
        auto byte_at(std::string_view text, std::size_t pos) -> unsigned char
        {
            return static_cast<unsigned char>(text[pos]);
        }
    }

    namespace
    {
        // The length of the non-ASCII space Python's str.isspace() knows that starts at `pos`
        // (lead byte `c`), or 0: U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029,
        // U+202F, U+205F, U+3000.
        auto unicode_space_at(std::string_view text, std::size_t pos, unsigned char c)
          -> std::size_t
        {
            const std::size_t left = text.size() - pos;
            if (c == 0xc2 && left >= 2)
            {
                const unsigned char c1 = byte_at(text, pos + 1);
                return (c1 == 0x85 || c1 == 0xa0) ? 2 : 0; // U+0085, U+00A0
            }
            if (left < 3)
            {
                return 0;
            }
            const unsigned char c1 = byte_at(text, pos + 1);
            const unsigned char c2 = byte_at(text, pos + 2);
            if (c == 0xe1)
            {
                return (c1 == 0x9a && c2 == 0x80) ? 3 : 0; // U+1680
            }
            if (c == 0xe2 && c1 == 0x80)
            {
                // U+2000..U+200A, U+2028, U+2029, U+202F
                return ((c2 >= 0x80 && c2 <= 0x8a) || c2 == 0xa8 || c2 == 0xa9 || c2 == 0xaf) ? 3
                                                                                              : 0;
            }
            if (c == 0xe2 && c1 == 0x81)
            {
                return c2 == 0x9f ? 3 : 0; // U+205F
            }
            if (c == 0xe3)
            {
                return (c1 == 0x80 && c2 == 0x80) ? 3 : 0; // U+3000
            }
            return 0;
        }
    }

    auto python_space_at(std::string_view text, std::size_t pos) -> std::size_t
    {
        if (pos >= text.size())
        {
            return 0;
        }
        const unsigned char c = byte_at(text, pos);
        // ASCII: \t \n \v \f \r, the separators \x1c-\x1f, and space.
        if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20))
        {
            return 1;
        }
        return c < 0x80 ? 0 : unicode_space_at(text, pos, c);
    }

    auto skip_python_space(std::string_view text, std::size_t pos) -> std::size_t
    {
        while (const std::size_t length = python_space_at(text, pos))
        {
            pos += length;
        }
        return pos;
    }

    auto strip_python_space(std::string_view text) -> std::string_view
    {
        const std::size_t begin = skip_python_space(text, 0);
        // Scan forward so that multi-byte spaces are recognised; remember the last non-space.
        std::size_t end = begin;
        std::size_t pos = begin;
        while (pos < text.size())
        {
            const std::size_t length = python_space_at(text, pos);
            if (length == 0)
            {
                ++pos;
                end = pos;
            }
            else
            {
                pos += length;
            }
        }
        return text.substr(begin, end - begin);
    }

    auto trim_ascii_right(std::string_view text) -> std::string_view
    {
        std::size_t end = text.size();
        while (end > 0 &&
               (text[end - 1] == ' ' || (text[end - 1] >= '\t' && text[end - 1] <= '\r')))
        {
            --end;
        }
        return text.substr(0, end);
    }

    auto trim_ascii(std::string_view text) -> std::string_view
    {
        std::size_t start = 0;
        while (start < text.size() &&
               (text[start] == ' ' || (text[start] >= '\t' && text[start] <= '\r')))
        {
            ++start;
        }
        return trim_ascii_right(text.substr(start));
    }

    auto contains_python_space(std::string_view text) -> bool
    {
        for (std::size_t pos = 0; pos < text.size(); ++pos)
        {
            if (python_space_at(text, pos) != 0)
            {
                return true;
            }
        }
        return false;
    }

    auto lowercase(std::string_view text) -> std::string
    {
        std::string out(text);
        for (char& c : out)
        {
            c = to_lower(c);
        }
        return out;
    }

    auto istarts_with_at(std::string_view text, std::size_t pos, std::string_view word) -> bool
    {
        if (pos > text.size() || text.size() - pos < word.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < word.size(); ++i)
        {
            if (to_lower(text[pos + i]) != word[i])
            {
                return false;
            }
        }
        return true;
    }
}
