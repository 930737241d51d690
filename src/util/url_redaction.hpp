// The one redaction of credentials in URLs, used wherever a URL is written or shown (locks,
// exports, reports, messages, caches, probe): the user-info of the authority ("user:password@",
// "token@") and an anaconda.org "/t/<token>" path segment. With an empty marker both are
// removed, which keeps a URL that still installs, like `conda list --explicit` writes it; with a
// marker ("<redacted>") they are replaced, for reports that should show something was there.
#ifndef ENVCHECK_UTIL_URL_REDACTION_HPP
#define ENVCHECK_UTIL_URL_REDACTION_HPP

#include <string>
#include <string_view>

namespace envcheck::util
{
    inline constexpr std::string_view redaction_marker = "<redacted>";

    // One URL (or a path holding a /t/<token>/ segment). A password holding '/' ("u:pa/ss@host")
    // is recognised: ':' before the first '/' followed by something other than a port.
    [[nodiscard]] auto redact_url(std::string_view url, std::string_view marker = {})
      -> std::string;

    // Every URL ("scheme://...", up to a space, quote, bracket, ',' or ';') inside free text:
    // messages, rendered reports, environment variables.
    [[nodiscard]] auto redact_urls(std::string_view text, std::string_view marker = {})
      -> std::string;

    // What envcheck writes (a report, an exported file) for `raw`: URLs without credentials,
    // control characters escaped (util/control_chars.hpp), so that package metadata can neither
    // leak a token nor send a terminal commands.
    [[nodiscard]] auto safe_output(std::string_view raw) -> std::string;
}

#endif
