#include <optional>
#include <string_view>

#include "fsio/heap.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    // This VM's /proc/buddyinfo (Linux 6.18, 24 GiB): free blocks of 2^0 .. 2^10 pages per zone.
    constexpr std::string_view roomy =
      "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      "
      "1      3 \n"
      "Node 0, zone    DMA32      0      4      2      2      1      2      0      3      3      "
      "1    753 \n"
      "Node 0, zone   Normal  16205   9843   3823   6897   6603   4146   2330   1301    719    "
      "466    987 \n";

    TEST_CASE("free_huge_blocks counts the free blocks of 2 MiB and more", "[fsio][heap]")
    {
        struct Case
        {
            std::string_view what;
            std::string_view buddyinfo;
            std::optional<std::uint64_t> blocks;
        };
        const Case cases[] = {
            // Order 9 counts one 2 MiB block, order 10 two: (1 + 1 + 466) + 2 * (3 + 753 + 987).
            { "a roomy machine", roomy, 3954 },
            { "fragmented: nothing above order 8",
              "Node 0, zone   Normal  51200  20480  9000  4000  1000  300  80  12  3  0  0\n", 0 },
            { "two nodes add up",
              "Node 0, zone   Normal  0 0 0 0 0 0 0 0 0 2 1\n"
              "Node 1, zone   Normal  0 0 0 0 0 0 0 0 0 1 0\n",
              5 },
            { "more orders than 11 (a kernel with a larger MAX_ORDER)",
              "Node 0, zone   Normal  0 0 0 0 0 0 0 0 0 1 1 1\n", 7 },
            { "empty", "", std::nullopt },
            { "not buddyinfo", "MemTotal: 24684812 kB\nMemFree: 23005100 kB\n", std::nullopt },
            { "too few orders to reach 2 MiB", "Node 0, zone   Normal  5 4 3 2 1\n", std::nullopt },
            { "a count that is not a number", "Node 0, zone   Normal  0 0 0 0 0 0 0 0 0 x 1\n",
              std::nullopt },
            { "a negative count", "Node 0, zone   Normal  0 0 0 0 0 0 0 0 0 -1 1\n", std::nullopt },
        };
        for (const auto& [what, buddyinfo, blocks] : cases)
        {
            CAPTURE(what);
            CHECK(fsio::free_huge_blocks(buddyinfo) == blocks);
        }
    }
}
