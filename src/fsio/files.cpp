#include "fsio/files.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <climits>

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

        // "/dev/fd/12" -> 12; -1 when `path` does not name one of this process's descriptors.
        auto descriptor_of(const std::string& path) -> int
        {
            if (path == "-" || path == "/dev/stdin")
            {
                return STDIN_FILENO;
            }
            if (path == "/dev/stdout")
            {
                return STDOUT_FILENO;
            }
            if (path == "/dev/stderr")
            {
                return STDERR_FILENO;
            }
            for (const std::string_view prefix : { "/dev/fd/", "/proc/self/fd/" })
            {
                if (path.starts_with(prefix) && path.size() > prefix.size() &&
                    path.size() - prefix.size() < 10)
                {
                    int number = 0;
                    for (const char c : std::string_view(path).substr(prefix.size()))
                    {
                        if (c < '0' || c > '9')
                        {
                            return -1;
                        }
                        number = number * 10 + (c - '0');
                    }
                    return number;
                }
            }
            return -1;
        }

        auto kind_name(mode_t mode) -> std::string
        {
            if (S_ISFIFO(mode))
            {
                return "a FIFO";
            }
            if (S_ISCHR(mode) || S_ISBLK(mode))
            {
                return "a device";
            }
            if (S_ISSOCK(mode))
            {
                return "a socket";
            }
            return "not a regular file";
        }

        // Reads a stream until end of input, at most `limit` bytes, waiting at most
        // `idle_timeout` for each chunk.
        auto read_stream(int fd, const std::string& name, std::size_t limit,
                         std::chrono::milliseconds idle_timeout) -> util::Result<std::string>
        {
            std::string content;
            char buffer[1 << 16];
            while (true)
            {
                pollfd waiting{ fd, POLLIN, 0 };
                const int ready = ::poll(&waiting, 1, static_cast<int>(idle_timeout.count()));
                if (ready < 0)
                {
                    if (errno == EINTR)
                    {
                        continue;
                    }
                    return util::unexpected(
                      io_error(name, "cannot wait: " + describe_errno(errno)));
                }
                if (ready == 0)
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::timeout,
                      "sent nothing for " + std::to_string(idle_timeout.count() / 1000) +
                        " s; given up (a pipe whose writer never writes or closes it?)",
                      util::SourceLocation{ name, 0, 0 }));
                }
                const ssize_t got = ::read(fd, buffer, sizeof buffer);
                if (got < 0)
                {
                    if (errno == EINTR || errno == EAGAIN)
                    {
                        continue;
                    }
                    return util::unexpected(
                      io_error(name, "cannot read: " + describe_errno(errno)));
                }
                if (got == 0)
                {
                    return content;
                }
                if (content.size() + static_cast<std::size_t>(got) > limit)
                {
                    return util::unexpected(io_error(name, "is larger than the limit of " +
                                                             std::to_string(limit) + " bytes"));
                }
                content.append(buffer, static_cast<std::size_t>(got));
            }
        }

        auto too_large(const std::string& path, std::size_t limit, std::uint64_t size)
          -> util::Error
        {
            return io_error(path, "is " + std::to_string(size) +
                                    " bytes, larger than the limit of " + std::to_string(limit) +
                                    " bytes");
        }

        auto read_regular(const std::string& path, std::size_t limit) -> util::Result<std::string>
        {
            // O_NONBLOCK: should the path have turned into a FIFO since stat, open does not wait
            // for a writer; the fstat below then refuses it.
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
            if (fd < 0)
            {
                return util::unexpected(io_error(path, "cannot open: " + describe_errno(errno)));
            }
            struct stat info
            {
            };
            if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
            {
                ::close(fd);
                return util::unexpected(io_error(path, "is not a regular file"));
            }
            if (static_cast<std::uint64_t>(info.st_size) > limit)
            {
                ::close(fd);
                return util::unexpected(
                  too_large(path, limit, static_cast<std::uint64_t>(info.st_size)));
            }
            std::string content;
            content.reserve(static_cast<std::size_t>(info.st_size));
            char buffer[1 << 16];
            while (true)
            {
                const ssize_t got = ::read(fd, buffer, sizeof buffer);
                if (got < 0)
                {
                    if (errno == EINTR || errno == EAGAIN)
                    {
                        continue;
                    }
                    const int saved = errno;
                    ::close(fd);
                    return util::unexpected(
                      io_error(path, "cannot read: " + describe_errno(saved)));
                }
                if (got == 0)
                {
                    break;
                }
                // The file may grow while it is read: the limit holds for what is read too.
                if (content.size() + static_cast<std::size_t>(got) > limit)
                {
                    ::close(fd);
                    return util::unexpected(too_large(path, limit, content.size() + got));
                }
                content.append(buffer, static_cast<std::size_t>(got));
            }
            ::close(fd);
            return content;
        }

        auto host_name() -> std::string
        {
            char name[HOST_NAME_MAX + 1] = {};
            if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
            {
                return "localhost";
            }
            std::string host(name);
            for (char& c : host)
            {
                c = (c == '/' || c == '-') ? '_' : c;
            }
            return host;
        }

        auto split_target(const std::string& path) -> std::pair<std::string, std::string>
        {
            const std::filesystem::path target(path);
            std::string directory = target.parent_path().string();
            return { directory.empty() ? std::string(".") : directory, target.filename().string() };
        }

        // Removes the temporary files of earlier writers to the same target that died on this
        // host (killed mid-write): ".NAME.envcheck-HOST-PID.XXXXXX" whose PID no longer runs.
        void sweep_stale_temporaries(const std::string& directory, const std::string& name)
        {
            const std::string prefix = "." + name + ".envcheck-" + host_name() + "-";
            DIR* listing = ::opendir(directory.c_str());
            if (listing == nullptr)
            {
                return;
            }
            std::vector<std::string> stale;
            while (const dirent* entry = ::readdir(listing))
            {
                const std::string_view entry_name(entry->d_name);
                if (!entry_name.starts_with(prefix))
                {
                    continue;
                }
                const auto rest = entry_name.substr(prefix.size());
                const auto dot = rest.find('.');
                if (dot == std::string_view::npos || dot == 0 || dot > 9)
                {
                    continue;
                }
                pid_t pid = 0;
                bool digits = true;
                for (const char c : rest.substr(0, dot))
                {
                    digits = digits && c >= '0' && c <= '9';
                    pid = pid * 10 + (c - '0');
                }
                if (digits && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
                {
                    stale.emplace_back(entry_name);
                }
            }
            ::closedir(listing);
            for (const auto& file : stale)
            {
                std::string path = directory;
                path += '/';
                path += file;
                ::unlink(path.c_str());
            }
        }

        auto write_all(int fd, std::string_view content) -> bool
        {
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
                    if (errno == EAGAIN)
                    {
                        pollfd waiting{ fd, POLLOUT, 0 };
                        ::poll(&waiting, 1, -1);
                        continue;
                    }
                    return false;
                }
                data += written;
                left -= static_cast<std::size_t>(written);
            }
            return true;
        }

        // Writes into an existing non-regular target: one of our descriptors, a pipe, a device.
        auto write_through(const std::string& path, std::string_view content) -> util::Result<void>
        {
            const int own = descriptor_of(path);
            if (own >= 0)
            {
                if (!write_all(own, content))
                {
                    return util::unexpected(
                      io_error(path, "cannot write: " + describe_errno(errno)));
                }
                return {};
            }
            // O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of waiting forever.
            const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
            if (fd < 0)
            {
                const int saved = errno;
                return util::unexpected(
                  io_error(path, saved == ENXIO ? std::string("is a FIFO that no process reads")
                                                : "cannot open: " + describe_errno(saved)));
            }
            const int flags = ::fcntl(fd, F_GETFL);
            if (flags >= 0)
            {
                ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
            }
            const bool written = write_all(fd, content);
            const int saved = errno;
            ::close(fd);
            if (!written)
            {
                return util::unexpected(io_error(path, "cannot write: " + describe_errno(saved)));
            }
            return {};
        }
    }

    auto describe_errno(int error_number) -> std::string
    {
        return std::strerror(error_number);
    }

    auto is_stream_path(const std::string& path) -> bool
    {
        return descriptor_of(path) >= 0;
    }

    auto path_kind(const std::string& path) -> PathKind
    {
        if (is_stream_path(path))
        {
            return PathKind::other;
        }
        struct stat info
        {
        };
        if (::stat(path.c_str(), &info) != 0)
        {
            return errno == ENOENT || errno == ENOTDIR ? PathKind::absent : PathKind::unreadable;
        }
        if (S_ISREG(info.st_mode))
        {
            return PathKind::regular;
        }
        return S_ISDIR(info.st_mode) ? PathKind::directory : PathKind::other;
    }

    auto same_file(const std::string& a, const std::string& b) -> bool
    {
        struct stat first
        {
        };
        struct stat second
        {
        };
        return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 &&
               first.st_dev == second.st_dev && first.st_ino == second.st_ino;
    }

    auto read_file(const std::string& path, std::size_t limit,
                   std::chrono::milliseconds idle_timeout) -> util::Result<std::string>
    {
        const std::string name = display_name(path);
        if (path == "-")
        {
            return read_stream(STDIN_FILENO, name, limit, idle_timeout);
        }
        struct stat info
        {
        };
        if (::stat(path.c_str(), &info) != 0)
        {
            return util::unexpected(io_error(path, "cannot open: " + describe_errno(errno)));
        }
        if (S_ISDIR(info.st_mode))
        {
            return util::unexpected(io_error(path, "is a directory, not a file"));
        }
        if (S_ISREG(info.st_mode))
        {
            if (static_cast<std::uint64_t>(info.st_size) > limit)
            {
                return util::unexpected(
                  too_large(path, limit, static_cast<std::uint64_t>(info.st_size)));
            }
            return read_regular(path, limit);
        }
        if (!is_stream_path(path))
        {
            return util::unexpected(
              io_error(path, "is " + kind_name(info.st_mode) +
                               ", not a regular file; envcheck reads streams only as - (standard "
                               "input) or <(...)"));
        }
        // One of our own descriptors (/dev/fd/63 of <(...)): opening it gives its pipe.
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
        {
            return util::unexpected(io_error(path, "cannot open: " + describe_errno(errno)));
        }
        auto content = read_stream(fd, name, limit, idle_timeout);
        ::close(fd);
        return content;
    }

    auto temporary_prefix(const std::string& target) -> std::string
    {
        const auto [directory, name] = split_target(target);
        return (std::filesystem::path(directory) /
                ("." + name + ".envcheck-" + host_name() + "-" + std::to_string(::getpid()) + "."))
          .string();
    }

    auto AtomicFile::create(const std::string& path, unsigned mode) -> util::Result<AtomicFile>
    {
        const PathKind kind = path_kind(path);
        if (kind == PathKind::directory)
        {
            return util::unexpected(io_error(path, "is a directory, not a file"));
        }
        if (kind == PathKind::other)
        {
            return util::unexpected(io_error(path, "is not a regular file"));
        }
        const auto [directory, name] = split_target(path);
        sweep_stale_temporaries(directory, name);
        std::string temp = temporary_prefix(path) + "XXXXXX";
        const int fd = ::mkstemp(temp.data());
        if (fd < 0)
        {
            return util::unexpected(io_error(path, "cannot create a temporary file in " +
                                                     directory + ": " + describe_errno(errno)));
        }
        AtomicFile file(path, std::move(temp), fd);
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
            return util::unexpected(
              io_error(path, "cannot set the file mode: " + describe_errno(errno)));
        }
        return file;
    }

    AtomicFile::AtomicFile(std::string path, std::string temporary, int fd)
      : m_path(std::move(path))
      , m_temporary(std::move(temporary))
      , m_fd(fd)
    {
    }

    AtomicFile::AtomicFile(AtomicFile&& other) noexcept
      : m_path(std::move(other.m_path))
      , m_temporary(std::move(other.m_temporary))
      , m_fd(std::exchange(other.m_fd, -1))
      , m_write_error(std::exchange(other.m_write_error, 0))
    {
    }

    auto AtomicFile::operator=(AtomicFile&& other) noexcept -> AtomicFile&
    {
        if (this != &other)
        {
            discard();
            m_path = std::move(other.m_path);
            m_temporary = std::move(other.m_temporary);
            m_fd = std::exchange(other.m_fd, -1);
            m_write_error = std::exchange(other.m_write_error, 0);
        }
        return *this;
    }

    AtomicFile::~AtomicFile()
    {
        discard();
    }

    void AtomicFile::discard()
    {
        if (m_fd >= 0)
        {
            ::close(m_fd);
            m_fd = -1;
        }
        if (!m_temporary.empty())
        {
            ::unlink(m_temporary.c_str());
            m_temporary.clear();
        }
    }

    auto AtomicFile::write(std::string_view chunk) -> bool
    {
        if (m_fd < 0 || m_write_error != 0)
        {
            return false;
        }
        if (!write_all(m_fd, chunk))
        {
            m_write_error = errno;
            return false;
        }
        return true;
    }

    auto AtomicFile::write_error() const -> std::string
    {
        return m_write_error == 0 ? std::string() : describe_errno(m_write_error);
    }

    auto AtomicFile::commit(WriteMode write_mode) -> util::Result<void>
    {
        const std::string& path = m_path;
        const std::string temp = m_temporary;
        auto fail = [&](const std::string& what, int error_number)
        {
            discard();
            return util::unexpected(io_error(path, what + ": " + describe_errno(error_number)));
        };
        if (m_fd < 0)
        {
            return util::unexpected(io_error(path, "nothing to commit"));
        }
        if (m_write_error != 0)
        {
            return fail("cannot write", m_write_error);
        }
        if (::fsync(m_fd) != 0)
        {
            return fail("cannot flush to disk", errno);
        }
        const int closed = ::close(m_fd);
        m_fd = -1;
        if (closed != 0)
        {
            return fail("cannot close", errno);
        }
        if (write_mode == WriteMode::create_new)
        {
            // link(2) fails if the target exists: the check and the creation are one step.
            const int linked = ::link(temp.c_str(), path.c_str());
            const int saved = errno;
            if (linked != 0 && saved == EEXIST)
            {
                discard();
                return util::unexpected(
                  io_error(path, "exists: another process wrote it meanwhile; not replaced"));
            }
            if (linked != 0 && saved != EPERM && saved != EOPNOTSUPP && saved != ENOSYS)
            {
                return fail("cannot create", saved);
            }
            if (linked != 0)
            {
                // A file system without hard links: claim the name with O_EXCL, then rename
                // over our own claim (a reader may see it empty for a moment).
                const int claim =
                  ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                if (claim < 0)
                {
                    const int claim_error = errno;
                    discard();
                    return util::unexpected(io_error(
                      path, claim_error == EEXIST
                              ? std::string("exists: another process wrote it meanwhile; not "
                                            "replaced")
                              : "cannot create: " + describe_errno(claim_error)));
                }
                ::close(claim);
            }
            else
            {
                discard(); // linked: the temporary name goes, the file stays as `path`
            }
        }
        if (!m_temporary.empty() && ::rename(temp.c_str(), path.c_str()) != 0)
        {
            return fail("cannot replace", errno);
        }
        m_temporary.clear();
        // Make the rename itself durable.
        const auto [directory, name] = split_target(path);
        const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd >= 0)
        {
            ::fsync(dir_fd);
            ::close(dir_fd);
        }
        return {};
    }

    auto write_file_atomic(const std::string& path, std::string_view content, unsigned mode,
                           WriteMode write_mode) -> util::Result<void>
    {
        if (path_kind(path) == PathKind::other)
        {
            return write_through(path, content); // a stream is not clobbered by writing to it
        }
        auto file = AtomicFile::create(path, mode);
        if (!file)
        {
            return util::unexpected(file.error());
        }
        file->write(content); // a failed write is reported by commit, which removes the file
        return file->commit(write_mode);
    }

    auto FileLock::acquire(const std::string& path) -> util::Result<FileLock>
    {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
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
