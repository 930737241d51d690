#include "prefix/verify.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

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
            const struct timespec* record_mtime = nullptr; // pip: when RECORD was written
        };

        auto later(const struct timespec& a, const struct timespec& b) -> bool
        {
            return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
        }

        // The real path of `path` lies inside `root_real` (itself a real path).
        auto resolves_inside(const std::string& path, const std::string& root_real) -> bool
        {
            char* resolved = ::realpath(path.c_str(), nullptr);
            if (resolved == nullptr)
            {
                return false;
            }
            const std::string real(resolved);
            ::free(resolved);
            return real == root_real ||
                   (real.starts_with(root_real) && real.size() > root_real.size() &&
                    (root_real == "/" || real[root_real.size()] == '/'));
        }

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

        // pip: a content or size mismatch of a file not written after RECORD is RECORD's.
        auto mismatch(const Item& item, const struct stat& info, std::string detail)
          -> model::FileFinding
        {
            if (item.record_mtime != nullptr && !later(info.st_mtim, *item.record_mtime))
            {
                return finding(item, model::FileStatus::wrong_record_hash,
                               detail +
                                 ", but the file is not newer than RECORD: so since install, "
                                 "the wheel's RECORD is wrong (as in uv#11723), not a later "
                                 "change");
            }
            return finding(item, model::FileStatus::modified, std::move(detail));
        }

        // One file: its existence, its type, then size and content where known.
        auto check(const std::string& prefix, const std::string& prefix_real, const Item& item,
                   std::uint64_t& hashed) -> std::optional<model::FileFinding>
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
            if (S_ISLNK(info.st_mode) && item.package->manager == model::Manager::pip &&
                !resolves_inside(path, prefix_real))
            {
                return finding(item, model::FileStatus::modified,
                               "a symbolic link to outside the environment (not followed)");
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
                return mismatch(item, info,
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
                return mismatch(item, info, "sha256 differs");
            }
            return std::nullopt;
        }
    }

    namespace
    {
        namespace fs = std::filesystem;

        auto parent_of(std::string_view path) -> std::string_view
        {
            const auto slash = path.rfind('/');
            return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
        }

        auto installer_file(std::string_view path) -> bool
        {
            const auto name = path.substr(path.rfind('/') + 1);
            return parent_of(path).ends_with(".dist-info") &&
                   (name == "direct_url.json" || name == "INSTALLER" || name == "REQUESTED");
        }

        // Every file below `directory` (relative to the prefix), not descending into
        // __pycache__ or symbolic links.
        void list_all(const std::string& prefix, const std::string& directory,
                      std::vector<std::string>& out)
        {
            std::error_code error;
            for (fs::directory_iterator it(prefix + "/" + directory, error), end;
                 !error && it != end; it.increment(error))
            {
                const std::string name = it->path().filename().string();
                const std::string relative = directory + "/" + name;
                std::error_code type_error;
                if (it->is_directory(type_error) && !it->is_symlink(type_error))
                {
                    if (name != "__pycache__")
                    {
                        list_all(prefix, relative, out);
                    }
                }
                else
                {
                    out.push_back(relative);
                }
            }
        }

        // --untracked: the directories of every pip distribution below its site-packages (every
        // ancestor directory of a file its RECORD lists), each listed once and attributed to the
        // first distribution (by name) with files in it; a file there that no record lists is
        // untracked, and so is every file of a subdirectory that holds no listed file.
        auto untracked_files(const std::string& prefix,
                             const std::vector<model::PackageFiles>& packages)
          -> std::vector<model::FileFinding>
        {
            std::unordered_set<std::string_view> known;
            std::unordered_set<std::string_view> known_directories;
            for (const auto& package : packages)
            {
                for (const auto& file : package.files)
                {
                    known.insert(file.path);
                    for (auto dir = parent_of(file.path); !dir.empty(); dir = parent_of(dir))
                    {
                        if (!known_directories.insert(dir).second)
                        {
                            break;
                        }
                    }
                }
            }
            std::map<std::string, std::string> owners; // directory -> distribution
            for (const auto& package : packages)
            {
                if (package.manager != model::Manager::pip || package.record.empty())
                {
                    continue;
                }
                const auto site_packages = parent_of(parent_of(package.record));
                for (const auto& file : package.files)
                {
                    for (auto dir = parent_of(file.path);
                         dir.size() > site_packages.size() && dir.starts_with(site_packages);
                         dir = parent_of(dir))
                    {
                        auto [it, inserted] = owners.emplace(std::string(dir), package.package);
                        if (!inserted && package.package < it->second)
                        {
                            it->second = package.package;
                        }
                    }
                }
            }
            std::vector<model::FileFinding> findings;
            for (const auto& [directory, owner] : owners)
            {
                std::error_code error;
                for (fs::directory_iterator it(prefix + "/" + directory, error), end;
                     !error && it != end; it.increment(error))
                {
                    const std::string name = it->path().filename().string();
                    const std::string relative = directory + "/" + name;
                    std::error_code type_error;
                    std::vector<std::string> found;
                    if (it->is_directory(type_error) && !it->is_symlink(type_error))
                    {
                        if (name == "__pycache__" || known_directories.contains(relative))
                        {
                            continue; // its own walk, or compiled files
                        }
                        list_all(prefix, relative, found);
                    }
                    else if (!known.contains(relative) && !installer_file(relative))
                    {
                        found.push_back(relative);
                    }
                    for (auto& path : found)
                    {
                        findings.push_back(model::FileFinding{ owner, std::move(path),
                                                               model::FileStatus::untracked,
                                                               "listed by no RECORD" });
                    }
                }
            }
            return findings;
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
        return verify_files(prefix, packages, VerifyOptions{ threads, false });
    }

    auto verify_files(const std::string& prefix, const std::vector<model::PackageFiles>& packages,
                      const VerifyOptions& options) -> VerifyResult
    {
        const unsigned threads = options.threads;
        std::string prefix_real = prefix;
        if (char* resolved = ::realpath(prefix.c_str(), nullptr))
        {
            prefix_real = resolved;
            ::free(resolved);
        }
        // When each RECORD was written; a package whose RECORD is gone has its files judged
        // as conda's are.
        std::vector<std::optional<struct timespec>> record_times(packages.size());
        for (std::size_t i = 0; i < packages.size(); ++i)
        {
            struct stat info
            {
            };
            if (!packages[i].record.empty() &&
                ::stat((prefix + "/" + packages[i].record).c_str(), &info) == 0)
            {
                record_times[i] = info.st_mtim;
            }
        }
        std::vector<Item> items;
        for (std::size_t i = 0; i < packages.size(); ++i)
        {
            const auto& package = packages[i];
            for (const auto& file : package.files)
            {
                if (!skipped(file))
                {
                    items.push_back(
                      Item{ &package, &file, record_times[i] ? &*record_times[i] : nullptr });
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
                         results[i] = check(prefix, prefix_real, items[i], bytes);
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
        if (options.untracked)
        {
            auto untracked = untracked_files(prefix, packages);
            result.findings.insert(result.findings.end(),
                                   std::make_move_iterator(untracked.begin()),
                                   std::make_move_iterator(untracked.end()));
            result.summary.untracked = true;
        }
        std::sort(result.findings.begin(), result.findings.end(),
                  [](const auto& a, const auto& b)
                  { return a.package != b.package ? a.package < b.package : a.path < b.path; });
        return result;
    }
}
