#include "tests/catch.hpp"
#include "util/time_format.hpp"

using envcheck::util::format_rfc3339_utc;
using envcheck::util::parse_rfc3339_utc;

namespace
{
    TEST_CASE("format_rfc3339_utc", "[util][time]")
    {
        // Reference values from `date -u -d @N +%Y-%m-%dT%H:%M:%SZ`.
        const std::pair<std::int64_t, std::string_view> cases[] = {
            { 0, "1970-01-01T00:00:00Z" },          { 951782400, "2000-02-29T00:00:00Z" },
            { 1796068920, "2026-11-30T20:02:00Z" }, { 4107542399, "2100-02-28T23:59:59Z" },
            { -1, "1969-12-31T23:59:59Z" },         { 1709251199, "2024-02-29T23:59:59Z" },
        };
        for (const auto& [seconds, text] : cases)
        {
            CAPTURE(seconds);
            CHECK(format_rfc3339_utc(seconds) == text);
            CHECK(parse_rfc3339_utc(text) == seconds); // the round trip
        }
    }

    TEST_CASE("parse_rfc3339_utc refuses what format_rfc3339_utc never writes", "[util][time]")
    {
        for (const std::string_view text :
             { "", "2026-11-30", "2026-11-30T20:02:00", "2026-11-30T20:02:00+01:00",
               "2026-11-30 20:02:00Z", "2026-02-31T00:00:00Z", "2026-13-01T00:00:00Z",
               "2026-11-30T24:00:00Z", "2O26-11-30T20:02:00Z", "2026-11-30T20:02:00.5Z" })
        {
            CAPTURE(text);
            CHECK_FALSE(parse_rfc3339_utc(text));
        }
    }
}
