#include "util/control_chars.hpp"

#include <algorithm>

namespace envcheck::util
{
    namespace
    {
        auto is_control(char c) -> bool
        {
            const auto byte = static_cast<unsigned char>(c);
            return (byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f;
        }
    }

    auto escape_control_characters(std::string_view text) -> std::string
    {
        if (std::none_of(text.begin(), text.end(), is_control))
        {
            return std::string(text);
        }
        constexpr std::string_view hex = "0123456789abcdef";
        std::string out;
        out.reserve(text.size() + 16);
        for (const char c : text)
        {
            if (!is_control(c))
            {
                out.push_back(c);
                continue;
            }
            const auto byte = static_cast<unsigned char>(c);
            out.append("\\x").push_back(hex[byte >> 4]);
            out.push_back(hex[byte & 0x0f]);
        }
        return out;
    }
}
