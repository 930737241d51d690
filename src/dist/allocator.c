/* Linked into the envcheck binary when jemalloc is (ENVCHECK_JEMALLOC, CMakeLists.txt): its
 * settings, which jemalloc reads from this symbol before the first allocation. $MALLOC_CONF
 * still overrides them.
 *
 * thp:always: the heap in transparent huge pages (madvise), also where the system leaves them to
 *   madvise, as Debian and Ubuntu do: reading 10,000 conda records touched some 20,000 fresh
 *   4 KiB pages, a page fault each. Not for jemalloc's own metadata (metadata_thp), which made
 *   small runs wait about 0.4 ms.
 * percpu_arena:percpu: an arena per CPU, not four: fewer partly used huge pages (peak memory
 *   at 10,000 records about 88 MB, against 97 MB).
 * tests/bench/RESULTS.md, "jemalloc", has the measurements.
 */
const char* malloc_conf = "thp:always,metadata_thp:disabled,percpu_arena:percpu";
