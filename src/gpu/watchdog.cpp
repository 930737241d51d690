#include "gpu/watchdog.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace envcheck::gpu
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

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

        auto seconds_text(std::chrono::milliseconds duration) -> std::string
        {
            const auto ms = duration.count();
            if (ms % 1000 == 0)
            {
                return std::to_string(ms / 1000) + " s";
            }
            char text[32];
            std::snprintf(text, sizeof(text), "%.1f s", static_cast<double>(ms) / 1000.0);
            return text;
        }

        [[noreturn]] void child_process(const ChildMain& child, int read_fd, int write_fd)
        {
            close(read_fd);
            int code = 3;
            try
            {
                LineWriter writer(write_fd);
                code = child(writer);
            }
            catch (const std::exception& error)
            {
                std::cerr << "envcheck: probe process: " << error.what() << std::endl;
            }
            close(write_fd);
            // _exit: no atexit handlers or static destructors of the parent's copy run here.
            _exit(code);
        }

        auto wait_for(pid_t pid, int& status) -> bool
        {
            while (waitpid(pid, &status, 0) < 0)
            {
                if (errno != EINTR)
                {
                    return false;
                }
            }
            return true;
        }

        void kill_and_reap(pid_t pid)
        {
            int status = 0;
            kill(pid, SIGKILL);
            (void)wait_for(pid, status);
        }
    }

    auto LineWriter::write_line(std::string_view line) -> bool
    {
        std::string buffer(line);
        buffer += '\n';
        std::size_t written = 0;
        while (written < buffer.size())
        {
            const ssize_t n = write(m_fd, buffer.data() + written, buffer.size() - written);
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

    auto to_string(ChildEnd end) -> std::string_view
    {
        switch (end)
        {
            case ChildEnd::exited:
                return "exited";
            case ChildEnd::signaled:
                return "signaled";
            case ChildEnd::timed_out:
                return "timed_out";
            case ChildEnd::failed_to_start:
                return "failed_to_start";
        }
        return "exited";
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
            case ChildEnd::timed_out:
                if (elapsed >= limits.total_timeout)
                {
                    return "was stopped after running " + seconds_text(limits.total_timeout) +
                           " in all (SIGKILL)";
                }
                return "was stopped after " + seconds_text(limits.idle_timeout) +
                       " without progress (SIGKILL): a kernel or CUDA call hung";
            case ChildEnd::failed_to_start:
                return "could not be started: " + detail;
        }
        return "ended";
    }

    auto run_watched(const ChildMain& child, const ChildLimits& limits, const LineSink& on_line)
      -> ChildReport
    {
        ChildReport report;
        int fds[2] = { -1, -1 };
        if (pipe2(fds, O_CLOEXEC) != 0)
        {
            report.end = ChildEnd::failed_to_start;
            report.detail = std::string("pipe: ") + std::strerror(errno);
            return report;
        }
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        const auto started = Clock::now();
        const pid_t pid = fork();
        if (pid < 0)
        {
            report.end = ChildEnd::failed_to_start;
            report.detail = std::string("fork: ") + std::strerror(errno);
            close(fds[0]);
            close(fds[1]);
            return report;
        }
        if (pid == 0)
        {
            child_process(child, fds[0], fds[1]);
        }
        close(fds[1]);
        const int read_fd = fds[0];

        std::string pending;
        auto idle_deadline = started + limits.idle_timeout;
        const auto total_deadline = started + limits.total_timeout;
        bool timed_out = false;
        char chunk[65536];
        while (true)
        {
            const auto now = Clock::now();
            const auto deadline = std::min(idle_deadline, total_deadline);
            if (now >= deadline)
            {
                timed_out = true;
                break;
            }
            const auto wait_ms =
              std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
            pollfd watched{ read_fd, POLLIN, 0 };
            const int ready =
              poll(&watched, 1, static_cast<int>(std::min<long long>(wait_ms, 60000)));
            if (ready < 0 && errno != EINTR)
            {
                timed_out = true; // cannot watch it any more: stop it rather than wait blind
                break;
            }
            if (ready <= 0)
            {
                continue;
            }
            const ssize_t n = read(read_fd, chunk, sizeof(chunk));
            if (n < 0)
            {
                if (errno == EINTR || errno == EAGAIN)
                {
                    continue;
                }
                break;
            }
            if (n == 0)
            {
                break; // the child closed its end: it is exiting
            }
            pending.append(chunk, static_cast<std::size_t>(n));
            std::size_t newline = 0;
            while ((newline = pending.find('\n')) != std::string::npos)
            {
                on_line(std::string_view(pending).substr(0, newline));
                pending.erase(0, newline + 1);
                idle_deadline = Clock::now() + limits.idle_timeout;
            }
        }
        close(read_fd);

        int status = 0;
        if (timed_out)
        {
            kill_and_reap(pid);
            report.end = ChildEnd::timed_out;
        }
        else
        {
            // The pipe is closed, so the child is on its way out; still, never wait unbounded.
            const auto exit_deadline = Clock::now() + limits.idle_timeout;
            pid_t done = 0;
            while (true)
            {
                done = waitpid(pid, &status, WNOHANG);
                if (done < 0 && errno == EINTR)
                {
                    continue;
                }
                if (done != 0 || Clock::now() >= exit_deadline)
                {
                    break;
                }
                usleep(1000);
            }
            if (done == 0)
            {
                kill_and_reap(pid);
                report.end = ChildEnd::timed_out;
            }
            else if (done < 0)
            {
                report.end = ChildEnd::failed_to_start;
                report.detail = std::string("waitpid: ") + std::strerror(errno);
            }
            else if (WIFSIGNALED(status))
            {
                report.end = ChildEnd::signaled;
                report.signal = WTERMSIG(status);
            }
            else
            {
                report.end = ChildEnd::exited;
                report.exit_code = WEXITSTATUS(status);
            }
        }
        report.elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
        report.unterminated = std::move(pending);
        return report;
    }
}
