#include "system/kernel_log.hpp"

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include "fsio/files.hpp"

namespace envcheck::system
{
    namespace
    {
        constexpr const char* kmsg = "/dev/kmsg";
        // Bounds on what is read: the kernel's ring buffer is a few MiB at most.
        constexpr std::size_t max_bytes = std::size_t{ 64 } << 20;
        constexpr std::size_t max_records = 1u << 20;

        // /dev/kmsg gives one record per read(); O_NONBLOCK ends the read at the newest record
        // (EAGAIN) instead of waiting for the next one.
        auto read_live(model::KernelLogFacts& log) -> void
        {
            const int fd = ::open(kmsg, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0)
            {
                log.error = fsio::describe_errno(errno);
                return;
            }
            log.readable = true;
            std::array<char, 8192> record{};
            std::string text;
            std::size_t bytes = 0;
            for (std::size_t records = 0; records < max_records && bytes < max_bytes; ++records)
            {
                const ssize_t got = ::read(fd, record.data(), record.size());
                if (got < 0 && errno == EINTR)
                {
                    continue;
                }
                if (got < 0 && errno == EPIPE)
                {
                    continue; // the record was overwritten while reading: go on with the next
                }
                if (got <= 0)
                {
                    if (got < 0 && errno != EAGAIN)
                    {
                        log.error = fsio::describe_errno(errno);
                    }
                    break;
                }
                bytes += static_cast<std::size_t>(got);
                text.assign(record.data(), static_cast<std::size_t>(got));
                if (text.find("NVRM: Xid") != std::string::npos)
                {
                    model::add_xid_events(text, log);
                }
            }
            ::close(fd);
        }
    }

    auto read_kernel_log(const SystemRoot& root) -> model::KernelLogFacts
    {
        model::KernelLogFacts log;
        if (root.live())
        {
            log.source = kmsg;
            read_live(log);
            return log;
        }
        log.source = root.display() + kmsg;
        const auto status = root.status(kmsg);
        if (!status || !status->regular)
        {
            log.error = status ? "not a regular file (a capture of the kernel log is expected)"
                               : "no such file";
            return log;
        }
        const auto text = root.read_text(kmsg, max_bytes);
        if (!text)
        {
            log.error = "cannot be read";
            return log;
        }
        log.readable = true;
        model::add_xid_events(*text, log);
        return log;
    }
}
