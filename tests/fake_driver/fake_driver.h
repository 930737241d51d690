/* Shared by the stand-in driver libraries: what they do is chosen at run time by an environment
 * variable (FAKE_CUDA for libcuda.so.1, FAKE_NVML for libnvidia-ml.so.1), a comma-separated list:
 *
 *   load-hang      the library's constructor never returns (dlopen hangs)
 *   load-crash     the constructor dies of SIGSEGV (dlopen crashes the process)
 *   load-stdout    the constructor prints to stdout
 *   load-fork      the constructor forks a grandchild that sleeps for 10 minutes; its pid is
 *                  written to $FAKE_PIDFILE
 *   init-hang      cuInit / nvmlInit_v2 never returns
 *   init-crash     cuInit / nvmlInit_v2 dies of SIGSEGV
 *   init-abort     cuInit / nvmlInit_v2 calls abort() (SIGABRT)
 *   init-stdout    cuInit / nvmlInit_v2 prints to stdout, then succeeds
 *   init=N         cuInit / nvmlInit_v2 returns N (default: 100, CUDA_ERROR_NO_DEVICE, for
 *                  libcuda; 9, NVML_ERROR_DRIVER_NOT_LOADED, for NVML)
 *   count-max      the device count is INT_MAX
 *   count=N        the device count is N (default 1)
 *   unterminated   every string is written to fill its whole buffer, without a NUL
 *
 * and for libnvidia-ml.so.1's health queries (a healthy, idle GPU without NVLink otherwise):
 *   ecc-uncorrectable  2 uncorrected ECC errors, volatile and aggregate
 *   remap-failed       row remapping failed (512 rows remapped)
 *   remap-pending      a row remapping waits for a reset
 *   retired-pending    2 retired pages of each cause, a retirement pending
 *   nvlink             18 NVLink links, all up
 *   nvlink-down        18 NVLink links, 3 and 7 down
 *   pcie-degraded      the link at gen 3 x8 of gen 5 x16, while the GPU works
 *   throttle-hw        clocks held down by hw_slowdown and hw_thermal_slowdown
 *   persistence-off    persistence mode off
 *   busy               two compute processes (pids 4242 and 4343) hold the GPU
 *   busy-pid=N         a third compute process, pid N (busy too)
 */
#ifndef ENVCHECK_TESTS_FAKE_DRIVER_H
#define ENVCHECK_TESTS_FAKE_DRIVER_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fake_has(const char* variable, const char* word)
{
    const char* list = getenv(variable);
    const size_t length = strlen(word);
    while (list != NULL && *list != '\0')
    {
        const char* end = strchr(list, ',');
        const size_t item = end != NULL ? (size_t)(end - list) : strlen(list);
        if (item == length && strncmp(list, word, length) == 0)
        {
            return 1;
        }
        list = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

/* The N of "key=N" in the list, or `fallback`. */
static long fake_number(const char* variable, const char* key, long fallback)
{
    const char* list = getenv(variable);
    const size_t length = strlen(key);
    while (list != NULL && *list != '\0')
    {
        if (strncmp(list, key, length) == 0 && list[length] == '=')
        {
            return strtol(list + length + 1, NULL, 10);
        }
        list = strchr(list, ',');
        list = list != NULL ? list + 1 : NULL;
    }
    return fallback;
}

static void fake_hang(void)
{
    for (;;)
    {
        pause();
    }
}

static void fake_segfault(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigaction(SIGSEGV, &action, NULL);
    raise(SIGSEGV);
    _exit(99);
}

static void fake_print(const char* what)
{
    printf("%s: noise on stdout\n", what);
    fflush(stdout);
    dprintf(STDOUT_FILENO, "%s: more noise, written to fd 1\n", what);
}

static void fake_on_load(const char* variable, const char* what)
{
    if (fake_has(variable, "load-stdout"))
    {
        fake_print(what);
    }
    if (fake_has(variable, "load-fork"))
    {
        const pid_t pid = fork();
        if (pid == 0)
        {
            sleep(600);
            _exit(0);
        }
        const char* pidfile = getenv("FAKE_PIDFILE");
        if (pid > 0 && pidfile != NULL)
        {
            FILE* file = fopen(pidfile, "w");
            if (file != NULL)
            {
                fprintf(file, "%d\n", (int)pid);
                fclose(file);
            }
        }
    }
    if (fake_has(variable, "load-crash"))
    {
        fake_segfault();
    }
    if (fake_has(variable, "load-hang"))
    {
        fake_hang();
    }
}

/* Returns the init result, or does what the list asks for instead. */
static int fake_init(const char* variable, const char* what, int fallback)
{
    if (fake_has(variable, "init-stdout"))
    {
        fake_print(what);
    }
    if (fake_has(variable, "init-hang"))
    {
        fake_hang();
    }
    if (fake_has(variable, "init-crash"))
    {
        fake_segfault();
    }
    if (fake_has(variable, "init-abort"))
    {
        abort();
    }
    return (int)fake_number(variable, "init", fallback);
}

static int fake_count(const char* variable)
{
    if (fake_has(variable, "count-max"))
    {
        return INT_MAX;
    }
    return (int)fake_number(variable, "count", 1);
}

/* Writes `text` into `buffer` of `size` bytes; with "unterminated", fills all of it with
 * `filler` and writes no NUL. */
static void fake_string(const char* variable, char* buffer, size_t size, const char* text,
                        char filler)
{
    if (size == 0)
    {
        return;
    }
    if (fake_has(variable, "unterminated"))
    {
        memset(buffer, filler, size);
        return;
    }
    // Cut to the caller's buffer, as a real driver's answer is (the result is used so that
    // GCC 13 does not warn of the truncation the fake means to do).
    if (snprintf(buffer, size, "%s", text) < 0)
    {
        buffer[0] = '\0';
    }
}

#endif
