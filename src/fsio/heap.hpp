// Transparent huge pages for a large heap (issue 19). A check of a prefix of 5,000 records builds
// about 20 MiB of heap, and on a virtual machine each first touch of a fresh 4 KiB page costs 2
// to 2.3 us (tests/bench/RESULTS.md, "huge pages on request"): an eighth of the check's CPU time.
// Backed by 2 MiB pages instead, the heap takes one fault per 512 pages. Small commands keep
// 4 KiB pages: a 2 MiB page they would barely use is zeroed whole (`envcheck --version` took 6%
// longer with huge pages asked for at its start, 1,000 records no less time).
#ifndef ENVCHECK_FSIO_HEAP_HPP
#define ENVCHECK_FSIO_HEAP_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace envcheck::fsio
{
    // What makes a command's heap large: this many conda records or more, an input file of this
    // many bytes or more (a lock of 2,000 packages and up).
    inline constexpr std::size_t large_heap_records = 2000;
    inline constexpr std::uint64_t large_heap_input_bytes = std::uint64_t{ 1 } << 20;

    // The free blocks of 2 MiB and more in /proc/buddyinfo's text ("Node 0, zone Normal" and the
    // counts of free blocks of 2^0 .. 2^10 pages), in 2 MiB blocks, for 4 KiB pages; nullopt for
    // a text in another shape.
    [[nodiscard]] auto free_huge_blocks(std::string_view buddyinfo) -> std::optional<std::uint64_t>;

    // Says that this process is about to build a heap of tens of megabytes. Where the binary
    // links jemalloc (src/dist/allocator.c), the heap grows from then on into memory advised for
    // transparent huge pages, provided the kernel has free 2 MiB blocks to give
    // (free_huge_blocks): a fault on such memory would otherwise wait while the kernel compacts
    // memory for it. Elsewhere, and after the first call, nothing happens. Never fails.
    void expect_large_heap();
}

#endif
