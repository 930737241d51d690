#include "fsio/process.hpp"

#include <cerrno>
#include <filesystem>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

#include "fsio/files.hpp"
#include "fsio/supervisor.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace envcheck::fsio
{
    auto ProcessResult::describe() const -> std::string
    {
        ChildReport report;
        report.end = timed_out ? ChildEnd::total_timeout
                     : signal  ? ChildEnd::signaled
                               : ChildEnd::exited;
        report.exit_code = exit_code.value_or(0);
        report.signal = signal.value_or(0);
        ChildLimits limits;
        limits.total = timeout;
        return report.describe(limits);
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
            std::error_code unreadable; // a loop or no permission: not a program to run
            if (::access(candidate.c_str(), X_OK) == 0 &&
                !std::filesystem::is_directory(candidate, unreadable))
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
        detail::Pipe out_pipe;
        detail::Pipe err_pipe;
        detail::Pipe in_pipe;
        detail::Pipe exec_pipe; // carries errno when execve fails; closed by a successful exec
        if (!detail::make_pipe(out_pipe) || !detail::make_pipe(err_pipe) ||
            !detail::make_pipe(in_pipe) || !detail::make_pipe(exec_pipe))
        {
            const int error = errno;
            for (auto* pipe : { &out_pipe, &err_pipe, &in_pipe, &exec_pipe })
            {
                detail::close_fd(pipe->read);
                detail::close_fd(pipe->write);
            }
            return util::unexpected(util::make_error(util::ErrorKind::io, "cannot create pipes: " +
                                                                            describe_errno(error)));
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
        char** child_env = options.environment ? env.data() : environ;

        const auto started = detail::Clock::now();
        // In the child: only async-signal-safe calls until execve.
        const pid_t pid = detail::fork_in_new_group(
          [&]
          {
              ::dup2(in_pipe.read, STDIN_FILENO);
              ::dup2(out_pipe.write, STDOUT_FILENO);
              ::dup2(err_pipe.write, STDERR_FILENO);
              if (!options.working_directory.empty() &&
                  ::chdir(options.working_directory.c_str()) != 0)
              {
                  const int error = errno;
                  [[maybe_unused]] auto written = ::write(exec_pipe.write, &error, sizeof error);
                  ::_exit(127);
              }
              if (argv[0].find('/') != std::string::npos)
              {
                  ::execve(argv[0].c_str(), args.data(), child_env);
              }
              else
              {
                  ::execvpe(argv[0].c_str(), args.data(), child_env);
              }
              const int error = errno;
              [[maybe_unused]] auto written = ::write(exec_pipe.write, &error, sizeof error);
              ::_exit(127);
          });
        const int fork_error = errno;
        detail::close_fd(in_pipe.read);
        detail::close_fd(out_pipe.write);
        detail::close_fd(err_pipe.write);
        detail::close_fd(exec_pipe.write);
        if (pid < 0)
        {
            for (int* fd : { &in_pipe.write, &out_pipe.read, &err_pipe.read, &exec_pipe.read })
            {
                detail::close_fd(*fd);
            }
            return util::unexpected(
              util::make_error(util::ErrorKind::io, "cannot fork: " + describe_errno(fork_error)));
        }
        int exec_errno = 0;
        ssize_t got = 0;
        do
        {
            got = ::read(exec_pipe.read, &exec_errno, sizeof exec_errno);
        } while (got < 0 && errno == EINTR);
        detail::close_fd(exec_pipe.read);
        if (got == static_cast<ssize_t>(sizeof exec_errno))
        {
            ::waitpid(pid, nullptr, 0);
            detail::close_fd(in_pipe.write);
            detail::close_fd(out_pipe.read);
            detail::close_fd(err_pipe.read);
            return util::unexpected(util::make_error(
              util::ErrorKind::io, "cannot run " + argv[0] + ": " + describe_errno(exec_errno)));
        }

        ProcessResult result;
        detail::Supervised child;
        child.streams.resize(2);
        child.streams[0].fd = out_pipe.read;
        child.streams[0].kind = detail::Stream::Kind::keep_head;
        child.streams[0].sink = &result.out;
        child.streams[0].limit = options.max_output_bytes;
        child.streams[1].fd = err_pipe.read;
        child.streams[1].kind = detail::Stream::Kind::keep_head;
        child.streams[1].sink = &result.err;
        child.streams[1].limit = options.max_output_bytes;
        child.stdin_fd = in_pipe.write;
        child.stdin_text = options.stdin_text;
        ChildLimits limits;
        limits.total = options.timeout;
        detail::begin(child, pid, limits, started);
        detail::Supervised* const watched[] = { &child };
        detail::supervise(watched);

        result.seconds = std::chrono::duration<double>(child.ended - started).count();
        result.timeout = options.timeout;
        switch (detail::end_of(child))
        {
            case ChildEnd::exited:
                result.exit_code = WEXITSTATUS(child.status);
                break;
            case ChildEnd::signaled:
                result.signal = WTERMSIG(child.status);
                break;
            default:
                result.timed_out = true;
                break;
        }
        return result;
    }
}
