#include <limits>
#include <vector>

#include "tests/catch.hpp"
#include "util/statistics.hpp"

using envcheck::util::summarize;

namespace
{
    TEST_CASE("summarize", "[util][Summary]")
    {
        SECTION("odd count: the middle value")
        {
            const std::vector<double> samples{ 3.0, 1.0, 2.0, 10.0, 4.0 };
            const auto summary = summarize(samples);
            CHECK(summary.count == 5);
            CHECK(summary.median == 3.0);
            CHECK(summary.min == 1.0);
            CHECK(summary.max == 10.0);
            CHECK(summary.spread == Approx(9.0 / 3.0));
            CHECK(summary.mad == 1.0); // deviations 0 2 1 7 1
        }
        SECTION("even count: the mean of the middle two")
        {
            const std::vector<double> samples{ 4.0, 1.0, 3.0, 2.0 };
            const auto summary = summarize(samples);
            CHECK(summary.median == 2.5);
            CHECK(summary.spread == Approx(3.0 / 2.5));
        }
        SECTION("identical samples have no spread")
        {
            const std::vector<double> samples{ 7.0, 7.0, 7.0 };
            const auto summary = summarize(samples);
            CHECK(summary.median == 7.0);
            CHECK(summary.spread == 0.0);
            CHECK(summary.mad == 0.0);
        }
        SECTION("one sample: a value, no spread")
        {
            const std::vector<double> samples{ 5.0 };
            const auto summary = summarize(samples);
            CHECK(summary.median == 5.0);
            CHECK(summary.spread == 0.0);
        }
    }

    TEST_CASE("summarize negative", "[util][Summary]")
    {
        SECTION("no samples: all zero")
        {
            const auto summary = summarize(std::vector<double>{});
            CHECK(summary.count == 0);
            CHECK(summary.median == 0.0);
            CHECK(summary.spread == 0.0);
        }
        SECTION("a zero median leaves the relative spread at zero instead of dividing by it")
        {
            const std::vector<double> samples{ -1.0, 0.0, 1.0 };
            CHECK(summarize(samples).spread == 0.0);
        }
    }
}
