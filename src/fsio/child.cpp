#include "fsio/child.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <poll.h>
#include <string>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

#include "fsio/files.hpp"
#include "fsio/supervisor.hpp"

namespace envcheck::fsio
{
    namespace detail
    {
        namespace
        {
            // After a child's end (or our SIGKILL), how long its pipes may take to reach end of
            // file and the process to be reaped. A process stuck in the kernel (a driver ioctl on
            // a wedged GPU) cannot die until the call returns: it is left behind, not waited for.
            constexpr std::chrono::milliseconds grace{ 1000 };
            constexpr std::chrono::milliseconds tick{ 10 };

            auto open_pidfd(pid_t pid) -> int
            {
#ifdef SYS_pidfd_open
                const long fd = ::syscall(SYS_pidfd_open, pid, 0);
                return fd < 0 ? -1 : static_cast<int>(fd);
#else
                (void)pid;
                return -1;
#endif
            }

            auto mebibytes(std::size_t bytes) -> std::string
            {
                return bytes % (std::size_t{ 1 } << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                                             : std::to_string(bytes >> 10) + " KiB";
            }

            void kill_group(Supervised& child)
            {
                ::kill(-child.pid, SIGKILL);
                child.group_killed = true;
            }

            void stop(Supervised& child, ChildEnd why, Clock::time_point now,
                      std::string detail = {})
            {
                if (child.killed_for || child.reaped)
                {
                    return;
                }
                child.killed_for = why;
                child.detail = std::move(detail);
                kill_group(child);
                ::kill(child.pid, SIGKILL); // in case it left its group
                child.give_up_at = now + grace;
            }

            void try_reap(Supervised& child, Clock::time_point now)
            {
                if (child.reaped)
                {
                    return;
                }
                int status = 0;
                pid_t done = 0;
                do
                {
                    done = ::waitpid(child.pid, &status, WNOHANG);
                } while (done < 0 && errno == EINTR);
                if (done == child.pid)
                {
                    child.reaped = true;
                    child.status = status;
                    child.ended = now;
                    // Grandchildren die with it; their copies of the pipes close with them.
                    kill_group(child);
                    if (!child.give_up_at)
                    {
                        child.give_up_at = now + grace;
                    }
                }
                else if (done < 0)
                {
                    // Not our child any more (reaped elsewhere): nothing left to wait for.
                    child.reaped = true;
                    child.ended = now;
                    if (!child.killed_for)
                    {
                        child.killed_for = ChildEnd::failed_to_start;
                        child.detail = "waitpid: " + describe_errno(errno);
                    }
                    child.give_up_at = now;
                }
            }

            // Children released before they were reaped: reaped when a later child starts, so
            // that a long run does not collect zombies (init reaps what is left at our exit).
            std::mutex released_mutex;
            std::vector<pid_t> released_pids;

            void reap_released()
            {
                const std::lock_guard lock(released_mutex);
                std::erase_if(released_pids,
                              [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; });
            }

            // The child said its last word: stop watching it now. What is left of it is its
            // exit, where a driver tears down its GPU context (0.1 s on an H200), which no
            // answer depends on; its group is killed so no grandchild outlives it.
            void release(Supervised& child, Clock::time_point now)
            {
                if (child.killed_for || child.reaped)
                {
                    return;
                }
                child.released = true;
                kill_group(child);
                child.ended = now;
                child.give_up_at = now;
                const std::lock_guard lock(released_mutex);
                released_pids.push_back(child.pid);
            }

            auto streams_open(const Supervised& child) -> bool
            {
                return child.stdin_fd >= 0 ||
                       std::any_of(child.streams.begin(), child.streams.end(),
                                   [](const Stream& stream) { return stream.fd >= 0; });
            }

            void finish(Supervised& child, Clock::time_point now)
            {
                for (auto& stream : child.streams)
                {
                    close_fd(stream.fd);
                }
                close_fd(child.stdin_fd);
                close_fd(child.pidfd);
                if (!child.reaped)
                {
                    child.ended = now;
                }
                child.done = true;
            }

            // Deadlines, reaping, and whether the child is done.
            void advance(Supervised& child, Clock::time_point now)
            {
                try_reap(child, now);
                if (!child.reaped && !child.killed_for)
                {
                    if (now >= child.started + child.limits.total)
                    {
                        stop(child, ChildEnd::total_timeout, now);
                    }
                    else if (child.limits.idle && now >= child.idle_deadline)
                    {
                        stop(child, ChildEnd::idle_timeout, now);
                    }
                }
                if (child.reaped && !streams_open(child))
                {
                    finish(child, now);
                }
                else if (child.give_up_at && now >= *child.give_up_at)
                {
                    try_reap(child, now);
                    finish(child, now);
                }
            }

            auto next_wake(const Supervised& child, Clock::time_point now) -> Clock::time_point
            {
                auto wake = child.give_up_at.value_or(Clock::time_point::max());
                if (!child.reaped && !child.killed_for)
                {
                    wake = std::min(wake, child.started + child.limits.total);
                    if (child.limits.idle)
                    {
                        wake = std::min(wake, child.idle_deadline);
                    }
                }
                if (!child.reaped && child.pidfd < 0)
                {
                    wake = std::min(wake, now + tick);
                }
                return wake;
            }

            void deliver_lines(Supervised& child, Stream& stream, Clock::time_point now)
            {
                std::size_t start = 0;
                for (auto newline = stream.pending.find('\n'); newline != std::string::npos;
                     newline = stream.pending.find('\n', start))
                {
                    const auto line =
                      std::string_view(stream.pending).substr(start, newline - start);
                    if (stream.on_line != nullptr && *stream.on_line)
                    {
                        (*stream.on_line)(line);
                    }
                    start = newline + 1;
                    if (child.limits.idle)
                    {
                        child.idle_deadline = now + *child.limits.idle;
                    }
                    if (child.is_final_line != nullptr && *child.is_final_line &&
                        (*child.is_final_line)(line))
                    {
                        release(child, now);
                        stream.pending.clear();
                        return;
                    }
                }
                stream.pending.erase(0, start);
                if (stream.pending.size() > child.limits.max_line_bytes)
                {
                    stop(child, ChildEnd::too_much_output, now,
                         "wrote a line longer than " + mebibytes(child.limits.max_line_bytes));
                    close_fd(stream.fd);
                }
            }

            void read_stream(Supervised& child, Stream& stream, Clock::time_point now)
            {
                char chunk[65536];
                const ssize_t n = ::read(stream.fd, chunk, sizeof chunk);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                {
                    return;
                }
                if (n <= 0)
                {
                    close_fd(stream.fd);
                    return;
                }
                const auto count = static_cast<std::size_t>(n);
                switch (stream.kind)
                {
                    case Stream::Kind::lines:
                        stream.lines_read += count;
                        if (stream.lines_read > child.limits.max_lines_bytes)
                        {
                            stop(child, ChildEnd::too_much_output, now,
                                 "wrote more than " + mebibytes(child.limits.max_lines_bytes));
                            close_fd(stream.fd);
                            return;
                        }
                        stream.pending.append(chunk, count);
                        deliver_lines(child, stream, now);
                        break;
                    case Stream::Kind::keep_head:
                    {
                        const std::size_t room =
                          stream.limit - std::min(stream.limit, stream.sink->size());
                        stream.sink->append(chunk, std::min(room, count));
                        break;
                    }
                    case Stream::Kind::keep_tail:
                        stream.sink->append(chunk, count);
                        if (stream.sink->size() > 2 * stream.limit)
                        {
                            stream.sink->erase(0, stream.sink->size() - stream.limit);
                        }
                        break;
                }
            }

            void write_stdin(Supervised& child)
            {
                const auto left = child.stdin_text.substr(child.stdin_written);
                if (left.empty())
                {
                    close_fd(child.stdin_fd);
                    return;
                }
                const ssize_t n = ::write(child.stdin_fd, left.data(), left.size());
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                {
                    return;
                }
                if (n <= 0)
                {
                    close_fd(child.stdin_fd); // it closed its stdin: the rest is not wanted
                    return;
                }
                child.stdin_written += static_cast<std::size_t>(n);
                if (child.stdin_written == child.stdin_text.size())
                {
                    close_fd(child.stdin_fd);
                }
            }
        }

        auto make_pipe(Pipe& pipe) -> bool
        {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0)
            {
                return false;
            }
            pipe = Pipe{ fds[0], fds[1] };
            return true;
        }

        void close_fd(int& fd)
        {
            if (fd >= 0)
            {
                ::close(fd);
                fd = -1;
            }
        }

        auto fork_in_new_group(const std::function<void()>& in_child) -> pid_t
        {
            // Buffered output would otherwise be written twice, by both processes.
            std::cout.flush();
            std::cerr.flush();
            std::fflush(nullptr);
            const pid_t pid = ::fork();
            if (pid == 0)
            {
                ::setpgid(0, 0);
                in_child();
                ::_exit(127);
            }
            if (pid > 0)
            {
                ::setpgid(pid, pid); // also here, so the group exists before the parent kills it
            }
            return pid;
        }

        void begin(Supervised& child, pid_t pid, const ChildLimits& limits,
                   Clock::time_point started)
        {
            child.pid = pid;
            child.limits = limits;
            child.started = started;
            child.idle_deadline = started + limits.idle.value_or(limits.total);
            child.pidfd = open_pidfd(pid);
            if (child.stdin_fd >= 0)
            {
                ::fcntl(child.stdin_fd, F_SETFL, ::fcntl(child.stdin_fd, F_GETFL) | O_NONBLOCK);
                if (child.stdin_text.empty())
                {
                    close_fd(child.stdin_fd);
                }
                else
                {
                    std::signal(SIGPIPE, SIG_IGN); // a child that closed its stdin is no crash
                }
            }
        }

        void supervise(std::span<Supervised* const> children)
        {
            std::vector<pollfd> polls;
            struct Owner
            {
                Supervised* child;
                int what; // stream index; -1 stdin; -2 pidfd
            };
            std::vector<Owner> owners;
            while (true)
            {
                auto now = Clock::now();
                auto wake = Clock::time_point::max();
                polls.clear();
                owners.clear();
                for (auto* child : children)
                {
                    if (!child->done)
                    {
                        advance(*child, now);
                    }
                    if (child->done)
                    {
                        continue;
                    }
                    for (std::size_t i = 0; i < child->streams.size(); ++i)
                    {
                        if (child->streams[i].fd >= 0)
                        {
                            polls.push_back({ child->streams[i].fd, POLLIN, 0 });
                            owners.push_back({ child, static_cast<int>(i) });
                        }
                    }
                    if (child->stdin_fd >= 0)
                    {
                        polls.push_back({ child->stdin_fd, POLLOUT, 0 });
                        owners.push_back({ child, -1 });
                    }
                    if (!child->reaped && child->pidfd >= 0)
                    {
                        polls.push_back({ child->pidfd, POLLIN, 0 });
                        owners.push_back({ child, -2 });
                    }
                    wake = std::min(wake, next_wake(*child, now));
                }
                if (owners.empty() && wake == Clock::time_point::max())
                {
                    if (std::all_of(children.begin(), children.end(),
                                    [](const Supervised* child) { return child->done; }))
                    {
                        return;
                    }
                }
                const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
                const int timeout = static_cast<int>(std::clamp<long long>(wait, 0, 60000));
                const int ready = ::poll(polls.data(), polls.size(), timeout);
                if (ready < 0 && errno != EINTR)
                {
                    // Cannot watch them any more: stop them rather than wait blind.
                    const std::string why = "poll: " + describe_errno(errno);
                    for (auto* child : children)
                    {
                        stop(*child, ChildEnd::total_timeout, Clock::now(), why);
                    }
                    continue;
                }
                now = Clock::now();
                for (std::size_t k = 0; k < polls.size() && ready > 0; ++k)
                {
                    if (polls[k].revents == 0)
                    {
                        continue;
                    }
                    auto& owner = owners[k];
                    if (owner.what >= 0)
                    {
                        auto& stream = owner.child->streams[static_cast<std::size_t>(owner.what)];
                        if (stream.fd >= 0)
                        {
                            read_stream(*owner.child, stream, now);
                        }
                    }
                    else if (owner.what == -1)
                    {
                        if ((polls[k].revents & (POLLERR | POLLHUP)) != 0)
                        {
                            close_fd(owner.child->stdin_fd);
                        }
                        else if (owner.child->stdin_fd >= 0)
                        {
                            write_stdin(*owner.child);
                        }
                    }
                    else
                    {
                        try_reap(*owner.child, now);
                    }
                }
            }
        }

        auto end_of(const Supervised& child) -> ChildEnd
        {
            if (child.released)
            {
                return ChildEnd::released;
            }
            if (child.killed_for)
            {
                return *child.killed_for;
            }
            if (child.reaped && WIFSIGNALED(child.status))
            {
                return ChildEnd::signaled;
            }
            return ChildEnd::exited;
        }
    }

    namespace
    {
        using detail::Clock;

        // A table, not sigabbrev_np(): that needs glibc 2.32, above the portable binary's floor
        // of 2.31 (README "Installing").
        auto signal_name(int signal) -> std::string
        {
            static constexpr std::pair<int, const char*> names[] = {
                { SIGHUP, "HUP" },       { SIGINT, "INT" },   { SIGQUIT, "QUIT" },
                { SIGILL, "ILL" },       { SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" },
                { SIGBUS, "BUS" },       { SIGFPE, "FPE" },   { SIGKILL, "KILL" },
                { SIGUSR1, "USR1" },     { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
                { SIGPIPE, "PIPE" },     { SIGALRM, "ALRM" }, { SIGTERM, "TERM" },
                { SIGCHLD, "CHLD" },     { SIGCONT, "CONT" }, { SIGSTOP, "STOP" },
                { SIGTSTP, "TSTP" },     { SIGTTIN, "TTIN" }, { SIGTTOU, "TTOU" },
                { SIGURG, "URG" },       { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" },
                { SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" }, { SIGWINCH, "WINCH" },
                { SIGIO, "IO" },         { SIGPWR, "PWR" },   { SIGSYS, "SYS" },
            };
            for (const auto& [number, name] : names)
            {
                if (number == signal)
                {
                    return std::string("SIG") + name;
                }
            }
            return "unknown";
        }

        // Closes every descriptor from `first` up. The close_range system call, not glibc's
        // wrapper (2.34+): the portable build links against glibc 2.31. Kernels before 5.9 lack
        // it; then each descriptor below the limit is closed.
        void close_from(int first)
        {
#ifdef __NR_close_range // the kernel headers' number: glibc 2.31 has no SYS_close_range
            if (::syscall(__NR_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0)
            {
                return;
            }
#endif
            rlimit limit{};
            const rlim_t highest =
              ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                ? std::min<rlim_t>(limit.rlim_cur, 1U << 20)
                : 65536;
            for (rlim_t fd = static_cast<rlim_t>(first); fd < highest; ++fd)
            {
                ::close(static_cast<int>(fd));
            }
        }

        [[noreturn]] void child_main(const ChildMain& main, int line_fd, int output_fd,
                                     int input_fd)
        {
            // Descriptors: 0 the input pipe or /dev/null, 1 and 2 the output pipe, 3 the line
            // pipe; no other of the parent's (a driver's grandchild must not hold envcheck's
            // files open).
            const int lines = ::fcntl(line_fd, F_DUPFD, 10);
            const int input = input_fd >= 0 ? input_fd : ::open("/dev/null", O_RDONLY);
            ::dup2(input, STDIN_FILENO);
            ::dup2(output_fd, STDOUT_FILENO);
            ::dup2(output_fd, STDERR_FILENO);
            ::dup2(lines, 3);
            close_from(4);
            int code = 3;
            try
            {
                LineWriter writer(3);
                code = main(writer);
            }
            catch (const std::exception& error)
            {
                std::cerr << "envcheck: child process: " << error.what() << std::endl;
            }
            catch (...)
            {
                std::cerr << "envcheck: child process: an unknown exception" << std::endl;
            }
            std::fflush(nullptr); // what a library printed is part of the report
            // _exit: no atexit handlers or static destructors of the parent's copy run here.
            ::_exit(code);
        }

        struct Started
        {
            detail::Supervised supervised;
            std::string output;
            std::string unterminated;
            LineSink on_line;
            FinalLine is_final_line;
            int input = -1; // the parent's end of the child's stdin (RunningChild)
        };

        void start(const ChildJob& job, Started& started, bool with_input)
        {
            detail::reap_released();
            auto& child = started.supervised;
            detail::Pipe lines;
            detail::Pipe output;
            detail::Pipe input;
            if (!detail::make_pipe(lines) || !detail::make_pipe(output) ||
                (with_input && !detail::make_pipe(input)))
            {
                const int error = errno;
                for (int* fd : { &lines.read, &lines.write, &output.read, &output.write,
                                 &input.read, &input.write })
                {
                    detail::close_fd(*fd);
                }
                child.killed_for = ChildEnd::failed_to_start;
                child.detail = "pipe: " + describe_errno(error);
                child.done = true;
                return;
            }
            const auto begun = Clock::now();
            const pid_t pid = detail::fork_in_new_group(
              [&] { child_main(job.main, lines.write, output.write, input.read); });
            const int error = errno;
            detail::close_fd(lines.write);
            detail::close_fd(output.write);
            detail::close_fd(input.read);
            if (pid < 0)
            {
                detail::close_fd(lines.read);
                detail::close_fd(output.read);
                detail::close_fd(input.write);
                child.killed_for = ChildEnd::failed_to_start;
                child.detail = "fork: " + describe_errno(error);
                child.done = true;
                return;
            }
            started.input = input.write;
            started.on_line = job.on_line;
            started.is_final_line = job.is_final_line;
            child.is_final_line = &started.is_final_line;
            detail::Stream line_stream;
            line_stream.fd = lines.read;
            line_stream.kind = detail::Stream::Kind::lines;
            line_stream.on_line = &started.on_line;
            detail::Stream output_stream;
            output_stream.fd = output.read;
            output_stream.kind = detail::Stream::Kind::keep_tail;
            output_stream.sink = &started.output;
            output_stream.limit = job.limits.max_output_bytes;
            child.streams = { std::move(line_stream), std::move(output_stream) };
            detail::begin(child, pid, job.limits, begun);
        }

        auto report_of(Started& started) -> ChildReport
        {
            const auto& child = started.supervised;
            ChildReport report;
            report.end = detail::end_of(child);
            if (child.reaped && report.end == ChildEnd::exited)
            {
                report.exit_code = WEXITSTATUS(child.status);
            }
            if (child.reaped && report.end == ChildEnd::signaled)
            {
                report.signal = WTERMSIG(child.status);
            }
            if (child.pid > 0)
            {
                report.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                  child.ended - child.started);
            }
            report.detail = child.detail;
            if (!child.streams.empty())
            {
                report.unterminated = child.streams[0].pending;
            }
            auto& output = started.output;
            if (output.size() > child.limits.max_output_bytes)
            {
                output.erase(0, output.size() - child.limits.max_output_bytes);
            }
            report.output = std::move(output);
            return report;
        }
    }

    auto LineWriter::write_line(std::string_view line) -> bool
    {
        std::string buffer(line);
        buffer += '\n';
        std::size_t written = 0;
        while (written < buffer.size())
        {
            const ssize_t n = ::write(m_fd, buffer.data() + written, buffer.size() - written);
            if (n < 0)
            {
                if (errno == EINTR)
                {
                    continue;
                }
                return false;
            }
            written += static_cast<std::size_t>(n);
        }
        return true;
    }

    auto format_seconds(std::chrono::milliseconds duration) -> std::string
    {
        const auto ms = duration.count();
        if (ms % 1000 == 0)
        {
            return std::to_string(ms / 1000) + " s";
        }
        const auto tenths = (ms + 50) / 100;
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
    }

    auto ChildReport::output_tail(std::size_t limit) const -> std::string
    {
        std::string_view text = output;
        while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        {
            text.remove_suffix(1);
        }
        const bool cut = text.size() > limit;
        std::string out(cut ? text.substr(text.size() - limit) : text);
        std::replace(out.begin(), out.end(), '\n', ' ');
        return cut ? "..." + out : out;
    }

    auto ChildReport::describe(const ChildLimits& limits) const -> std::string
    {
        switch (end)
        {
            case ChildEnd::exited:
                return "exited with status " + std::to_string(exit_code);
            case ChildEnd::signaled:
                return "was killed by signal " + std::to_string(signal) + " (" +
                       signal_name(signal) + ")";
            case ChildEnd::idle_timeout:
                return "was stopped after " + format_seconds(limits.idle.value_or(limits.total)) +
                       " without progress (SIGKILL)";
            case ChildEnd::total_timeout:
                return "timed out after " + format_seconds(limits.total) +
                       (detail.empty() ? "" : " (" + detail + ")");
            case ChildEnd::too_much_output:
                return detail + " and was stopped (SIGKILL)";
            case ChildEnd::failed_to_start:
                return "could not be started: " + detail;
            case ChildEnd::released:
                return "finished";
        }
        return "ended";
    }

    auto run_children(std::span<const ChildJob> jobs) -> std::vector<ChildReport>
    {
        std::vector<Started> started(jobs.size());
        std::vector<detail::Supervised*> watched;
        for (std::size_t i = 0; i < jobs.size(); ++i)
        {
            start(jobs[i], started[i], false);
            watched.push_back(&started[i].supervised);
        }
        detail::supervise(watched);
        std::vector<ChildReport> reports;
        reports.reserve(started.size());
        for (auto& one : started)
        {
            reports.push_back(report_of(one));
        }
        return reports;
    }

    auto run_child(const ChildMain& main, const ChildLimits& limits, const LineSink& on_line)
      -> ChildReport
    {
        const ChildJob job{ main, limits, on_line, {} };
        return std::move(run_children(std::span<const ChildJob>(&job, 1)).front());
    }

    struct RunningChild::State
    {
        Started started;
        bool finished = false;
    };

    RunningChild::RunningChild(const ChildJob& job)
      : m_state(std::make_unique<State>())
    {
        start(job, m_state->started, true);
    }

    RunningChild::~RunningChild()
    {
        if (!m_state->finished)
        {
            auto& child = m_state->started.supervised;
            detail::close_fd(m_state->started.input);
            if (!child.done)
            {
                // Not wanted any more: stopped, and watched only until it is reaped or the
                // grace ends.
                child.limits.total = std::chrono::milliseconds(0);
                detail::Supervised* watched[] = { &child };
                detail::supervise(watched);
            }
        }
    }

    auto RunningChild::send_line(std::string_view line) -> bool
    {
        const int fd = m_state->started.input;
        if (fd < 0)
        {
            return false;
        }
        // A child gone before reading gets EPIPE, not our death.
        std::signal(SIGPIPE, SIG_IGN);
        // It waited for us, not we for it: its idle time starts again.
        auto& child = m_state->started.supervised;
        if (child.limits.idle)
        {
            child.idle_deadline = Clock::now() + *child.limits.idle;
        }
        return LineWriter(fd).write_line(line);
    }

    auto RunningChild::finish() -> ChildReport
    {
        auto& started = m_state->started;
        if (!m_state->finished)
        {
            m_state->finished = true;
            detail::close_fd(started.input);
            detail::Supervised* watched[] = { &started.supervised };
            detail::supervise(watched);
        }
        return report_of(started);
    }
}
