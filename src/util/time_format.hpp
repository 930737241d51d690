// Calendar formatting of instants passed in as values (pure code never reads the clock).
#ifndef ENVCHECK_UTIL_TIME_FORMAT_HPP
#define ENVCHECK_UTIL_TIME_FORMAT_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace envcheck::util
{
    // "2026-11-30T20:02:00Z" for a Unix time in seconds (fractions are dropped).
    [[nodiscard]] auto format_rfc3339_utc(std::int64_t unix_seconds) -> std::string;
    // The inverse, for exactly that form ("YYYY-MM-DDTHH:MM:SSZ"); nullopt for anything else.
    [[nodiscard]] auto parse_rfc3339_utc(std::string_view text) -> std::optional<std::int64_t>;
}

#endif
