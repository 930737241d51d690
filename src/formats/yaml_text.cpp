#include "formats/yaml_text.hpp"

namespace envcheck::formats
{
    auto find_non_printable(std::string_view text) -> std::optional<NonPrintable>
    {
        for (std::size_t at = 0; at < text.size(); ++at)
        {
            const auto byte = static_cast<unsigned char>(text[at]);
            if (byte < 0x80)
            {
                if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F)
                {
                    return NonPrintable{ at, static_cast<char32_t>(byte) };
                }
                continue;
            }
            // U+0080 to U+009F are C2 80 to C2 9F; U+FFFE and U+FFFF are EF BF BE/BF.
            const auto next = at + 1 < text.size() ? static_cast<unsigned char>(text[at + 1]) : 0;
            if (byte == 0xC2 && next >= 0x80 && next <= 0x9F && next != 0x85)
            {
                return NonPrintable{ at, static_cast<char32_t>(next) };
            }
            if (byte == 0xEF && next == 0xBF && at + 2 < text.size() &&
                (static_cast<unsigned char>(text[at + 2]) & 0xFEU) == 0xBE)
            {
                return NonPrintable{ at, static_cast<char32_t>(
                                           0xFFC0U |
                                           (static_cast<unsigned char>(text[at + 2]) & 0x3FU)) };
            }
        }
        return std::nullopt;
    }

    auto describe_non_printable(const NonPrintable& found) -> std::string
    {
        constexpr std::string_view digits = "0123456789ABCDEF";
        std::string name = "U+";
        for (int shift = 12; shift >= 0; shift -= 4) // every one found is below U+10000
        {
            name += digits[(found.code_point >> static_cast<unsigned>(shift)) & 0xFU];
        }
        return "the non-printable character " + name +
               " is not allowed in YAML (conda's reader refuses the file)";
    }
}
