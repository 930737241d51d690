#include "report/markup.hpp"

#include "util/strings.hpp"

namespace envcheck::report
{
    auto xml_escape(std::string_view text) -> std::string
    {
        std::string out;
        out.reserve(text.size());
        for (const char c : text)
        {
            const auto byte = static_cast<unsigned char>(c);
            switch (c)
            {
                case '&':
                    out += "&amp;";
                    break;
                case '<':
                    out += "&lt;";
                    break;
                case '>':
                    out += "&gt;";
                    break;
                case '"':
                    out += "&quot;";
                    break;
                case '\'':
                    out += "&apos;";
                    break;
                default:
                    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r')
                    {
                        out += ' ';
                    }
                    else
                    {
                        out += c;
                    }
            }
        }
        return out;
    }

    auto xml_attribute(std::string_view text) -> std::string
    {
        return util::replace_all(util::replace_all(xml_escape(text), "\n", "&#10;"), "\r", "&#13;");
    }
}
