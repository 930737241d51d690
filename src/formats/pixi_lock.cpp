#include "formats/pixi_lock.hpp"

#include <map>
#include <utility>

#include "formats/explicit.hpp"
#include "formats/lock_yaml.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using lock_yaml::scalar;

        constexpr int oldest_version = 6;
        constexpr int newest_version = 7;

        // The kind and locator of a package reference: {"conda", URL}, {"pypi", URL or path},
        // {"conda_source", "name[hash] @ path"}.
        auto reference_of(const YAML::Node& entry) -> std::pair<std::string, std::string>
        {
            for (const char* kind : { "conda", "pypi", "conda_source" })
            {
                if (const std::string locator = scalar(entry, kind); !locator.empty())
                {
                    return { kind, locator };
                }
            }
            return {};
        }

        // v7 platforms: [{name, subdir?}]; the name keys environments' package lists.
        auto platform_key(const YAML::Node& root, const std::string& subdir) -> std::string
        {
            const YAML::Node platforms = lock_yaml::child(root, "platforms");
            if (platforms.IsSequence())
            {
                for (const auto& platform : platforms)
                {
                    const std::string name = scalar(platform, "name");
                    const std::string platform_subdir = scalar(platform, "subdir");
                    if ((platform_subdir.empty() ? name : platform_subdir) == subdir)
                    {
                        return name;
                    }
                }
            }
            return subdir;
        }

        auto conda_package(const YAML::Node& entry, const std::string& url) -> model::Package
        {
            model::Package package;
            if (auto from_url = package_from_url(url))
            {
                package = std::move(*from_url);
            }
            else
            {
                package.url = strip_credentials(url);
            }
            for (const auto& [field, target] :
                 { std::pair{ "name", &package.name }, std::pair{ "version", &package.version },
                   std::pair{ "build", &package.build }, std::pair{ "subdir", &package.subdir } })
            {
                if (std::string value = scalar(entry, field); !value.empty())
                {
                    *target = std::move(value);
                }
            }
            // build_number is written only when it is not 0.
            package.build_number = util::parse_int(scalar(entry, "build_number")).value_or(0);
            package.sha256 = util::to_lower(scalar(entry, "sha256"));
            package.md5 = util::to_lower(scalar(entry, "md5"));
            if (const auto size = util::parse_uint(scalar(entry, "size")))
            {
                package.size = *size;
            }
            return package;
        }

        auto source_package(const YAML::Node& entry, const std::string& locator) -> model::Package
        {
            model::Package package;
            package.manager = model::Manager::conda;
            const auto bracket = locator.find_first_of("[ @");
            package.name = locator.substr(0, bracket);
            package.version = scalar(entry, "version");
            package.build = scalar(entry, "build");
            package.subdir = scalar(entry, "subdir");
            if (const auto at = locator.find(" @ "); at != std::string::npos)
            {
                package.url = locator.substr(at + 3);
            }
            return package;
        }

        auto pypi_package(const YAML::Node& entry, const std::string& locator) -> model::Package
        {
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = scalar(entry, "name");
            package.version = scalar(entry, "version");
            package.url = strip_credentials(locator);
            package.sha256 = util::to_lower(scalar(entry, "sha256"));
            return package;
        }
    }

    namespace
    {
        auto read_pixi_lock(std::string_view text, std::string_view file_name,
                            const LockSelection& selection) -> util::Result<model::Lock>
        {
            auto loaded = lock_yaml::load_mapping(text, file_name, "a pixi.lock");
            if (!loaded)
            {
                return util::unexpected(loaded.error());
            }
            const YAML::Node& root = *loaded;
            const util::SourceLocation file_location{ std::string(file_name), 0, 0 };
            const std::string version_text = scalar(root, "version");
            const auto version = util::parse_int(version_text);
            if (!version)
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::parse,
                                   "not a pixi.lock: no integer 'version' key", file_location));
            }
            const auto version_location =
              lock_yaml::location(file_name, lock_yaml::child(root, "version"));
            if (*version < oldest_version)
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::unsupported,
                  "pixi.lock version " + version_text +
                    " is not supported; envcheck reads versions 6 and 7",
                  version_location,
                  "re-lock with a current pixi (`pixi lock`), which writes version 7"));
            }
            if (*version > newest_version)
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::unsupported,
                                   "pixi.lock version " + version_text +
                                     " is newer than envcheck reads (versions 6 and 7)",
                                   version_location, "update envcheck"));
            }
            const YAML::Node environments = lock_yaml::child(root, "environments");
            std::vector<std::string> names;
            if (environments.IsMap())
            {
                for (const auto& item : environments)
                {
                    names.push_back(item.first.Scalar());
                }
            }
            const YAML::Node environment =
              environments.IsMap() ? lock_yaml::child(environments, selection.environment.c_str())
                                   : YAML::Node();
            if (!environment.IsDefined() || !environment.IsMap())
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::usage,
                  "the lock has no environment '" + selection.environment + "'", file_location,
                  names.empty() ? std::string("the lock defines no environments")
                                : "pass --environment with one of: " + util::join(names, ", ")));
            }

            model::Lock lock;
            lock.format = model::LockFormat::pixi;
            lock.format_version = version_text;
            lock.machine.platform = selection.platform;

            const YAML::Node by_platform = lock_yaml::child(environment, "packages");
            const std::string key = platform_key(root, selection.platform);
            const YAML::Node references =
              by_platform.IsMap() ? lock_yaml::child(by_platform, key.c_str()) : YAML::Node();
            if (!references.IsDefined() || !references.IsSequence())
            {
                std::vector<std::string> platforms;
                if (by_platform.IsMap())
                {
                    for (const auto& item : by_platform)
                    {
                        platforms.push_back(item.first.Scalar());
                    }
                }
                if (platforms.empty())
                {
                    lock.notes.push_back("environment '" + selection.environment +
                                         "' locks no packages");
                    return lock;
                }
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::usage,
                  "environment '" + selection.environment + "' has no packages for " +
                    selection.platform + " (it locks " + util::join(platforms, ", ") + ")",
                  file_location, "pass --platform with one of them"));
            }

            std::map<std::pair<std::string, std::string>, YAML::Node> index;
            const YAML::Node packages = lock_yaml::child(root, "packages");
            if (packages.IsSequence())
            {
                for (const auto& entry : packages)
                {
                    index.emplace(reference_of(entry), entry);
                }
            }
            std::size_t source_packages = 0;
            for (const auto& reference : references)
            {
                const auto [kind, locator] = reference_of(reference);
                const auto found = index.find({ kind, locator });
                if (kind.empty() || found == index.end())
                {
                    return util::unexpected(lock_yaml::error(
                      util::ErrorKind::parse,
                      "environment '" + selection.environment + "' refers to " +
                        (locator.empty() ? std::string("an entry") : "'" + locator + "'") +
                        " that the packages list does not have",
                      lock_yaml::location(file_name, reference)));
                }
                const YAML::Node& entry = found->second;
                model::Package package = kind == "conda"  ? conda_package(entry, locator)
                                         : kind == "pypi" ? pypi_package(entry, locator)
                                                          : source_package(entry, locator);
                if (kind == "conda_source")
                {
                    ++source_packages;
                }
                // Path and editable PyPI packages (the project itself, "pypi: .") may have no
                // version: they are compared by name.
                if (package.name.empty() || (package.version.empty() && kind != "pypi"))
                {
                    return util::unexpected(lock_yaml::error(
                      util::ErrorKind::parse, "package '" + locator + "' has no name or version",
                      lock_yaml::location(file_name, entry)));
                }
                package.source = std::string(file_name) + ":" +
                                 std::to_string(lock_yaml::location(file_name, entry).line);
                lock.packages.push_back(std::move(package));
            }
            if (source_packages > 0)
            {
                lock.notes.push_back(std::to_string(source_packages) +
                                     " source package(s) have no artifact hash and are compared by "
                                     "name, version and build");
            }
            return lock;
        }
    }

    auto parse_pixi_lock(std::string_view text, std::string_view file_name,
                         const LockSelection& selection) -> util::Result<model::Lock>
    {
        return lock_yaml::guarded(file_name,
                                  [&] { return read_pixi_lock(text, file_name, selection); });
    }
}
