#include "fsio/files.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace envcheck::fsio
{
    namespace
    {
        auto io_error(const std::string& path, const std::string& what) -> util::Error
        {
            return util::make_error(util::ErrorKind::io, what, util::SourceLocation{ path, 0, 0 });
        }

        auto display_name(const std::string& path) -> std::string
        {
            return path == "-" ? std::string("<stdin>") : path;
        }
    }

    auto describe_errno(int error_number) -> std::string
    {
        return std::strerror(error_number);
    }

    auto read_file(const std::string& path, std::size_t limit) -> util::Result<std::string>
    {
        const bool from_stdin = path == "-";
        const int fd = from_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
        {
            return util::unexpected(io_error(path, "cannot open: " + describe_errno(errno)));
        }
        struct stat info
        {
        };
        if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode))
        {
            ::close(fd);
            return util::unexpected(io_error(path, "is a directory, not a file"));
        }
        std::string content;
        if (S_ISREG(info.st_mode) && info.st_size > 0)
        {
            content.reserve(static_cast<std::size_t>(info.st_size));
        }
        // Read until end of stream rather than trusting st_size: pipes report 0.
        char buffer[1 << 16];
        while (true)
        {
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got < 0)
            {
                if (errno == EINTR)
                {
                    continue;
                }
                const int saved = errno;
                if (!from_stdin)
                {
                    ::close(fd);
                }
                return util::unexpected(
                  io_error(display_name(path), "cannot read: " + describe_errno(saved)));
            }
            if (got == 0)
            {
                break;
            }
            content.append(buffer, static_cast<std::size_t>(got));
            if (content.size() > limit)
            {
                if (!from_stdin)
                {
                    ::close(fd);
                }
                return util::unexpected(
                  io_error(display_name(path),
                           "is larger than the limit of " + std::to_string(limit) + " bytes"));
            }
        }
        if (!from_stdin)
        {
            ::close(fd);
        }
        return content;
    }

    auto write_file_atomic(const std::string& path, std::string_view content, unsigned mode)
      -> util::Result<void>
    {
        namespace fs = std::filesystem;
        const fs::path target(path);
        fs::path directory = target.parent_path();
        if (directory.empty())
        {
            directory = ".";
        }
        std::string temp =
          (directory / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
        const int fd = ::mkstemp(temp.data());
        if (fd < 0)
        {
            return util::unexpected(io_error(path, "cannot create a temporary file in " +
                                                     directory.string() + ": " +
                                                     describe_errno(errno)));
        }
        auto fail = [&](const std::string& what)
        {
            const int saved = errno;
            ::close(fd);
            ::unlink(temp.c_str());
            return util::unexpected(io_error(path, what + ": " + describe_errno(saved)));
        };
        // Keep the mode of a file we replace; otherwise honour the umask like open(2) would.
        struct stat existing
        {
        };
        mode_t final_mode = static_cast<mode_t>(mode);
        if (::stat(path.c_str(), &existing) == 0)
        {
            final_mode = existing.st_mode & 07777;
        }
        else
        {
            const mode_t mask = ::umask(0);
            ::umask(mask);
            final_mode &= ~mask;
        }
        if (::fchmod(fd, final_mode) != 0)
        {
            return fail("cannot set the file mode");
        }
        const char* data = content.data();
        std::size_t left = content.size();
        while (left > 0)
        {
            const ssize_t written = ::write(fd, data, left);
            if (written < 0)
            {
                if (errno == EINTR)
                {
                    continue;
                }
                return fail("cannot write");
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
        if (::fsync(fd) != 0)
        {
            return fail("cannot flush to disk");
        }
        if (::close(fd) != 0)
        {
            const int saved = errno;
            ::unlink(temp.c_str());
            return util::unexpected(io_error(path, "cannot close: " + describe_errno(saved)));
        }
        if (::rename(temp.c_str(), path.c_str()) != 0)
        {
            const int saved = errno;
            ::unlink(temp.c_str());
            return util::unexpected(io_error(path, "cannot replace: " + describe_errno(saved)));
        }
        // Make the rename itself durable.
        const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd >= 0)
        {
            ::fsync(dir_fd);
            ::close(dir_fd);
        }
        return {};
    }

    auto FileLock::acquire(const std::string& path) -> util::Result<FileLock>
    {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
        {
            return util::unexpected(
              io_error(path, "cannot open lock file: " + describe_errno(errno)));
        }
        while (::flock(fd, LOCK_EX) != 0)
        {
            if (errno != EINTR)
            {
                const int saved = errno;
                ::close(fd);
                return util::unexpected(io_error(path, "cannot lock: " + describe_errno(saved)));
            }
        }
        return FileLock(fd);
    }

    FileLock::FileLock(FileLock&& other) noexcept
      : m_fd(other.m_fd)
    {
        other.m_fd = -1;
    }

    auto FileLock::operator=(FileLock&& other) noexcept -> FileLock&
    {
        if (this != &other)
        {
            if (m_fd >= 0)
            {
                ::close(m_fd);
            }
            m_fd = other.m_fd;
            other.m_fd = -1;
        }
        return *this;
    }

    FileLock::~FileLock()
    {
        if (m_fd >= 0)
        {
            ::close(m_fd); // closing releases the flock
        }
    }
}
