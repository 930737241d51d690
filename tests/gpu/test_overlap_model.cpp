#include <vector>

#include "gpu/overlap_model.hpp"
#include "tests/catch.hpp"

using envcheck::gpu::ideal_pipeline_ms;
using envcheck::gpu::StageTimes;

namespace
{
    TEST_CASE("ideal_pipeline_ms", "[gpu][StageTimes]")
    {
        SECTION("two copy engines, balanced stages: fill, then one stage per chunk")
        {
            const std::vector<StageTimes> chunks(4, StageTimes{ 1.0, 1.0, 1.0 });
            CHECK(ideal_pipeline_ms(chunks, 2) == Approx(3.0 + 3.0)); // h+k+d + (4-1)*max
        }
        SECTION("two copy engines, copy-bound: all uploads, then the last kernel and download")
        {
            const std::vector<StageTimes> chunks(4, StageTimes{ 2.0, 0.5, 1.0 });
            CHECK(ideal_pipeline_ms(chunks, 2) == Approx(8.0 + 0.5 + 1.0));
        }
        SECTION("two copy engines, kernel-bound")
        {
            const std::vector<StageTimes> chunks(3, StageTimes{ 1.0, 4.0, 1.0 });
            CHECK(ideal_pipeline_ms(chunks, 2) == Approx(1.0 + 12.0 + 1.0));
        }
        SECTION("one copy engine: both directions share it")
        {
            const std::vector<StageTimes> chunks(4, StageTimes{ 1.0, 0.5, 1.0 });
            CHECK(ideal_pipeline_ms(chunks, 1) == Approx(8.0));
            const std::vector<StageTimes> kernel_bound(4, StageTimes{ 0.5, 3.0, 0.5 });
            CHECK(ideal_pipeline_ms(kernel_bound, 1) == Approx(0.5 + 12.0 + 0.5));
        }
        SECTION("no copy engine: nothing overlaps")
        {
            const std::vector<StageTimes> chunks(2, StageTimes{ 1.0, 2.0, 3.0 });
            CHECK(ideal_pipeline_ms(chunks, 0) == Approx(12.0));
        }
        SECTION("never more than the serial sum, never less than the busiest resource")
        {
            const std::vector<StageTimes> chunks{ { 1.0, 3.0, 2.0 },
                                                  { 2.0, 1.0, 1.0 },
                                                  { 0.5, 2.5, 3.0 } };
            const double ideal = ideal_pipeline_ms(chunks, 2);
            CHECK(ideal <= 16.0);
            CHECK(ideal >= 6.5);
        }
    }

    TEST_CASE("ideal_pipeline_ms negative", "[gpu][StageTimes]")
    {
        CHECK(ideal_pipeline_ms(std::vector<StageTimes>{}, 2) == 0.0);
    }
}
