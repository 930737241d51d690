// Reading and writing files for the other adapters and the cli. Reads work on regular files,
// stdin ("-") and pipes such as bash process substitution (/dev/fd/63); writes are atomic.
#ifndef ENVCHECK_FSIO_FILES_HPP
#define ENVCHECK_FSIO_FILES_HPP

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace envcheck::fsio
{
    inline constexpr std::size_t default_read_limit = std::size_t{ 1 } << 30; // 1 GiB

    // The whole content of `path` ("-" is standard input). Fails with ErrorKind::io naming the
    // path and the system's reason, or when the content exceeds `limit` bytes.
    [[nodiscard]] auto read_file(const std::string& path, std::size_t limit = default_read_limit)
      -> util::Result<std::string>;

    // Replaces `path` with `content` atomically: a temporary file in the same directory is
    // written, flushed to disk and renamed over the target, so readers see the old or the new
    // file, never a torn one. `mode` applies to a newly created file.
    [[nodiscard]] auto write_file_atomic(const std::string& path, std::string_view content,
                                         unsigned mode = 0644) -> util::Result<void>;

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
