// Summaries of repeated measurements: the median (robust to the odd slow repeat) and the spread
// a lock stores so that a later comparison knows how noisy a metric is.
#ifndef ENVCHECK_UTIL_STATISTICS_HPP
#define ENVCHECK_UTIL_STATISTICS_HPP

#include <cstddef>
#include <span>

namespace envcheck::util
{
    struct Summary
    {
        std::size_t count = 0;
        double median = 0.0;
        double min = 0.0;
        double max = 0.0;
        double spread = 0.0; // (max - min) / median; 0 for fewer than two samples
        double mad = 0.0;    // median absolute deviation from the median
    };

    // All zeros for no samples.
    [[nodiscard]] auto summarize(std::span<const double> samples) -> Summary;
}

#endif
