#include "formats/conda_lock.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "formats/explicit.hpp"
#include "formats/lock_yaml.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using lock_yaml::scalar;

        auto platforms_of(const YAML::Node& root) -> std::vector<std::string>
        {
            std::vector<std::string> platforms;
            const YAML::Node metadata = lock_yaml::child(root, "metadata");
            if (metadata.IsMap() && lock_yaml::child(metadata, "platforms").IsSequence())
            {
                for (const auto& platform : lock_yaml::child(metadata, "platforms"))
                {
                    if (platform.IsScalar())
                    {
                        platforms.push_back(platform.Scalar());
                    }
                }
            }
            return platforms;
        }

        auto read_entry(const YAML::Node& entry, std::string_view file_name)
          -> util::Result<model::Package>
        {
            const auto where = lock_yaml::location(file_name, entry);
            const std::string name = scalar(entry, "name");
            for (const char* field : { "name", "version", "manager", "url" })
            {
                if (scalar(entry, field).empty())
                {
                    return util::unexpected(lock_yaml::error(
                      util::ErrorKind::parse,
                      "package " + (name.empty() ? std::string("entry") : "'" + name + "'") +
                        " has no '" + field + "'",
                      where,
                      "CEP 37 requires name, version, manager, platform, url and hash for every "
                      "package"));
                }
            }
            const auto manager = model::parse_manager(scalar(entry, "manager"));
            if (!manager)
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::parse,
                                   "package '" + name + "': unknown manager '" +
                                     scalar(entry, "manager") + "' (conda or pip)",
                                   where));
            }
            model::Package package;
            const std::string url = scalar(entry, "url");
            if (*manager == model::Manager::conda)
            {
                if (auto from_url = package_from_url(url))
                {
                    package = std::move(*from_url);
                }
                else
                {
                    package.url = strip_credentials(url);
                }
                if (const std::string build = scalar(entry, "build"); !build.empty())
                {
                    package.build = build;
                }
            }
            else
            {
                package.url = strip_credentials(url);
            }
            package.manager = *manager;
            package.name = name;
            package.version = scalar(entry, "version");
            const YAML::Node hash = lock_yaml::child(entry, "hash");
            package.md5 = util::to_lower(scalar(hash, "md5"));
            package.sha256 = util::to_lower(scalar(hash, "sha256"));
            if (*manager == model::Manager::conda && package.md5.empty() && package.sha256.empty())
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::parse, "package '" + name + "' has no hash",
                                   where, "CEP 37 requires an md5 for every conda package"));
            }
            package.source = std::string(file_name) + ":" + std::to_string(where.line);
            return package;
        }
    }

    namespace
    {
        auto read_conda_lock(std::string_view text, std::string_view file_name,
                             const LockSelection& selection) -> util::Result<model::Lock>
        {
            auto loaded = lock_yaml::load_mapping(text, file_name, "a conda-lock file");
            if (!loaded)
            {
                return util::unexpected(loaded.error());
            }
            const YAML::Node& root = *loaded;
            const util::SourceLocation file_location{ std::string(file_name), 0, 0 };
            const std::string version = scalar(root, "version");
            if (version.empty())
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::unsupported,
                                   "conda-lock file without a 'version' key (written before "
                                   "conda-lock 1.0); envcheck reads version 1 "
                                   "(CEP 37)",
                                   file_location, "re-lock with a current conda-lock"));
            }
            if (version != "1")
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::unsupported,
                  "conda-lock file version " + version +
                    " is not supported; envcheck reads version 1 (CEP 37)",
                  lock_yaml::location(file_name, lock_yaml::child(root, "version"))));
            }
            model::Lock lock;
            lock.format = model::LockFormat::conda_lock;
            lock.format_version = version;
            lock.machine.platform = selection.platform;

            const YAML::Node packages = lock_yaml::child(root, "package");
            if (packages.IsDefined() && !packages.IsNull() && !packages.IsSequence())
            {
                return util::unexpected(lock_yaml::error(util::ErrorKind::parse,
                                                         "'package' must be a list",
                                                         lock_yaml::location(file_name, packages)));
            }
            std::vector<std::string> platforms = platforms_of(root);
            // A package listed under several categories is required when any of its entries is.
            std::vector<std::pair<model::Package, bool>> entries;
            std::map<std::string, std::size_t> index_of;
            std::set<std::string> categories;
            if (packages.IsSequence())
            {
                for (const auto& entry : packages)
                {
                    const std::string platform = scalar(entry, "platform");
                    if (std::find(platforms.begin(), platforms.end(), platform) ==
                          platforms.end() &&
                        !platform.empty())
                    {
                        platforms.push_back(platform);
                    }
                    if (platform != selection.platform)
                    {
                        continue;
                    }
                    auto package = read_entry(entry, file_name);
                    if (!package)
                    {
                        return util::unexpected(package.error());
                    }
                    const bool optional = scalar(entry, "optional") == "true";
                    if (optional)
                    {
                        categories.insert(scalar(entry, "category"));
                    }
                    const auto [found, inserted] =
                      index_of.emplace(model::package_key(*package), entries.size());
                    if (inserted)
                    {
                        entries.emplace_back(std::move(*package), optional);
                    }
                    else
                    {
                        entries[found->second].second = entries[found->second].second && optional;
                    }
                }
            }
            for (auto& [package, optional] : entries)
            {
                (optional ? lock.optional_packages : lock.packages).push_back(std::move(package));
            }
            if (!platforms.empty() && std::find(platforms.begin(), platforms.end(),
                                                selection.platform) == platforms.end())
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::usage,
                                   "the lock has no packages for " + selection.platform +
                                     " (it locks " + util::join(platforms, ", ") + ")",
                                   file_location, "pass --platform with one of them"));
            }
            if (!lock.optional_packages.empty())
            {
                categories.erase("");
                lock.notes.push_back(
                  std::to_string(lock.optional_packages.size()) + " optional package(s)" +
                  (categories.empty()
                     ? std::string()
                     : " (categories: " +
                         util::join({ categories.begin(), categories.end() }, ", ") + ")") +
                  " are checked only when installed");
            }
            return lock;
        }
    }

    auto parse_conda_lock(std::string_view text, std::string_view file_name,
                          const LockSelection& selection) -> util::Result<model::Lock>
    {
        return lock_yaml::guarded(file_name,
                                  [&] { return read_conda_lock(text, file_name, selection); });
    }
}
