// Reading and writing files for the other adapters and the cli. Reads take regular files, and
// streams only where a stream is meant: standard input ("-", /dev/stdin) and inherited
// descriptors such as bash process substitution (/dev/fd/63). A named FIFO, a device or a socket
// given as a file is refused without blocking. Writes are atomic for regular files and go through
// (a plain write, no rename) for streams and devices such as /dev/stdout.
#ifndef ENVCHECK_FSIO_FILES_HPP
#define ENVCHECK_FSIO_FILES_HPP

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace envcheck::fsio
{
    inline constexpr std::size_t default_read_limit = std::size_t{ 1 } << 30; // 1 GiB
    // A stream (stdin, a pipe) that sends nothing for this long is given up on.
    inline constexpr std::chrono::milliseconds default_stream_idle_timeout{ 60'000 };

    // The whole content of `path` ("-" is standard input). A regular file larger than `limit` is
    // refused from its size before anything is read; a stream is read up to `limit` bytes, and
    // fails when it sends nothing for `idle_timeout`. Fails with ErrorKind::io naming the path
    // and the system's reason (ErrorKind::timeout for an idle stream).
    [[nodiscard]] auto read_file(const std::string& path, std::size_t limit = default_read_limit,
                                 std::chrono::milliseconds idle_timeout =
                                   default_stream_idle_timeout) -> util::Result<std::string>;

    // "-", /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: names of this
    // process's own descriptors, read or written as streams, never replaced.
    [[nodiscard]] auto is_stream_path(const std::string& path) -> bool;

    enum class PathKind
    {
        absent,
        regular,
        directory,
        other,      // a FIFO, device, socket, or one of is_stream_path's names
        unreadable, // stat fails for another reason than absence (a loop, no permission)
    };
    // What `path` is, following symlinks; never blocks and never throws.
    [[nodiscard]] auto path_kind(const std::string& path) -> PathKind;

    // Whether `a` and `b` name the same existing file (same device and inode).
    [[nodiscard]] auto same_file(const std::string& a, const std::string& b) -> bool;

    enum class WriteMode
    {
        replace,    // replace whatever regular file is there
        create_new, // fail with "exists" if a regular file appeared at `path`: the check and
                    // the creation are one step (link(2)), so one of two concurrent writers loses
    };

    // Writes `content` to `path`. A regular (or absent) target is replaced atomically: a
    // temporary file in the same directory is written, flushed to disk and renamed (or linked,
    // with create_new) over the target, so readers see the old or the new file, never a torn
    // one. Temporary files of writers to the same target that died on this host are removed
    // first. A non-regular target (/dev/stdout, a pipe, a device) is written through, never
    // renamed over. `mode` applies to a newly created file.
    [[nodiscard]] auto write_file_atomic(const std::string& path, std::string_view content,
                                         unsigned mode = 0644,
                                         WriteMode write_mode = WriteMode::replace)
      -> util::Result<void>;

    // A file written in pieces and then put in place atomically, as write_file_atomic does: the
    // pieces go to a temporary file beside `path`; commit() flushes it and renames (or links,
    // with create_new) it over `path`; a writer destroyed without commit() removes it, leaving
    // `path` as it was. For bodies too large to hold in memory twice (a download going to a cache).
    class AtomicFile
    {
    public:
        // Fails for a directory or a non-regular target (streams take write_file_atomic).
        [[nodiscard]] static auto create(const std::string& path, unsigned mode = 0644)
          -> util::Result<AtomicFile>;
        AtomicFile(AtomicFile&& other) noexcept;
        auto operator=(AtomicFile&& other) noexcept -> AtomicFile&;
        AtomicFile(const AtomicFile&) = delete;
        auto operator=(const AtomicFile&) -> AtomicFile& = delete;
        ~AtomicFile();

        // False once a write failed; commit() then reports why.
        auto write(std::string_view chunk) -> bool;
        // Why a write failed ("No space left on device"), or "" while none has.
        [[nodiscard]] auto write_error() const -> std::string;
        [[nodiscard]] auto commit(WriteMode write_mode = WriteMode::replace) -> util::Result<void>;

    private:
        AtomicFile(std::string path, std::string temporary, int fd);
        void discard();
        std::string m_path;
        std::string m_temporary; // empty once renamed or removed
        int m_fd = -1;
        int m_write_error = 0;
    };

    // The prefix of the temporary files write_file_atomic makes for `target`, in its directory:
    // ".NAME.envcheck-HOST-PID." (exposed for tests of the sweep).
    [[nodiscard]] auto temporary_prefix(const std::string& target) -> std::string;

    // An exclusive advisory lock (flock) held for the object's lifetime; used by caches that
    // parallel CI jobs share.
    class FileLock
    {
    public:
        [[nodiscard]] static auto acquire(const std::string& path) -> util::Result<FileLock>;
        FileLock(FileLock&& other) noexcept;
        auto operator=(FileLock&& other) noexcept -> FileLock&;
        FileLock(const FileLock&) = delete;
        auto operator=(const FileLock&) -> FileLock& = delete;
        ~FileLock();

    private:
        explicit FileLock(int fd)
          : m_fd(fd)
        {
        }
        int m_fd = -1;
    };

    [[nodiscard]] auto describe_errno(int error_number) -> std::string;
}

#endif
