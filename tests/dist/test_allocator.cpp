// src/dist/allocator.c, linked with jemalloc as in the envcheck binary: after
// envcheck_prefer_huge_pages, the heap grows into memory aligned to 2 MiB and advised for
// transparent huge pages; before it, not.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.hpp"

extern "C" void envcheck_prefer_huge_pages();

namespace
{
    struct Mapping
    {
        std::uintptr_t start = 0;
        std::uintptr_t end = 0;
        std::string flags; // smaps' VmFlags: "rd wr mr mw me ac hg"; hg: MADV_HUGEPAGE
    };

    // The mapping of this process that holds `address`, from /proc/self/smaps.
    auto mapping_of(const void* address) -> Mapping
    {
        const auto at = reinterpret_cast<std::uintptr_t>(address);
        std::ifstream smaps("/proc/self/smaps");
        Mapping current;
        bool holds = false;
        for (std::string line; std::getline(smaps, line);)
        {
            std::uintptr_t start = 0;
            std::uintptr_t end = 0;
            char dash = 0;
            std::istringstream range(line);
            if (range >> std::hex >> start >> dash >> end && dash == '-' &&
                line.find(':') > line.find(' '))
            {
                holds = start <= at && at < end;
                current = Mapping{ start, end, {} };
                continue;
            }
            if (holds && line.starts_with("VmFlags:"))
            {
                current.flags = line.substr(8) + " ";
                return current;
            }
        }
        return {};
    }

    constexpr std::size_t block = std::size_t{ 4 } << 20; // under jemalloc's huge-arena threshold
    constexpr std::uintptr_t huge_page = std::uintptr_t{ 2 } << 20;

    TEST_CASE("envcheck_prefer_huge_pages: later growth of the heap is advised for huge pages",
              "[dist][allocator]")
    {
        void* before = std::malloc(block);
        REQUIRE(before != nullptr);
        std::memset(before, 1, block);
        const Mapping old_memory = mapping_of(before);
        REQUIRE(old_memory.end > old_memory.start);
        CHECK(old_memory.flags.find(" hg ") == std::string::npos);

        envcheck_prefer_huge_pages();
        envcheck_prefer_huge_pages(); // once is enough; again changes nothing
        void* after = std::malloc(block);
        REQUIRE(after != nullptr);
        std::memset(after, 1, block);
        const Mapping new_memory = mapping_of(after);
        CAPTURE(new_memory.flags);
        REQUIRE(new_memory.end > new_memory.start);
        CHECK(new_memory.flags.find(" hg ") != std::string::npos);
        CHECK(new_memory.start % huge_page == 0);
        std::free(after);
        std::free(before);
    }
}
