#include "prefix/verify.hpp"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include "prefix/parallel.hpp"
#include "util/sha256.hpp"

namespace envcheck::prefix
{
    namespace
    {
        constexpr std::size_t read_block = std::size_t{ 1 } << 20;

        struct Item
        {
            const model::PackageFiles* package = nullptr;
            const model::InstalledFile* file = nullptr;
        };

        auto skipped(const model::InstalledFile& file) -> bool
        {
            return file.type == model::PathType::pyc_file || file.path.ends_with(".pyc") ||
                   file.path.ends_with(".pyo");
        }

        auto finding(const Item& item, model::FileStatus status, std::string detail)
          -> model::FileFinding
        {
            return model::FileFinding{ item.package->package, item.file->path, status,
                                       std::move(detail) };
        }

        // One file: its existence, its type, then size and content where known.
        auto check(const std::string& prefix, const Item& item, std::uint64_t& hashed)
          -> std::optional<model::FileFinding>
        {
            const auto& file = *item.file;
            const std::string path = prefix + "/" + file.path;
            struct stat info
            {
            };
            if (::lstat(path.c_str(), &info) != 0)
            {
                return finding(item, model::FileStatus::missing, "not in the prefix");
            }
            switch (file.type)
            {
                case model::PathType::softlink:
                    return std::nullopt; // its target belongs to another entry
                case model::PathType::directory:
                    return S_ISDIR(info.st_mode)
                             ? std::nullopt
                             : std::optional(finding(item, model::FileStatus::modified,
                                                     "expected a directory"));
                case model::PathType::hardlink:
                    break;
                case model::PathType::pyc_file:
                case model::PathType::other:
                    return std::nullopt; // entry points are written at install time
            }
            if (S_ISLNK(info.st_mode) && ::stat(path.c_str(), &info) != 0)
            {
                return finding(item, model::FileStatus::missing, "a dangling symbolic link");
            }
            if (!S_ISREG(info.st_mode))
            {
                return finding(item, model::FileStatus::modified, "no longer a regular file");
            }
            const auto size = static_cast<std::uint64_t>(info.st_size);
            if (file.size && *file.size != size)
            {
                return finding(item, model::FileStatus::modified,
                               "size " + std::to_string(size) + " bytes, expected " +
                                 std::to_string(*file.size));
            }
            if (file.sha256.empty())
            {
                return std::nullopt;
            }
            std::uint64_t read = 0;
            const auto digest = sha256_of_file(path, &read);
            hashed += read;
            if (!digest)
            {
                return finding(item, model::FileStatus::modified, "cannot be read");
            }
            if (*digest != file.sha256)
            {
                return finding(item, model::FileStatus::modified, "sha256 differs");
            }
            return std::nullopt;
        }
    }

    auto sha256_of_file(const std::string& path, std::uint64_t* bytes_read)
      -> std::optional<std::string>
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
        {
            return std::nullopt;
        }
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        thread_local std::unique_ptr<char[]> buffer(new char[read_block]);
        util::Sha256 hasher;
        std::uint64_t total = 0;
        while (true)
        {
            const ssize_t got = ::read(fd, buffer.get(), read_block);
            if (got < 0)
            {
                if (errno == EINTR)
                {
                    continue;
                }
                ::close(fd);
                return std::nullopt;
            }
            if (got == 0)
            {
                break;
            }
            hasher.update(buffer.get(), static_cast<std::size_t>(got));
            total += static_cast<std::uint64_t>(got);
        }
        ::close(fd);
        if (bytes_read != nullptr)
        {
            *bytes_read = total;
        }
        return util::Sha256::hex(hasher.finish());
    }

    auto verify_files(const std::string& prefix, const std::vector<model::PackageFiles>& packages,
                      unsigned threads) -> VerifyResult
    {
        std::vector<Item> items;
        for (const auto& package : packages)
        {
            for (const auto& file : package.files)
            {
                if (!skipped(file))
                {
                    items.push_back(Item{ &package, &file });
                }
            }
        }
        // Largest first, so that the last file a thread picks up is a small one.
        std::stable_sort(items.begin(), items.end(),
                         [](const Item& a, const Item& b)
                         { return a.file->size.value_or(0) > b.file->size.value_or(0); });
        std::vector<std::optional<model::FileFinding>> results(items.size());
        std::atomic<std::uint64_t> hashed{ 0 };
        parallel_for(items.size(), threads,
                     [&](std::size_t i)
                     {
                         std::uint64_t bytes = 0;
                         results[i] = check(prefix, items[i], bytes);
                         hashed.fetch_add(bytes, std::memory_order_relaxed);
                     });
        VerifyResult result;
        result.summary.files_checked = items.size();
        result.summary.bytes_hashed = hashed.load();
        for (auto& found : results)
        {
            if (found)
            {
                result.findings.push_back(std::move(*found));
            }
        }
        std::sort(result.findings.begin(), result.findings.end(),
                  [](const auto& a, const auto& b)
                  { return a.package != b.package ? a.package < b.package : a.path < b.path; });
        return result;
    }
}
