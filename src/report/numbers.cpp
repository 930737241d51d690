#include "report/numbers.hpp"

#include <array>
#include <cmath>

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

    auto gibibytes(std::uint64_t bytes) -> std::string
    {
        return format_number(static_cast<double>(bytes) / static_cast<double>(1ull << 30),
                             std::chars_format::fixed, 1) +
               " GiB";
    }
}
