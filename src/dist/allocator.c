/* Linked into the envcheck binary when jemalloc is (ENVCHECK_JEMALLOC, CMakeLists.txt): its
 * settings, which jemalloc reads from this symbol before the first allocation. $MALLOC_CONF
 * still overrides them.
 *
 * narenas:1: one arena for every thread (each keeps its own cache of small blocks in front of
 *   it), so that what the threads reading the records free, the thread that then compares them
 *   with the lock reuses instead of faulting in fresh pages (half of comparing 10,000 records
 *   was page faults). With an arena per CPU, 10,000 records took 3% longer.
 * Transparent huge pages for the whole process (thp:always) were faster still on a quiet
 *   machine, but made small runs slower (a 2 MiB page is zeroed whole; where memory was
 *   fragmented, the kernel compacts it on the fault): they are asked for only by a command about
 *   to build a large heap, below.
 * tests/bench/RESULTS.md, "jemalloc", has the measurements.
 */
const char* malloc_conf = "narenas:1";

/* Huge pages on request (src/fsio/heap.hpp: a command about to build a large heap, where the
 * kernel has free 2 MiB blocks): from then on the arena grows into mappings aligned to 2 MiB and
 * advised for transparent huge pages, one page fault per 2 MiB instead of 512 (a check of 5,000
 * conda records: 4,550 page faults -> 1,050 to 1,800). jemalloc's own hooks do everything else,
 * and the growth smaller than 2 MiB; the memory from before the call keeps its pages. */
#include <jemalloc/jemalloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#define ENVCHECK_HUGE_PAGE ((size_t)2 << 20)

static extent_hooks_t* jemalloc_hooks;
static extent_hooks_t huge_page_hooks;

static void* alloc_huge_pages(extent_hooks_t* hooks, void* new_addr, size_t size, size_t alignment,
                              bool* zero, bool* commit, unsigned arena)
{
    (void)hooks;
    if (new_addr == NULL && size >= ENVCHECK_HUGE_PAGE && alignment <= ENVCHECK_HUGE_PAGE)
    {
        /* Room to align the start to 2 MiB; what is left over either side is given back. */
        const size_t span = size + ENVCHECK_HUGE_PAGE;
        char* const mapped =
          mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped != MAP_FAILED)
        {
            const uintptr_t start =
              ((uintptr_t)mapped + ENVCHECK_HUGE_PAGE - 1) & ~((uintptr_t)ENVCHECK_HUGE_PAGE - 1);
            const size_t head = start - (uintptr_t)mapped;
            const size_t tail = span - head - size;
            if (head != 0)
            {
                munmap(mapped, head);
            }
            if (tail != 0)
            {
                munmap((char*)start + size, tail);
            }
            (void)madvise((void*)start, size, MADV_HUGEPAGE); /* advice: may be refused */
            *zero = true;                                     /* fresh anonymous memory */
            *commit = true;                                   /* readable and writable */
            return (void*)start;
        }
    }
    return jemalloc_hooks->alloc(jemalloc_hooks, new_addr, size, alignment, zero, commit, arena);
}

void envcheck_prefer_huge_pages(void)
{
    static atomic_flag installed = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&installed))
    {
        return;
    }
    /* narenas:1: arena 0 serves every thread (allocations of 8 MiB and more go to jemalloc's
     * huge arena, which keeps its own hooks). */
    size_t length = sizeof jemalloc_hooks;
    if (mallctl("arena.0.extent_hooks", (void*)&jemalloc_hooks, &length, NULL, 0) != 0 ||
        jemalloc_hooks == NULL)
    {
        return;
    }
    huge_page_hooks = *jemalloc_hooks;
    huge_page_hooks.alloc = alloc_huge_pages;
    extent_hooks_t* const hooks = &huge_page_hooks;
    (void)mallctl("arena.0.extent_hooks", NULL, NULL, (void*)&hooks, sizeof hooks);
}
