// Running a function in a forked child process under a watchdog: the one child runner of
// envcheck. The NVML and CUDA driver probes (src/system) and the GPU probes (src/gpu) are its
// users; fsio/process.hpp runs other programs through the same supervisor.
//
// What the parent guarantees, whatever the child (or a driver library inside it) does:
//  - it returns within the limits: the child's process group is killed (SIGKILL) at the total
//    deadline, or when no line came within the idle timeout; a child that cannot even be reaped
//    (stuck in the kernel) is left behind after a short grace, never waited for;
//  - the child's stdout and stderr are never envcheck's: they go to a pipe of their own, whose
//    last bytes are kept for the report;
//  - grandchildren die with the child: its process group is killed when it ends, however it ends;
//  - what is read is bounded: a line longer than max_line_bytes, or more than max_lines_bytes in
//    all, stops the child.
#ifndef ENVCHECK_FSIO_CHILD_HPP
#define ENVCHECK_FSIO_CHILD_HPP

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::fsio
{
    // The child's end of the line pipe.
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
        std::chrono::milliseconds total{ 30000 }; // the whole run
        std::optional<std::chrono::milliseconds>
          idle; // longest wait for the next line; none: total only
        std::size_t max_line_bytes = std::size_t{ 4 } << 20;   // one line
        std::size_t max_lines_bytes = std::size_t{ 16 } << 20; // every line together
        std::size_t max_output_bytes = std::size_t{ 16 }
                                       << 10; // stdout and stderr: the last bytes kept
    };

    enum class ChildEnd
    {
        exited,          // exit_code says how
        signaled,        // killed by a signal we did not send (a crash): signal says which
        idle_timeout,    // we killed it: no line within limits.idle
        total_timeout,   // we killed it: past limits.total
        too_much_output, // we killed it: a line or all lines past their bounds
        failed_to_start, // pipe() or fork() failed: detail says why
        released,        // its final line came: its exit (a driver's teardown) was not waited for
    };

    struct ChildReport
    {
        ChildEnd end = ChildEnd::exited;
        int exit_code = 0;
        int signal = 0;
        std::chrono::milliseconds elapsed{ 0 };
        std::string unterminated; // bytes after the last newline (a line cut off by the end)
        std::string output;       // the child's stdout and stderr, interleaved: the last bytes
        std::string detail;       // failed_to_start: the system error; too_much_output: which bound

        [[nodiscard]] auto clean() const -> bool
        {
            return (end == ChildEnd::exited && exit_code == 0) || end == ChildEnd::released;
        }
        [[nodiscard]] auto timed_out() const -> bool
        {
            return end == ChildEnd::idle_timeout || end == ChildEnd::total_timeout;
        }
        // The last `limit` bytes of `output` on one line ("..." before them when cut), for a
        // failure's message; empty when the child printed nothing.
        [[nodiscard]] auto output_tail(std::size_t limit) const -> std::string;
        // "exited with status 3", "was killed by signal 11 (SIGSEGV)", "timed out after 20 s",
        // "was stopped after 30 s without progress (SIGKILL)", "wrote more than 16 MiB of lines
        // and was stopped (SIGKILL)", "could not be started: fork: ...".
        [[nodiscard]] auto describe(const ChildLimits& limits) const -> std::string;
    };

    // The child runs `main` and _exit()s with its return value (3 if it throws: the exception's
    // text goes to its stderr); it never returns into the caller's code.
    using ChildMain = std::function<int(LineWriter&)>;
    // Each complete line, without its newline, as it arrives.
    using LineSink = std::function<void(std::string_view line)>;
    // Whether a line is the child's last word: after it the parent stops watching and leaves the
    // child to end on its own (its process group is killed; it is reaped later, or by init).
    using FinalLine = std::function<bool(std::string_view line)>;

    [[nodiscard]] auto run_child(const ChildMain& main, const ChildLimits& limits,
                                 const LineSink& on_line) -> ChildReport;

    struct ChildJob
    {
        ChildMain main;
        ChildLimits limits;
        LineSink on_line;
        FinalLine is_final_line; // empty: the child is watched until it exits
    };

    // Several children at once, each under its own limits, watched together: returns when the
    // last one has ended, so the slowest child's deadline bounds them all. Reports in job order.
    [[nodiscard]] auto run_children(std::span<const ChildJob> jobs) -> std::vector<ChildReport>;

    // One child started now and watched later, with a pipe to its stdin (fd 0; /dev/null for the
    // others): the parent decides what it does after it has started. The GPU probe child loads
    // the driver while the parent learns which GPUs others are using. Its limits count from the
    // start; until finish() its lines wait in the pipe.
    class RunningChild
    {
    public:
        explicit RunningChild(const ChildJob& job);
        RunningChild(const RunningChild&) = delete;
        auto operator=(const RunningChild&) -> RunningChild& = delete;
        ~RunningChild(); // a child never finished is killed

        // Writes `line` and a newline to the child's stdin; false when it cannot (it is gone, or
        // was never started).
        auto send_line(std::string_view line) -> bool;
        // Watches it to its end, or its final line; once.
        [[nodiscard]] auto finish() -> ChildReport;

    private:
        struct State;
        std::unique_ptr<State> m_state;
    };

    // "20 s", "0.5 s".
    [[nodiscard]] auto format_seconds(std::chrono::milliseconds duration) -> std::string;
}

#endif
