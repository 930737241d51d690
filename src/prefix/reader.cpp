#include "prefix/reader.hpp"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>
#include <utility>

#include "formats/conda_meta.hpp"
#include "formats/dist_info.hpp"
#include "fsio/files.hpp"
#include "model/lock.hpp"
#include "prefix/parallel.hpp"
#include "util/strings.hpp"

namespace envcheck::prefix
{
    namespace
    {
        namespace fs = std::filesystem;

        constexpr std::size_t record_size_limit = std::size_t{ 256 } << 20; // 256 MiB
        constexpr std::size_t metadata_size_limit = std::size_t{ 16 } << 20;

        // conda-meta, open: its records are opened relative to it (openat), which spares the
        // kernel a walk of the whole path per record.
        struct CloseDirectory
        {
            void operator()(DIR* directory) const { ::closedir(directory); }
        };
        using Directory = std::unique_ptr<DIR, CloseDirectory>;

        // The names of conda-meta/*.json, sorted; AppleDouble "._x.json" files (macOS copies)
        // are not records.
        auto record_names(DIR* conda_meta) -> std::vector<std::string>
        {
            std::vector<std::string> names;
            while (const dirent* entry = ::readdir(conda_meta))
            {
                const std::string_view name = entry->d_name;
                if (!name.ends_with(".json") || name.starts_with("._"))
                {
                    continue;
                }
                struct stat info
                {
                };
                const bool regular =
                  entry->d_type == DT_REG ||
                  ((entry->d_type == DT_UNKNOWN || entry->d_type == DT_LNK) &&
                   ::fstatat(::dirfd(conda_meta), entry->d_name, &info, 0) == 0 &&
                   S_ISREG(info.st_mode));
                if (regular)
                {
                    names.emplace_back(name);
                }
            }
            std::sort(names.begin(), names.end());
            return names;
        }

        // lib/pythonX.Y/site-packages (unix: conda prefixes and venvs) and Lib/site-packages
        // (Windows layouts), relative to the prefix.
        auto site_packages_dirs(const fs::path& root, std::vector<util::Error>& problems)
          -> std::vector<std::string>
        {
            std::vector<std::string> dirs;
            std::error_code error;
            for (fs::directory_iterator it(root / "lib", error), end; !error && it != end;
                 it.increment(error))
            {
                const std::string name = it->path().filename().string();
                // Non-throwing: a symlink loop or a directory without permission is a problem
                // of the prefix (its packages cannot be listed), not an internal error.
                std::error_code unreadable;
                if (name.starts_with("python") &&
                    fs::is_directory(it->path() / "site-packages", unreadable))
                {
                    dirs.push_back("lib/" + name + "/site-packages");
                }
                else if (name.starts_with("python") && unreadable)
                {
                    problems.push_back(util::make_error(
                      util::ErrorKind::io, "cannot read: " + unreadable.message(),
                      util::SourceLocation{ "lib/" + name + "/site-packages", 0, 0 }));
                }
            }
            if (fs::is_directory(root / "Lib" / "site-packages", error))
            {
                dirs.emplace_back("Lib/site-packages");
            }
            std::sort(dirs.begin(), dirs.end());
            return dirs;
        }

        struct DistCandidate
        {
            std::string relative;  // "lib/python3.11/site-packages/six-1.16.0.dist-info"
            std::string directory; // "six-1.16.0.dist-info"
            std::string site_packages;
        };

        // The site-packages directories and, for each, its dist-info and egg-info directories'
        // names, sorted. Listed beside the conda records' reading (issue 19).
        struct SiteListing
        {
            std::vector<std::string> site_packages;
            std::vector<std::vector<std::string>> distributions; // per site-packages
            std::vector<util::Error> problems;
        };

        auto list_site_packages(const fs::path& root) -> SiteListing
        {
            SiteListing listing;
            listing.site_packages = site_packages_dirs(root, listing.problems);
            for (const auto& site_packages : listing.site_packages)
            {
                auto& names = listing.distributions.emplace_back();
                const Directory directory(::opendir((root / site_packages).c_str()));
                while (const dirent* entry = directory ? ::readdir(directory.get()) : nullptr)
                {
                    const std::string_view name = entry->d_name;
                    if (name.ends_with(".dist-info") || name.ends_with(".egg-info"))
                    {
                        names.emplace_back(name);
                    }
                }
                std::sort(names.begin(), names.end());
            }
            return listing;
        }

        auto read_text(const fs::path& path) -> std::optional<std::string>
        {
            auto text = fsio::read_file(path.string(), metadata_size_limit);
            return text ? std::optional<std::string>(std::move(*text)) : std::nullopt;
        }

        // "lib/python3.11/site-packages" + "../../../bin/tool" -> "bin/tool", resolved by name
        // alone; nullopt when it is absolute or climbs out of the prefix.
        auto inside_prefix(std::string_view site_packages, std::string_view path)
          -> std::optional<std::string>
        {
            if (path.starts_with('/'))
            {
                return std::nullopt;
            }
            std::vector<std::string_view> parts;
            for (const auto part : util::split(site_packages, '/'))
            {
                parts.push_back(part);
            }
            for (const auto part : util::split(path, '/'))
            {
                if (part.empty() || part == ".")
                {
                    continue;
                }
                if (part == "..")
                {
                    if (parts.empty())
                    {
                        return std::nullopt;
                    }
                    parts.pop_back();
                    continue;
                }
                parts.push_back(part);
            }
            if (parts.empty())
            {
                return std::nullopt;
            }
            std::string joined;
            for (const auto part : parts)
            {
                joined += joined.empty() ? "" : "/";
                joined += part;
            }
            return joined;
        }

        struct Distribution
        {
            model::Package package;
            std::optional<model::PackageFiles> files; // --deep: its RECORD, relative to prefix
            std::vector<util::Error> record_problems; // paths outside the prefix, no RECORD
        };

        // A dist-info RECORD as the files check --deep verifies. A RECORD that cannot be parsed
        // is a problem and the distribution's files are not verified; a line naming a path
        // outside the prefix is a problem and that path is never read.
        void read_record(const fs::path& root, const DistCandidate& candidate,
                         std::string_view site_packages, Distribution& distribution)
        {
            const std::string record_name = candidate.relative + "/RECORD";
            auto text = fsio::read_file((root / record_name).string(), record_size_limit);
            if (!text)
            {
                util::Error error = text.error();
                error.where.file = record_name;
                error.message =
                  "no readable RECORD, its files cannot be verified: " + error.message;
                error.hint = "reinstall the distribution (pip install --force-reinstall --no-deps "
                             "NAME)";
                distribution.record_problems.push_back(std::move(error));
                return;
            }
            auto entries = formats::parse_record(*text, record_name);
            if (!entries)
            {
                distribution.record_problems.push_back(entries.error());
                return;
            }
            model::PackageFiles files;
            files.package = distribution.package.name;
            files.manager = model::Manager::pip;
            files.record = record_name;
            files.files.reserve(entries->size());
            for (auto& entry : *entries)
            {
                auto path = inside_prefix(site_packages, entry.path);
                if (!path)
                {
                    distribution.record_problems.push_back(
                      util::make_error(util::ErrorKind::parse,
                                       "RECORD names a path outside the environment, not read: '" +
                                         entry.path.substr(0, 200) + "'",
                                       util::SourceLocation{ record_name, entry.line, 1 },
                                       "reinstall the distribution from a trusted wheel"));
                    continue;
                }
                // What the installer writes about the install, not the wheel's files: it may
                // rewrite them (pip, uv) and they are no change to the distribution.
                const std::string_view name = std::string_view(*path).substr(path->rfind('/') + 1);
                if (path->starts_with(candidate.relative + "/") &&
                    (name == "direct_url.json" || name == "INSTALLER" || name == "REQUESTED"))
                {
                    continue;
                }
                model::InstalledFile file;
                file.path = std::move(*path);
                file.sha256 = std::move(entry.sha256);
                file.size = entry.size;
                files.files.push_back(std::move(file));
            }
            distribution.files = std::move(files);
        }

        // One distribution no conda record owns.
        auto read_distribution(const fs::path& root, const DistCandidate& candidate)
          -> util::Result<model::Package>
        {
            const fs::path dir = root / candidate.relative;
            std::error_code ignored; // a loop or no permission: read_file below names the reason
            const bool is_dir = fs::is_directory(dir, ignored);
            const bool egg_info = candidate.directory.ends_with(".egg-info");
            const fs::path metadata_path =
              !is_dir ? dir : dir / (egg_info ? "PKG-INFO" : "METADATA");
            const std::string metadata_name =
              !is_dir ? candidate.relative
                      : candidate.relative + (egg_info ? "/PKG-INFO" : "/METADATA");
            auto text = fsio::read_file(metadata_path.string(), metadata_size_limit);
            if (!text)
            {
                util::Error error = text.error();
                error.where.file = metadata_name;
                return util::unexpected(std::move(error));
            }
            auto metadata = formats::parse_core_metadata(*text, metadata_name);
            if (!metadata)
            {
                return util::unexpected(metadata.error());
            }
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = std::move(metadata->name);
            package.version = std::move(metadata->version);
            package.depends = util::TextList(metadata->requires_dist);
            package.source = candidate.relative;
            if (is_dir)
            {
                if (const auto installer = read_text(dir / "INSTALLER"))
                {
                    package.installer = formats::parse_installer(*installer);
                }
                if (const auto direct_url = read_text(dir / "direct_url.json"))
                {
                    auto parsed = formats::parse_direct_url(*direct_url, candidate.relative +
                                                                           "/direct_url.json");
                    if (!parsed)
                    {
                        return util::unexpected(parsed.error());
                    }
                    package.direct_url = std::move(*parsed);
                }
                package.requested = fs::exists(dir / "REQUESTED", ignored);
            }
            return package;
        }

        // A record's bytes. Small records (most of them) are read with one read() into a buffer
        // each worker thread reuses; large ones (a PyTorch record's `files` list is megabytes)
        // are mapped from the page cache, where copying would cost as much as scanning. Mapping
        // every record made the munmaps' TLB shootdowns dominate once two threads read
        // thousands of small records (tests/bench/RESULTS.md, "check": scaling).
        class RecordText
        {
        public:
            static constexpr std::size_t read_below = std::size_t{ 256 } << 10;

            static auto open(int directory, const std::string& name, const std::string& display)
              -> util::Result<RecordText>
            {
                const int fd = ::openat(directory, name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                if (fd < 0)
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::io, "cannot open: " + fsio::describe_errno(errno),
                      util::SourceLocation{ display, 0, 0 }));
                }
                auto failed = [&](const std::string& what)
                {
                    const int saved = errno;
                    ::close(fd);
                    return util::unexpected(
                      util::make_error(util::ErrorKind::io, what + fsio::describe_errno(saved),
                                       util::SourceLocation{ display, 0, 0 }));
                };
                // Small records (nearly all) in one read, without asking their size first: a
                // read that does not fill the buffer has the whole file (a regular file's short
                // read is its end).
                // Left uninitialized: only the pages records are read into are touched (zeroing
                // all of it was 64 page faults per thread).
                thread_local const auto buffer = std::make_unique_for_overwrite<char[]>(read_below);
                std::size_t got = 0;
                while (got < read_below)
                {
                    const ssize_t n = ::read(fd, buffer.get() + got, read_below - got);
                    if (n < 0 && errno == EINTR)
                    {
                        continue;
                    }
                    if (n < 0)
                    {
                        return failed("cannot read: ");
                    }
                    got += static_cast<std::size_t>(n);
                    if (n == 0 || got < read_below)
                    {
                        break;
                    }
                }
                RecordText file;
                if (got < read_below)
                {
                    ::close(fd);
                    file.m_size = got;
                    file.m_data = buffer.get();
                    return file;
                }
                struct stat info
                {
                };
                if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < 0 ||
                    static_cast<std::uint64_t>(info.st_size) > record_size_limit)
                {
                    ::close(fd);
                    return util::unexpected(util::make_error(
                      util::ErrorKind::io, "cannot read: not a regular file or too large",
                      util::SourceLocation{ display, 0, 0 }));
                }
                file.m_size = static_cast<std::size_t>(info.st_size);
                void* mapped = ::mmap(nullptr, file.m_size, PROT_READ, MAP_PRIVATE, fd, 0);
                if (mapped == MAP_FAILED)
                {
                    return failed("cannot map: ");
                }
                ::madvise(mapped, file.m_size, MADV_WILLNEED);
                ::close(fd);
                file.m_data = static_cast<const char*>(mapped);
                file.m_mapped = true;
                return file;
            }

            RecordText() = default;
            RecordText(RecordText&& other) noexcept
              : m_data(std::exchange(other.m_data, nullptr))
              , m_size(std::exchange(other.m_size, 0))
              , m_mapped(std::exchange(other.m_mapped, false))
            {
            }
            auto operator=(RecordText&&) -> RecordText& = delete;
            RecordText(const RecordText&) = delete;
            auto operator=(const RecordText&) -> RecordText& = delete;
            ~RecordText()
            {
                if (m_mapped)
                {
                    ::munmap(const_cast<char*>(m_data), m_size);
                }
            }

            // Valid until this thread opens the next record.
            [[nodiscard]] auto text() const -> std::string_view
            {
                return { m_data == nullptr ? "" : m_data, m_size };
            }

        private:
            const char* m_data = nullptr;
            std::size_t m_size = 0;
            bool m_mapped = false;
        };

        auto parse_record(int conda_meta, const std::string& file_name, const ReadOptions& options)
          -> util::Result<formats::CondaMetaRecord>
        {
            std::string name = "conda-meta/" + file_name;
            const auto file = RecordText::open(conda_meta, file_name, name);
            if (!file)
            {
                return util::unexpected(file.error());
            }
            auto record = formats::parse_conda_meta(file->text(), name,
                                                    formats::CondaMetaOptions{ options.files });
            if (record)
            {
                record->package.source = std::move(name);
            }
            return record;
        }

        // The conda records, read in parallel; returns the Python distributions they own.
        // `beside` runs on one of the threads while the others read.
        auto read_conda_records(const fs::path& root, const ReadOptions& options,
                                model::InstalledEnvironment& environment,
                                const std::function<void()>& beside)
          -> std::unordered_set<std::string>
        {
            std::unordered_set<std::string> owned_anchors;
            const Directory conda_meta(::opendir((root / "conda-meta").c_str()));
            const auto names =
              conda_meta ? record_names(conda_meta.get()) : std::vector<std::string>{};
            const int directory = conda_meta ? ::dirfd(conda_meta.get()) : -1;
            // The packages are constructed here, in place, and each thread moves the record it
            // reads into its own slot (issue 19): a table of whole records allocated per record
            // and moved into the list afterwards cost 600 bytes of fresh memory per record and
            // a serial pass over all of them at the end. The rest of a record (few have any)
            // waits beside its package until the records are joined in name order.
            struct RecordRest
            {
                std::vector<std::string> python_anchors;
                std::vector<std::string> constrains;
                std::vector<model::InstalledFile> paths;
                std::optional<util::Error> error;
            };
            auto& packages = environment.packages;
            packages.resize(names.size());
            std::vector<std::unique_ptr<RecordRest>> rests(names.size());
            const auto read_one = [&](std::size_t i)
            {
                auto record = parse_record(directory, names[i], options);
                if (!record)
                {
                    rests[i] =
                      std::make_unique<RecordRest>(RecordRest{ {}, {}, {}, record.error() });
                    return;
                }
                packages[i] = std::move(record->package);
                if (!record->python_anchors.empty() || !record->constrains.empty() || options.files)
                {
                    rests[i] = std::make_unique<RecordRest>(
                      RecordRest{ std::move(record->python_anchors), std::move(record->constrains),
                                  std::move(record->paths), std::nullopt });
                }
            };
            // A second thread costs more than it saves below a few hundred records (100: 5.0
            // ms with one, 5.6 ms with two; 400: the same; bench_check_scaling).
            const unsigned threads = names.size() < 256 ? 1U : options.threads;
            for (auto& failure : parallel_for(names.size() + 1, threads,
                                              [&](std::size_t item)
                                              {
                                                  if (item == 0)
                                                  {
                                                      beside();
                                                      return;
                                                  }
                                                  read_one(item - 1);
                                              }))
            {
                if (failure.index == 0)
                {
                    throw std::runtime_error(failure.what); // not a record's: as if run here
                }
                const std::size_t i = failure.index - 1;
                rests[i] = std::make_unique<RecordRest>(RecordRest{
                  {},
                  {},
                  {},
                  util::make_error(util::ErrorKind::io, "cannot read: " + failure.what,
                                   util::SourceLocation{ "conda-meta/" + names[i], 0, 0 }) });
            }
            std::size_t kept = 0;
            for (std::size_t i = 0; i < packages.size(); ++i)
            {
                if (auto& rest = rests[i])
                {
                    if (rest->error)
                    {
                        environment.problems.push_back(std::move(*rest->error));
                        continue;
                    }
                    for (auto& anchor : rest->python_anchors)
                    {
                        owned_anchors.insert(std::move(anchor));
                    }
                    if (options.files)
                    {
                        environment.files.push_back(model::PackageFiles{
                          packages[i].name, std::move(rest->paths), model::Manager::conda, {} });
                    }
                    if (!rest->constrains.empty())
                    {
                        environment.constrains.emplace_back(packages[i].name,
                                                            std::move(rest->constrains));
                    }
                }
                if (packages[i].name == "python")
                {
                    environment.python_version = packages[i].version;
                }
                if (kept != i)
                {
                    packages[kept] = std::move(packages[i]);
                }
                ++kept;
            }
            packages.resize(kept);
            return owned_anchors;
        }

        // The Python distributions: those conda installed are known by their directory name;
        // the others are read, in parallel.
        void read_python_distributions(const fs::path& root, const ReadOptions& options,
                                       const std::unordered_set<std::string>& owned_anchors,
                                       SiteListing listing,
                                       model::InstalledEnvironment& environment)
        {
            environment.site_packages = std::move(listing.site_packages);
            environment.problems.insert(environment.problems.end(), listing.problems.begin(),
                                        listing.problems.end());
            std::vector<DistCandidate> candidates;
            // Sized once: grown by doubling, the 1,667 owned of 5,000 records were moved 11
            // times (issue 19: this loop is serial).
            environment.conda_owned_distributions.reserve(owned_anchors.size());
            for (std::size_t site = 0; site < environment.site_packages.size(); ++site)
            {
                const std::string& site_packages = environment.site_packages[site];
                for (auto& name : listing.distributions[site])
                {
                    std::string relative = site_packages;
                    relative += '/';
                    relative += name;
                    if (owned_anchors.contains(relative))
                    {
                        if (auto parsed = formats::parse_dist_directory_name(name))
                        {
                            auto& owned = environment.conda_owned_distributions.emplace_back();
                            owned.manager = model::Manager::pip;
                            owned.name = std::move(parsed->name);
                            owned.version = std::move(parsed->version);
                            owned.installer = "conda";
                            owned.source = std::move(relative);
                        }
                        continue;
                    }
                    candidates.push_back(
                      DistCandidate{ std::move(relative), std::move(name), site_packages });
                }
            }
            std::vector<std::optional<util::Result<Distribution>>> distributions(candidates.size());
            const auto read_one = [&](std::size_t i)
            {
                auto package = read_distribution(root, candidates[i]);
                if (!package)
                {
                    distributions[i].emplace(util::unexpected(package.error()));
                    return;
                }
                Distribution distribution{ std::move(*package), std::nullopt, {} };
                if (options.files && candidates[i].directory.ends_with(".dist-info"))
                {
                    read_record(root, candidates[i], candidates[i].site_packages, distribution);
                }
                distributions[i].emplace(std::move(distribution));
            };
            for (auto& failure : parallel_for(candidates.size(), options.threads, read_one))
            {
                distributions[failure.index].emplace(util::unexpected(util::make_error(
                  util::ErrorKind::io, "cannot read: " + failure.what,
                  util::SourceLocation{ candidates[failure.index].relative, 0, 0 })));
            }
            for (auto& distribution : distributions)
            {
                if (!*distribution)
                {
                    environment.problems.push_back(distribution->error());
                    continue;
                }
                auto& read = distribution->value();
                environment.problems.insert(environment.problems.end(),
                                            read.record_problems.begin(),
                                            read.record_problems.end());
                if (read.files)
                {
                    environment.files.push_back(std::move(*read.files));
                }
                environment.packages.push_back(std::move(read.package));
            }
        }
    }

    auto pyvenv_python_version(std::string_view pyvenv_cfg) -> std::optional<std::string>
    {
        std::optional<std::string> version;
        for (const auto line : util::split_lines(pyvenv_cfg))
        {
            const auto equals = line.find('=');
            if (equals == std::string_view::npos)
            {
                continue;
            }
            const auto key = util::trim(line.substr(0, equals));
            const auto value = util::trim(line.substr(equals + 1));
            // "version_info" (uv: 3.12.1.final.0 -> 3.12.1) wins over "version" only when the
            // latter is absent.
            if (key == "version" && !value.empty())
            {
                version = std::string(value);
            }
            else if (key == "version_info" && !value.empty() && !version)
            {
                const auto parts = util::split(value, '.');
                std::string joined;
                for (std::size_t i = 0; i < parts.size() && i < 3; ++i)
                {
                    joined += (i == 0 ? "" : ".") + std::string(parts[i]);
                }
                version = joined;
            }
        }
        return version;
    }

    auto read_prefix(const std::string& prefix, const ReadOptions& options)
      -> util::Result<model::InstalledEnvironment>
    {
        const fs::path root(prefix);
        std::error_code error;
        if (!fs::exists(root, error))
        {
            return util::unexpected(util::make_error(util::ErrorKind::io,
                                                     "no such environment directory",
                                                     util::SourceLocation{ prefix, 0, 0 }));
        }
        if (!fs::is_directory(root, error))
        {
            return util::unexpected(util::make_error(util::ErrorKind::io, "is not a directory",
                                                     util::SourceLocation{ prefix, 0, 0 }));
        }
        model::InstalledEnvironment environment;
        environment.prefix = prefix;
        const bool conda = fs::is_directory(root / "conda-meta", error);
        if (!conda && !fs::is_regular_file(root / "pyvenv.cfg", error))
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "not a conda environment or a Python venv: it has neither conda-meta/ nor pyvenv.cfg",
              util::SourceLocation{ prefix, 0, 0 },
              "pass the environment's root directory (the one holding conda-meta/)"));
        }
        environment.kind = conda ? model::PrefixKind::conda : model::PrefixKind::venv;

        SiteListing listing;
        const auto list = [&] { listing = list_site_packages(root); };
        const auto owned_anchors = conda ? read_conda_records(root, options, environment, list)
                                         : std::unordered_set<std::string>{};
        if (!conda)
        {
            list();
            if (const auto cfg = read_text(root / "pyvenv.cfg"))
            {
                environment.python_version = pyvenv_python_version(*cfg);
            }
        }
        read_python_distributions(root, options, owned_anchors, std::move(listing), environment);
        model::sort_packages(environment.packages);
        return environment;
    }
}
