#include "util/url_redaction.hpp"

#include <algorithm>

#include "util/control_chars.hpp"

namespace envcheck::util
{
    namespace
    {
        auto is_scheme_char(char c) -> bool
        {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '+' || c == '-' || c == '.';
        }

        auto ends_url(char c) -> bool
        {
            return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' ||
                   c == '`' || c == '<' || c == '>' || c == ',' || c == ';' || c == ')' ||
                   c == ']' || c == '}';
        }

        // The end of the user-info (one past its '@'), or 0 when there is none.
        auto userinfo_end(std::string_view url, std::size_t authority) -> std::size_t
        {
            const auto host_end = std::min(url.find_first_of("/?#", authority), url.size());
            const auto at = url.substr(0, host_end).rfind('@');
            if (at != std::string_view::npos && at >= authority)
            {
                return at + 1;
            }
            // "user:pa/ss@host": a password with '/' (invalid, but written in .condarc and
            // pip.conf). A ':' before the first '/' that is not a port's marks user-info.
            const auto colon = url.substr(0, host_end).find(':', authority);
            const auto later_at = url.find('@', host_end);
            if (colon == std::string_view::npos || later_at == std::string_view::npos)
            {
                return 0;
            }
            const auto after_colon = url.substr(colon + 1, host_end - colon - 1);
            const bool port =
              !after_colon.empty() && std::all_of(after_colon.begin(), after_colon.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; });
            const bool userinfo_like =
              url.substr(authority, later_at - authority).find_first_of("?#") ==
              std::string_view::npos;
            return !port && userinfo_like ? later_at + 1 : 0;
        }
    }

    auto redact_url(std::string_view url, std::string_view marker) -> std::string
    {
        std::size_t authority = 0;
        std::size_t user_end = 0;
        std::size_t path_start = 0;
        if (const auto scheme = url.find("://"); scheme != std::string_view::npos)
        {
            authority = scheme + 3;
            user_end = userinfo_end(url, authority);
            path_start = user_end > 0 ? user_end : authority;
        }
        std::size_t token_start = 0;
        std::size_t token_end = 0;
        if (const auto t = url.find("/t/", path_start); t != std::string_view::npos)
        {
            // conda's token pattern: /t/[A-Za-z0-9_-]+/
            const auto end = url.find('/', t + 3);
            const auto token = url.substr(t + 3, end == std::string_view::npos ? 0 : end - t - 3);
            const bool token_chars =
              std::all_of(token.begin(), token.end(),
                          [](char c)
                          {
                              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '-' || c == '_';
                          });
            if (end != std::string_view::npos && end > t + 3 && token_chars)
            {
                token_start = t;
                token_end = end;
            }
        }
        if (user_end == 0 && token_end == 0)
        {
            return std::string(url);
        }
        std::string result;
        result.reserve(url.size());
        if (user_end > 0)
        {
            result.append(url.substr(0, authority));
            if (!marker.empty())
            {
                result.append(marker).push_back('@');
            }
        }
        const std::size_t rest = user_end > 0 ? user_end : 0;
        if (token_end > 0)
        {
            result.append(url.substr(rest, token_start - rest));
            if (!marker.empty())
            {
                result.append("/t/").append(marker);
            }
            result.append(url.substr(token_end));
        }
        else
        {
            result.append(url.substr(rest));
        }
        return result;
    }

    auto redact_urls(std::string_view text, std::string_view marker) -> std::string
    {
        auto scheme = text.find("://");
        if (scheme == std::string_view::npos)
        {
            return std::string(text);
        }
        std::string out;
        out.reserve(text.size());
        std::size_t copied = 0;
        while (scheme != std::string_view::npos)
        {
            std::size_t start = scheme;
            while (start > copied && is_scheme_char(text[start - 1]))
            {
                --start;
            }
            std::size_t end = scheme + 3;
            while (end < text.size() && !ends_url(text[end]))
            {
                ++end;
            }
            out.append(text.substr(copied, start - copied));
            out.append(redact_url(text.substr(start, end - start), marker));
            copied = end;
            scheme = text.find("://", end);
        }
        out.append(text.substr(copied));
        return out;
    }

    auto safe_output(std::string_view raw) -> std::string
    {
        return escape_control_characters(redact_urls(raw));
    }
}
