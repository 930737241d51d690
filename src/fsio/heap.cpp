#include "fsio/heap.hpp"

#include <atomic>
#include <charconv>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "fsio/files.hpp"
#include "util/strings.hpp"

// Defined by src/dist/allocator.c where the binary links jemalloc; absent (null) elsewhere.
extern "C" __attribute__((weak)) void envcheck_prefer_huge_pages();

namespace envcheck::fsio
{
    namespace
    {
        // Free 2 MiB blocks the kernel should have before huge pages are asked for: a heap of
        // tens of megabytes and room to spare for everything else on the machine.
        constexpr std::uint64_t enough_free_blocks = 256;
        // A 2 MiB block is 2^9 pages of 4 KiB.
        constexpr std::size_t huge_order = 9;

        // A small file of /proc or /sys, whole; "" where it cannot be read.
        auto read_small(const std::string& path) -> std::string
        {
            auto text = read_file(path, std::size_t{ 1 } << 16);
            return text ? std::move(*text) : std::string();
        }
    }

    auto free_huge_blocks(std::string_view buddyinfo) -> std::optional<std::uint64_t>
    {
        std::uint64_t blocks = 0;
        bool any = false;
        for (const auto line : util::split_lines(buddyinfo))
        {
            if (util::trim(line).empty())
            {
                continue;
            }
            // "Node 0, zone   Normal  16205 9843 ... 987": the counts follow the zone's name.
            std::vector<std::string_view> words;
            for (const auto word : util::split(line, ' '))
            {
                if (!word.empty())
                {
                    words.push_back(word);
                }
            }
            if (words.size() < 4 + huge_order + 1 || words[0] != "Node" || words[2] != "zone")
            {
                return std::nullopt;
            }
            for (std::size_t order = 0; order + 4 < words.size(); ++order)
            {
                std::uint64_t count = 0;
                const auto word = words[order + 4];
                const auto [end, error] =
                  std::from_chars(word.data(), word.data() + word.size(), count);
                if (error != std::errc() || end != word.data() + word.size() || order > 20)
                {
                    return std::nullopt;
                }
                if (order >= huge_order)
                {
                    blocks += count << (order - huge_order);
                }
            }
            any = true;
        }
        return any ? std::optional(blocks) : std::nullopt;
    }

    void expect_large_heap()
    {
        static std::atomic<bool> asked{ false };
        if (envcheck_prefer_huge_pages == nullptr || asked.exchange(true) ||
            ::sysconf(_SC_PAGESIZE) != 4096 ||
            read_small("/sys/kernel/mm/transparent_hugepage/enabled").find("[never]") !=
              std::string::npos)
        {
            return;
        }
        const auto free = free_huge_blocks(read_small("/proc/buddyinfo"));
        if (free && *free >= enough_free_blocks)
        {
            envcheck_prefer_huge_pages();
        }
    }
}
