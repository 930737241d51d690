// Numbers as the human-readable reports write them (text, markdown-free HTML tables and plots).
#ifndef ENVCHECK_REPORT_NUMBERS_HPP
#define ENVCHECK_REPORT_NUMBERS_HPP

#include <charconv>
#include <cstdint>
#include <string>

#include "util/strings.hpp"

namespace envcheck::report
{
    using util::format_number; // std::to_chars with a style and precision (util/strings.hpp)

    // Three significant digits, no exponent below a million: 0.0123, 4.56, 41.3, 4251; "n/a" for
    // NaN and infinities.
    [[nodiscard]] auto metric_value(double value) -> std::string;

    // "140.4 GiB", "60 MiB", "48 KiB", "1000 B": binary units; whole MiB and KiB stay whole,
    // anything else gets one decimal.
    [[nodiscard]] auto format_bytes(std::uint64_t bytes) -> std::string;
}

#endif
