/* Linked into the envcheck binary when jemalloc is (ENVCHECK_JEMALLOC, CMakeLists.txt): its
 * settings, which jemalloc reads from this symbol before the first allocation. $MALLOC_CONF
 * still overrides them.
 *
 * thp:always: the heap in transparent huge pages (madvise), also where the system leaves them to
 *   madvise, as Debian and Ubuntu do: reading 10,000 conda records touched some 20,000 fresh
 *   4 KiB pages, a page fault each. Not for jemalloc's own metadata (metadata_thp), which made
 *   small runs wait about 0.4 ms.
 * narenas:1: one arena for every thread (each keeps its own cache of small blocks in front of
 *   it): what the reading threads free, the thread that compares the records reuses, and a small
 *   run touches one huge page, not one per arena. With an arena per CPU, 100 records took 0.5 ms
 *   more and 10,000 records 13% more.
 * tests/bench/RESULTS.md, "jemalloc", has the measurements.
 */
const char* malloc_conf = "thp:always,metadata_thp:disabled,narenas:1";
