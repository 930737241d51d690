#include "system/child.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsio/files.hpp"

namespace envcheck::system
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        void write_all(int fd, std::string_view text)
        {
            while (!text.empty())
            {
                const auto written = ::write(fd, text.data(), text.size());
                if (written < 0 && errno == EINTR)
                {
                    continue;
                }
                if (written <= 0)
                {
                    return; // the parent is gone: nothing to tell
                }
                text.remove_prefix(static_cast<std::size_t>(written));
            }
        }

        auto remaining(Clock::time_point deadline) -> int
        {
            const auto left =
              std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            return left.count() <= 0 ? 0 : static_cast<int>(left.count());
        }

        void record_status(ChildResult& result, int status)
        {
            if (WIFEXITED(status))
            {
                result.exit_code = WEXITSTATUS(status);
            }
            else if (WIFSIGNALED(status))
            {
                result.signal = WTERMSIG(status);
            }
        }
    }

    auto format_seconds(std::chrono::milliseconds duration) -> std::string
    {
        const auto ms = duration.count();
        if (ms % 1000 == 0)
        {
            return std::to_string(ms / 1000);
        }
        const auto tenths = (ms + 50) / 100;
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
    }

    auto ChildResult::describe(std::chrono::milliseconds timeout) const -> std::string
    {
        if (!start_error.empty())
        {
            return "could not start: " + start_error;
        }
        if (timed_out)
        {
            return "timed out after " + format_seconds(timeout) + " s";
        }
        if (signal)
        {
            return "was killed by signal " + std::to_string(*signal) + " (" + ::strsignal(*signal) +
                   ")";
        }
        if (exit_code)
        {
            return "exited with " + std::to_string(*exit_code);
        }
        return "ended in an unknown way";
    }

    auto run_in_child(const ChildBody& body, std::chrono::milliseconds timeout) -> ChildResult
    {
        ChildResult result;
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
        {
            result.start_error = "pipe: " + fsio::describe_errno(errno);
            return result;
        }
        // Buffered output would otherwise be written twice, by both processes.
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        const auto start = Clock::now();
        const pid_t pid = ::fork();
        if (pid < 0)
        {
            result.start_error = "fork: " + fsio::describe_errno(errno);
            ::close(fds[0]);
            ::close(fds[1]);
            return result;
        }
        if (pid == 0)
        {
            ::close(fds[0]);
            int status = 3;
            try
            {
                status = body(
                  [fd = fds[1]](std::string_view line)
                  {
                      std::string text(line);
                      text += '\n';
                      write_all(fd, text);
                  });
            }
            catch (...)
            {
                status = 3;
            }
            ::close(fds[1]);
            ::_exit(status); // no atexit handlers, no destructors of the parent's objects
        }
        ::close(fds[1]);
        const auto deadline = start + timeout;
        std::string pending;
        bool open = true;
        while (open)
        {
            pollfd poll_fd{ fds[0], POLLIN, 0 };
            const int ready = ::poll(&poll_fd, 1, remaining(deadline));
            if (ready < 0 && errno == EINTR)
            {
                continue;
            }
            if (ready <= 0)
            {
                result.timed_out = true;
                break;
            }
            char buffer[4096];
            const auto count = ::read(fds[0], buffer, sizeof(buffer));
            if (count < 0 && errno == EINTR)
            {
                continue;
            }
            if (count <= 0)
            {
                open = false;
                break;
            }
            pending.append(buffer, static_cast<std::size_t>(count));
            for (auto newline = pending.find('\n'); newline != std::string::npos;
                 newline = pending.find('\n'))
            {
                result.lines.push_back(pending.substr(0, newline));
                pending.erase(0, newline + 1);
            }
        }
        ::close(fds[0]);
        // After end of output the child is exiting; it still gets until the deadline.
        int status = 0;
        while (!result.timed_out)
        {
            const pid_t done = ::waitpid(pid, &status, WNOHANG);
            if (done == pid)
            {
                record_status(result, status);
                break;
            }
            if (done < 0 && errno != EINTR)
            {
                break;
            }
            if (remaining(deadline) == 0)
            {
                result.timed_out = true;
                break;
            }
            ::usleep(2000);
        }
        if (result.timed_out)
        {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
            {
            }
        }
        result.elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
        return result;
    }
}
