#include "report/github_commands.hpp"

namespace envcheck::report
{
    namespace
    {
        auto escape(std::string_view text, bool property) -> std::string
        {
            std::string out;
            out.reserve(text.size());
            for (const char c : text)
            {
                switch (c)
                {
                    case '%':
                        out += "%25";
                        break;
                    case '\r':
                        out += "%0D";
                        break;
                    case '\n':
                        out += "%0A";
                        break;
                    case ':':
                        out += property ? "%3A" : ":";
                        break;
                    case ',':
                        out += property ? "%2C" : ",";
                        break;
                    default:
                        out += c;
                }
            }
            return out;
        }
    }

    auto github_data(std::string_view text) -> std::string
    {
        return escape(text, false);
    }

    auto github_property(std::string_view text) -> std::string
    {
        return escape(text, true);
    }
}
