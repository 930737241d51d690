/* Linked into the envcheck binary when jemalloc is (ENVCHECK_JEMALLOC, CMakeLists.txt): its
 * settings, which jemalloc reads from this symbol before the first allocation. $MALLOC_CONF
 * still overrides them.
 *
 * narenas:1: one arena for every thread (each keeps its own cache of small blocks in front of
 *   it), so that what the threads reading the records free, the thread that then compares them
 *   with the lock reuses instead of faulting in fresh pages (half of comparing 10,000 records
 *   was page faults). With an arena per CPU, 10,000 records took 3% longer.
 * Transparent huge pages (thp:always) were faster still on a quiet machine, but made small runs
 *   slower where memory was fragmented (the kernel compacts memory on the fault), so they stay
 *   the system's choice.
 * tests/bench/RESULTS.md, "jemalloc", has the measurements.
 */
const char* malloc_conf = "narenas:1";
