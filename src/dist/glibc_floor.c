/* Linked into the portable build only (src/dist/bullseye.cmake): the compiler's static libstdc++
 * was built against a newer glibc than the one the binary targets (2.31), and refers to two
 * names that glibc 2.31 does not have. Both are defined here with the behaviour glibc gives
 * them, so that no symbol newer than GLIBC_2.31 is needed (tests/dist checks that).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc 2.32: nonzero while the process has one thread, letting libstdc++ skip atomic
 * instructions. 0 says "maybe several threads", which is always correct, only not optimised. */
char __libc_single_threaded = 0;

/* glibc 2.36: libstdc++'s std::random_device reads it. The same kernel entropy through
 * getrandom(2) (Linux 3.17), which glibc 2.31 has no wrapper around that predates 2.25's. */
uint32_t arc4random(void)
{
    uint32_t value = 0;
    size_t filled = 0;
    while (filled < sizeof value)
    {
        const long got = syscall(SYS_getrandom, (char*)&value + filled, sizeof value - filled, 0);
        if (got < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            abort(); /* as glibc's arc4random does when the kernel gives no entropy */
        }
        filled += (size_t)got;
    }
    return value;
}
