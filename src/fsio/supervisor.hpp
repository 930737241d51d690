// Internal to fsio: the supervisor behind run_child (fsio/child.hpp) and run_process
// (fsio/process.hpp). Forks into a new process group, then watches any number of children in
// one poll loop: their pipes, their deadlines and their exit (a pidfd where the kernel has them).
#ifndef ENVCHECK_FSIO_SUPERVISOR_HPP
#define ENVCHECK_FSIO_SUPERVISOR_HPP

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "fsio/child.hpp"

namespace envcheck::fsio::detail
{
    using Clock = std::chrono::steady_clock;

    struct Pipe
    {
        int read = -1;
        int write = -1;
    };

    // pipe2(O_CLOEXEC); false when it failed (errno says why).
    [[nodiscard]] auto make_pipe(Pipe& pipe) -> bool;
    void close_fd(int& fd);

    // One of the child's output pipes, as the parent reads it.
    struct Stream
    {
        enum class Kind
        {
            lines,     // split at '\n', each line to on_line; bounded by the limits' line bounds
            keep_head, // the first `limit` bytes kept in *sink, the rest read and dropped
            keep_tail, // the last `limit` bytes kept in *sink
        };
        int fd = -1;
        Kind kind = Kind::keep_tail;
        std::string* sink = nullptr;
        std::size_t limit = 0;
        const LineSink* on_line = nullptr;
        std::string pending;        // lines: an incomplete line
        std::size_t lines_read = 0; // lines: bytes read in all
    };

    // One child under supervision, from fork to its end.
    struct Supervised
    {
        pid_t pid = -1;
        int pidfd = -1; // -1 where the kernel has no pidfd_open: then the loop looks every 10 ms
        ChildLimits limits;
        Clock::time_point started;
        Clock::time_point idle_deadline;
        std::vector<Stream> streams;
        int stdin_fd = -1; // the parent's end of the child's stdin, non-blocking
        std::string_view stdin_text;
        std::size_t stdin_written = 0;
        const FinalLine* is_final_line = nullptr; // lines: after it, the child is released
        bool released = false;

        bool reaped = false;
        int status = 0;
        std::optional<ChildEnd> killed_for; // why we killed it, when we did
        std::string detail;
        std::optional<Clock::time_point> give_up_at; // after its end or our kill: grace to drain
        bool group_killed = false;
        bool done = false;
        Clock::time_point ended;
    };

    // Forks. The child makes itself the leader of a new process group and runs `in_child`,
    // which must not return (it execs or _exits). The parent gets the pid, or -1 with errno set.
    [[nodiscard]] auto fork_in_new_group(const std::function<void()>& in_child) -> pid_t;

    // Starts the clocks of a forked child and opens its pidfd.
    void begin(Supervised& child, pid_t pid, const ChildLimits& limits, Clock::time_point started);

    // Watches the children until every one has ended (or been given up on after it was killed).
    void supervise(std::span<Supervised* const> children);

    // How a supervised child ended; `end` is exited, signaled or why we killed it.
    [[nodiscard]] auto end_of(const Supervised& child) -> ChildEnd;
}

#endif
