#include "fsio/process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsio/files.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace envcheck::fsio
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        struct Pipe
        {
            int read = -1;
            int write = -1;
        };

        auto make_pipe() -> std::optional<Pipe>
        {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0)
            {
                return std::nullopt;
            }
            return Pipe{ fds[0], fds[1] };
        }

        void close_fd(int& fd)
        {
            if (fd >= 0)
            {
                ::close(fd);
                fd = -1;
            }
        }
    }

    auto ProcessResult::describe() const -> std::string
    {
        if (timed_out)
        {
            return "timed out";
        }
        if (signal)
        {
            return "killed by signal " + std::to_string(*signal) + " (" + ::strsignal(*signal) +
                   ")";
        }
        if (exit_code)
        {
            return "exited with " + std::to_string(*exit_code);
        }
        return "ended in an unknown way";
    }

    auto find_program(const std::string& name, const std::string& path_variable) -> std::string
    {
        if (name.find('/') != std::string::npos)
        {
            return ::access(name.c_str(), X_OK) == 0 ? name : std::string{};
        }
        for (const auto dir : util::split(path_variable, ':'))
        {
            if (dir.empty())
            {
                continue;
            }
            const std::string candidate = std::string(dir) + "/" + name;
            if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate))
            {
                return candidate;
            }
        }
        return {};
    }

    auto run_process(const std::vector<std::string>& argv, const ProcessOptions& options)
      -> util::Result<ProcessResult>
    {
        if (argv.empty())
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::internal, "run_process: empty argv"));
        }
        auto out_pipe = make_pipe();
        auto err_pipe = make_pipe();
        auto in_pipe = make_pipe();
        auto exec_pipe =
          make_pipe(); // carries errno when execve fails; closed by a successful exec
        if (!out_pipe || !err_pipe || !in_pipe || !exec_pipe)
        {
            return util::unexpected(util::make_error(util::ErrorKind::io, "cannot create pipes: " +
                                                                            describe_errno(errno)));
        }

        std::vector<char*> args;
        for (const auto& arg : argv)
        {
            args.push_back(const_cast<char*>(arg.c_str()));
        }
        args.push_back(nullptr);
        std::vector<std::string> env_strings;
        std::vector<char*> env;
        if (options.environment)
        {
            for (const auto& [key, value] : *options.environment)
            {
                env_strings.push_back(key + "=" + value);
            }
            for (auto& entry : env_strings)
            {
                env.push_back(entry.data());
            }
            env.push_back(nullptr);
        }

        const auto started = Clock::now();
        const pid_t pid = ::fork();
        if (pid < 0)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::io, "cannot fork: " + describe_errno(errno)));
        }
        if (pid == 0)
        {
            // Child: only async-signal-safe calls until execve.
            ::dup2(in_pipe->read, STDIN_FILENO);
            ::dup2(out_pipe->write, STDOUT_FILENO);
            ::dup2(err_pipe->write, STDERR_FILENO);
            ::setpgid(0, 0); // its own process group, so a timeout kills its children too
            if (!options.working_directory.empty() &&
                ::chdir(options.working_directory.c_str()) != 0)
            {
                const int error = errno;
                [[maybe_unused]] auto written = ::write(exec_pipe->write, &error, sizeof error);
                ::_exit(127);
            }
            char** child_env = options.environment ? env.data() : environ;
            if (argv[0].find('/') != std::string::npos)
            {
                ::execve(argv[0].c_str(), args.data(), child_env);
            }
            else
            {
                ::execvpe(argv[0].c_str(), args.data(), child_env);
            }
            const int error = errno;
            [[maybe_unused]] auto written = ::write(exec_pipe->write, &error, sizeof error);
            ::_exit(127);
        }

        close_fd(in_pipe->read);
        close_fd(out_pipe->write);
        close_fd(err_pipe->write);
        close_fd(exec_pipe->write);
        int exec_errno = 0;
        const auto got = ::read(exec_pipe->read, &exec_errno, sizeof exec_errno);
        close_fd(exec_pipe->read);
        if (got == static_cast<ssize_t>(sizeof exec_errno))
        {
            ::waitpid(pid, nullptr, 0);
            close_fd(in_pipe->write);
            close_fd(out_pipe->read);
            close_fd(err_pipe->read);
            return util::unexpected(util::make_error(
              util::ErrorKind::io, "cannot run " + argv[0] + ": " + describe_errno(exec_errno)));
        }

        // Feed stdin, then read both outputs until they close or the deadline passes.
        if (!options.stdin_text.empty())
        {
            std::signal(SIGPIPE, SIG_IGN);
            std::size_t offset = 0;
            while (offset < options.stdin_text.size())
            {
                const auto n = ::write(in_pipe->write, options.stdin_text.data() + offset,
                                       options.stdin_text.size() - offset);
                if (n <= 0)
                {
                    break;
                }
                offset += static_cast<std::size_t>(n);
            }
        }
        close_fd(in_pipe->write);

        ProcessResult result;
        const auto deadline = started + options.timeout;
        int fds[2] = { out_pipe->read, err_pipe->read };
        std::string* sinks[2] = { &result.out, &result.err };
        char buffer[1 << 15];
        while (fds[0] >= 0 || fds[1] >= 0)
        {
            const auto left =
              std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0)
            {
                result.timed_out = true;
                break;
            }
            pollfd polls[2];
            nfds_t count = 0;
            int which[2];
            for (int i = 0; i < 2; ++i)
            {
                if (fds[i] >= 0)
                {
                    polls[count] = { fds[i], POLLIN, 0 };
                    which[count++] = i;
                }
            }
            const int ready =
              ::poll(polls, count, static_cast<int>(std::min<long long>(left.count(), 1000)));
            if (ready < 0 && errno != EINTR)
            {
                break;
            }
            for (nfds_t k = 0; k < count && ready > 0; ++k)
            {
                if ((polls[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
                {
                    continue;
                }
                const int i = which[k];
                const auto n = ::read(fds[i], buffer, sizeof buffer);
                if (n <= 0)
                {
                    close_fd(fds[i]);
                    continue;
                }
                const std::size_t room =
                  options.max_output_bytes - std::min(options.max_output_bytes, sinks[i]->size());
                sinks[i]->append(buffer, std::min(room, static_cast<std::size_t>(n)));
            }
        }
        close_fd(fds[0]);
        close_fd(fds[1]);

        int status = 0;
        if (result.timed_out)
        {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
        }
        else
        {
            // Outputs closed; the program may still be running (it closed them itself).
            while (true)
            {
                const pid_t done = ::waitpid(pid, &status, WNOHANG);
                if (done == pid)
                {
                    break;
                }
                if (Clock::now() >= deadline)
                {
                    result.timed_out = true;
                    ::kill(-pid, SIGKILL);
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, &status, 0);
                    break;
                }
                ::usleep(2000);
            }
        }
        result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
        if (!result.timed_out)
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
        return result;
    }
}
