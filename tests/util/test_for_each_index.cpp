#include <cstddef>
#include <utility>
#include <vector>

#include "tests/catch.hpp"
#include "util/for_each_index.hpp"

using namespace envcheck;

namespace
{
    using Runs = std::vector<std::pair<std::size_t, std::size_t>>;

    // The runs for_each_run hands out, whichever way its items are run.
    auto runs_of(std::size_t count, std::size_t run_length, const util::ForEachIndex& for_each)
      -> Runs
    {
        Runs runs;
        util::for_each_run(for_each, count, run_length,
                           [&](std::size_t begin, std::size_t end)
                           { runs.emplace_back(begin, end); });
        return runs;
    }

    TEST_CASE("for_each_run: runs cover every item once, the last run shorter", "[util][ForEach]")
    {
        struct Case
        {
            std::size_t count;
            std::size_t run_length;
            Runs expected;
        };
        const std::vector<Case> cases{
            { 0, 256, {} },
            { 1, 256, { { 0, 1 } } },
            { 256, 256, { { 0, 256 } } },
            { 257, 256, { { 0, 256 }, { 256, 257 } } },
            { 10, 4, { { 0, 4 }, { 4, 8 }, { 8, 10 } } },
        };
        for (const auto& [count, run_length, expected] : cases)
        {
            CAPTURE(count, run_length);
            CHECK(runs_of(count, run_length, util::for_each_index_serially) == expected);
        }
    }

    TEST_CASE("for_each_run: few items run serially, enough go to for_each", "[util][ForEach]")
    {
        std::size_t handed = 0;
        const util::ForEachIndex counting = [&](std::size_t count, const util::IndexWork& work)
        {
            handed += count;
            util::for_each_index_serially(count, work);
        };
        // 3 runs of 256: under items_worth_threads, not handed over.
        CHECK(runs_of(700, 256, counting).size() == 3);
        CHECK(handed == 0);
        // 4 runs of 256 reach it: each run is an item of for_each.
        CHECK(runs_of(1000, 256, counting) ==
              Runs{ { 0, 256 }, { 256, 512 }, { 512, 768 }, { 768, 1000 } });
        CHECK(handed == 4);
    }
}
