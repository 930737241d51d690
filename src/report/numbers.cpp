#include "report/numbers.hpp"

#include <array>
#include <cmath>
#include <string_view>
#include <utility>

namespace envcheck::report
{
    auto metric_value(double value) -> std::string
    {
        if (!std::isfinite(value))
        {
            return "n/a";
        }
        const double magnitude = std::fabs(value);
        if (magnitude != 0.0 && (magnitude < 1e-3 || magnitude >= 1e6))
        {
            return format_number(value, std::chars_format::scientific, 2);
        }
        if (magnitude >= 100.0)
        {
            return format_number(value, std::chars_format::fixed, 0);
        }
        return format_number(value, std::chars_format::general, 3);
    }

    auto format_bytes(std::uint64_t bytes) -> std::string
    {
        constexpr std::uint64_t kib = 1024;
        constexpr std::array<std::pair<std::uint64_t, std::string_view>, 3> units{
            { { kib * kib * kib, " GiB" }, { kib * kib, " MiB" }, { kib, " KiB" } }
        };
        for (const auto& [unit, name] : units)
        {
            if (bytes < unit)
            {
                continue;
            }
            // Whole units stay whole (48 KiB, 60 MiB); others get one decimal (140.4 GiB).
            if (bytes % unit == 0 && unit != units.front().first)
            {
                return std::to_string(bytes / unit) + std::string(name);
            }
            const auto tenths = (bytes * 10 + unit / 2) / unit;
            return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) +
                   std::string(name);
        }
        return std::to_string(bytes) + " B";
    }
}
