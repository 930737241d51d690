#include <string>
#include <utility>
#include <vector>

#include "tests/catch.hpp"
#include "util/url_redaction.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("redact_url removes credentials and keeps a URL that installs", "[util][redaction]")
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            { "https://conda.anaconda.org/conda-forge/linux-64/a-1-0.conda",
              "https://conda.anaconda.org/conda-forge/linux-64/a-1-0.conda" },
            { "https://user:secret@repo.example.com/main/noarch/a-1-0.conda",
              "https://repo.example.com/main/noarch/a-1-0.conda" },
            { "https://conda.anaconda.org/t/tk-0123abcd/private/linux-64/a-1-0.tar.bz2",
              "https://conda.anaconda.org/private/linux-64/a-1-0.tar.bz2" },
            { "https://u:p@host/t/tok/chan/", "https://host/chan/" },
            // A password holding '/' (conda writes it unescaped) is still user-info...
            { "https://user:pa/ss@host.example/simple", "https://host.example/simple" },
            // ...but a port is not, and a pip revision after the path is kept.
            { "https://host.example:8443/t/tok/chan", "https://host.example:8443/chan" },
            { "git+https://github.com/org/repo@v1.0", "git+https://github.com/org/repo@v1.0" },
            { "git+https://github.com:443/org/repo@v1.0",
              "git+https://github.com:443/org/repo@v1.0" },
            { "https://token@host?x=a@b", "https://host?x=a@b" },
            { "file:///home/me/channel/t/x/y", "file:///home/me/channel/y" },
            // Not a token segment: characters conda's token pattern does not allow.
            { "https://host/t/a.b/c", "https://host/t/a.b/c" },
            { "conda-forge", "conda-forge" },
            { "user@host", "user@host" },
        };
        for (const auto& [input, expected] : cases)
        {
            INFO(input);
            CHECK(util::redact_url(input) == expected);
        }
        CHECK(util::redact_url("https://u:p@host/t/tok/c", util::redaction_marker) ==
              "https://<redacted>@host/t/<redacted>/c");
    }

    TEST_CASE("redact_urls finds every URL in text", "[util][redaction]")
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            { "cannot reach https://a:b@x.org/s: timed out",
              "cannot reach https://x.org/s: timed out" },
            { "https://a@x.org/s https://b@y.org/t", "https://x.org/s https://y.org/t" },
            { R"({"url": "https://u:p@h/t/tk/c/a.conda", "n": 1})",
              R"({"url": "https://h/c/a.conda", "n": 1})" },
            { "`https://u:p@h/c` → `https://h/c`", "`https://h/c` → `https://h/c`" },
            { "no url here: a@b, /t/x/", "no url here: a@b, /t/x/" },
        };
        for (const auto& [input, expected] : cases)
        {
            INFO(input);
            CHECK(util::redact_urls(input) == expected);
        }
        const std::string marked = util::redact_urls("x https://u:p@h/y", util::redaction_marker);
        CHECK(marked == "x https://<redacted>@h/y");
        CHECK(util::redact_urls(marked, util::redaction_marker) == marked); // idempotent
    }
}
