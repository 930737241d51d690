// Runs a function in a child process and watches it: the child writes lines to a pipe, the
// parent hands each complete line to a callback as it arrives and kills the child (SIGKILL) when
// no line came within the idle timeout or the whole run passed its total timeout. A hang, a
// crash or an early exit of the child becomes a value the caller can report, never a hang or a
// crash of the parent. Knows nothing about GPUs: the probe runner is one user of it.
#ifndef ENVCHECK_GPU_WATCHDOG_HPP
#define ENVCHECK_GPU_WATCHDOG_HPP

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace envcheck::gpu
{
    // The child's end of the pipe.
    class LineWriter
    {
    public:
        explicit LineWriter(int fd)
          : m_fd(fd)
        {
        }

        // Writes `line` and a newline in full (retrying short writes); false when the parent is
        // gone. A line must not contain '\n'.
        auto write_line(std::string_view line) -> bool;

    private:
        int m_fd = -1;
    };

    struct ChildLimits
    {
        std::chrono::milliseconds idle_timeout{ 30000 };   // longest wait for the next line
        std::chrono::milliseconds total_timeout{ 300000 }; // longest whole run
    };

    enum class ChildEnd
    {
        exited,          // exit_code says how
        signaled,        // killed by a signal it did not expect (a crash): signal says which
        timed_out,       // we killed it: no line within idle_timeout, or past total_timeout
        failed_to_start, // pipe() or fork() failed: detail says why
    };

    [[nodiscard]] auto to_string(ChildEnd end) -> std::string_view;

    struct ChildReport
    {
        ChildEnd end = ChildEnd::exited;
        int exit_code = 0;
        int signal = 0;
        std::chrono::milliseconds elapsed{ 0 };
        std::string unterminated; // bytes after the last newline (a line cut off by the end)
        std::string detail;       // failed_to_start: the system error

        // "exited with status 3", "was killed by signal 11 (SIGSEGV)", "timed out after 30 s
        // without output", ...
        [[nodiscard]] auto describe(const ChildLimits& limits) const -> std::string;
    };

    // The child runs `child` and _exit()s with its return value (3 if it throws); it never
    // returns into the caller's code. Flushes stdout and stderr before forking.
    using ChildMain = std::function<int(LineWriter&)>;
    using LineSink = std::function<void(std::string_view line)>;

    [[nodiscard]] auto run_watched(const ChildMain& child, const ChildLimits& limits,
                                   const LineSink& on_line) -> ChildReport;
}

#endif
