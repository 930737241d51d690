#include "util/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace envcheck::util
{
    namespace
    {
        auto median_of(std::vector<double> values) -> double
        {
            std::sort(values.begin(), values.end());
            const std::size_t middle = values.size() / 2;
            return values.size() % 2 == 1 ? values[middle]
                                          : (values[middle - 1] + values[middle]) / 2.0;
        }
    }

    auto summarize(std::span<const double> samples) -> Summary
    {
        Summary summary;
        summary.count = samples.size();
        if (samples.empty())
        {
            return summary;
        }
        const auto [low, high] = std::minmax_element(samples.begin(), samples.end());
        summary.min = *low;
        summary.max = *high;
        summary.median = median_of({ samples.begin(), samples.end() });
        std::vector<double> deviations;
        deviations.reserve(samples.size());
        for (const double sample : samples)
        {
            deviations.push_back(std::fabs(sample - summary.median));
        }
        summary.mad = median_of(std::move(deviations));
        if (samples.size() >= 2 && summary.median != 0.0)
        {
            summary.spread = (summary.max - summary.min) / std::fabs(summary.median);
        }
        return summary;
    }
}
