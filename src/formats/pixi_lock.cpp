#include "formats/pixi_lock.hpp"

#include <algorithm>
#include <utility>

#include "formats/explicit.hpp"
#include "formats/lock_yaml.hpp"
#include "formats/pip_reference.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using lock_yaml::text;
        using yaml::Node;

        constexpr int oldest_version = 4;
        constexpr int newest_version = 7;
        constexpr std::string_view default_index = "https://pypi.org/simple";

        struct Reference
        {
            std::string_view kind;    // "conda", "pypi", "conda_source"
            std::string_view locator; // URL, path or "name[hash] @ path"
        };

        // v6/v7: the key of an entry or of an environment's reference.
        auto reference_of(const Node& entry) -> Reference
        {
            for (const std::string_view kind : { "conda", "pypi", "conda_source" })
            {
                if (const auto locator = entry.text(kind); !locator.empty())
                {
                    return { kind, locator };
                }
            }
            return {};
        }

        // v4/v5: `kind: conda|pypi` and the location under `url:` or `path:`.
        auto tagged_reference_of(const Node& entry) -> Reference
        {
            const auto kind = entry.text("kind");
            auto locator = entry.text("url");
            if (locator.empty())
            {
                locator = entry.text("path");
            }
            return { kind == "pypi" || kind == "conda" ? kind : std::string_view(), locator };
        }

        // v6 omits build_number when the build string's last '_' field states it ("h59595ed_3"
        // -> 3); it is 0 when that field is not a number.
        auto build_number_of(const Node& entry, const std::string& build)
          -> std::optional<long long>
        {
            if (const auto written = util::parse_int(entry.text("build_number")))
            {
                return *written;
            }
            const auto underscore = build.rfind('_');
            const auto suffix = underscore == std::string::npos
                                  ? std::string_view(build)
                                  : std::string_view(build).substr(underscore + 1);
            return util::parse_int(suffix).value_or(0);
        }

        // A URL without a trailing #<algorithm>=<hash> fragment (v4 pypi URLs carry one).
        auto without_hash_fragment(std::string_view url) -> std::string
        {
            const auto hash = url.find('#');
            if (hash != std::string_view::npos && url.find('=', hash) != std::string_view::npos)
            {
                return std::string(url.substr(0, hash));
            }
            return std::string(url);
        }

        auto conda_package(const Node& entry, std::string_view location, bool& is_source)
          -> model::Package
        {
            model::Package package;
            is_source = !read_artifact_url(location, package);
            if (is_source)
            {
                package = model::Package{};
                package.url = strip_credentials(location);
            }
            for (const auto& [field, target] :
                 { std::pair{ "name", &package.name }, std::pair{ "version", &package.version },
                   std::pair{ "build", &package.build }, std::pair{ "subdir", &package.subdir } })
            {
                if (auto value = text(entry, field); !value.empty())
                {
                    *target = std::move(value);
                }
            }
            if (!is_source || !package.build.empty())
            {
                package.build_number = build_number_of(entry, package.build);
            }
            package.sha256 = util::to_lower(entry.text("sha256"));
            package.md5 = util::to_lower(entry.text("md5"));
            if (const auto size = util::parse_uint(entry.text("size")))
            {
                package.size = *size;
            }
            return package;
        }

        auto source_package(const Node& entry, std::string_view locator) -> model::Package
        {
            model::Package package;
            package.manager = model::Manager::conda;
            const auto bracket = locator.find_first_of("[ @");
            package.name = std::string(locator.substr(0, bracket));
            package.version = text(entry, "version");
            package.build = text(entry, "build");
            package.subdir = text(entry, "subdir");
            if (const auto at = locator.find(" @ "); at != std::string_view::npos)
            {
                package.url = strip_credentials(locator.substr(at + 3));
            }
            return package;
        }

        auto pypi_package(const Node& entry, std::string_view location) -> model::Package
        {
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = text(entry, "name");
            package.version = text(entry, "version");
            package.sha256 = util::to_lower(entry.text("sha256"));
            const std::string clean = strip_credentials(location);
            if (auto vcs = vcs_direct_url(clean))
            {
                package.direct_url = std::move(*vcs);
                package.url = clean;
            }
            else if (is_local_path(clean))
            {
                package.direct_url = model::DirectUrl{};
                package.direct_url->url = clean;
                package.direct_url->editable = entry.text("editable") == "true";
                package.url = clean;
            }
            else
            {
                package.url = without_hash_fragment(clean);
            }
            return package;
        }

        // The name a v7 conda entry goes by, to tell source packages at one location apart.
        auto entry_name(const Node& entry, const Reference& reference) -> std::string_view
        {
            if (const auto name = entry.text("name"); !name.empty())
            {
                return name;
            }
            if (reference.kind == "conda_source")
            {
                return reference.locator.substr(0, reference.locator.find_first_of("[ @"));
            }
            return {};
        }

        // Whether every variant the reference names has the same value in the entry.
        auto variants_match(const Node& wanted, const Node& entry_variants) -> bool
        {
            for (std::size_t i = 0; i < wanted.size(); ++i)
            {
                if (entry_variants.get(wanted.key(i).text()).text() != wanted.value(i).text())
                {
                    return false;
                }
            }
            return true;
        }

        // The packages list sorted by location: one allocation, views into the document.
        struct Keyed
        {
            std::string_view locator;
            std::string_view kind;
            std::size_t index;
        };

        auto by_location(const Keyed& a, const Keyed& b) -> bool
        {
            return a.locator < b.locator || (a.locator == b.locator && a.index < b.index);
        }

        auto build_index(const Node& packages, bool tagged) -> std::vector<Keyed>
        {
            std::vector<Keyed> index;
            index.reserve(packages.size());
            for (std::size_t i = 0; i < packages.size(); ++i)
            {
                const Node entry = packages.item(i);
                const Reference reference =
                  tagged ? tagged_reference_of(entry) : reference_of(entry);
                if (!reference.kind.empty())
                {
                    index.push_back(Keyed{ reference.locator, reference.kind, i });
                }
            }
            std::sort(index.begin(), index.end(), by_location);
            return index;
        }

        struct PlatformChoice
        {
            std::string key;    // what the environments' package lists are keyed by
            std::string subdir; // the conda subdir
            std::string name;   // v7 name when it differs from the subdir
        };

        // v7 platforms: [{name, subdir?}]. The selection names a platform or a subdir.
        auto choose_platform(const Node& root, const std::string& wanted,
                             std::string_view file_name) -> util::Result<PlatformChoice>
        {
            const Node platforms = root.get("platforms");
            std::vector<std::pair<std::string, std::string>> by_subdir; // name, subdir
            for (std::size_t i = 0; i < platforms.size(); ++i)
            {
                const Node platform = platforms.item(i);
                std::string name = text(platform, "name");
                std::string subdir = text(platform, "subdir");
                if (subdir.empty())
                {
                    subdir = name;
                }
                if (name == wanted)
                {
                    return PlatformChoice{ name, subdir, name == subdir ? std::string() : name };
                }
                if (subdir == wanted)
                {
                    by_subdir.emplace_back(std::move(name), std::move(subdir));
                }
            }
            if (by_subdir.size() == 1)
            {
                const auto& [name, subdir] = by_subdir.front();
                return PlatformChoice{ name, subdir, name };
            }
            if (by_subdir.size() > 1)
            {
                std::vector<std::string> names;
                names.reserve(by_subdir.size());
                for (const auto& item : by_subdir)
                {
                    names.push_back(item.first);
                }
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::usage,
                                   "the lock has " + std::to_string(names.size()) +
                                     " platforms for " + wanted + ": " + util::join(names, ", "),
                                   util::SourceLocation{ std::string(file_name), 0, 0 },
                                   "pass --platform with one of their names"));
            }
            return PlatformChoice{ wanted, wanted, {} };
        }

        void read_pip_options(const Node& environment, model::Lock& lock)
        {
            const Node indexes = environment.get("indexes");
            for (std::size_t i = 0; i < indexes.size(); ++i)
            {
                const auto index = indexes.item(i).text();
                if (!index.empty())
                {
                    lock.pip_options.push_back((i == 0 ? "--index-url " : "--extra-index-url ") +
                                               strip_credentials(index));
                }
            }
            const Node links = environment.get("find-links");
            for (std::size_t i = 0; i < links.size(); ++i)
            {
                const Node link = links.item(i);
                auto location = link.is_scalar() ? link.text() : link.text("url");
                if (location.empty())
                {
                    location = link.text("path");
                }
                if (!location.empty())
                {
                    lock.pip_options.push_back("--find-links " + strip_credentials(location));
                }
            }
            if (lock.pip_options.size() == 1 &&
                lock.pip_options.front() == "--index-url " + std::string(default_index))
            {
                lock.pip_options.clear(); // PyPI alone is what pip uses anyway
            }
        }

        // The integer version of a pixi.lock with environments (4 to 7); `version_text` is the
        // root's `version` as written, for the messages.
        auto read_version(const Node& root, const std::string& version_text,
                          std::string_view file_name) -> util::Result<long long>
        {
            const auto version = util::parse_int(version_text);
            if (!version)
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::parse, "not a pixi.lock: no integer 'version' key",
                  util::SourceLocation{ std::string(file_name), 0, 0 }));
            }
            if (*version < oldest_version)
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::unsupported,
                  "pixi.lock version " + version_text +
                    " with an 'environments' key: versions 1 to 3 have conda-lock's layout "
                    "(metadata, package), versions 4 to 7 have environments",
                  root.get("version").location(file_name),
                  "re-lock with a current pixi (`pixi lock`)"));
            }
            if (*version > newest_version)
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::unsupported,
                  "pixi.lock version " + version_text + " is newer than envcheck reads (versions " +
                    std::to_string(oldest_version) + " to " + std::to_string(newest_version) + ")",
                  root.get("version").location(file_name), "update envcheck"));
            }
            return *version;
        }

        auto environment_names(const Node& environments) -> std::vector<std::string>
        {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < environments.size(); ++i)
            {
                names.emplace_back(environments.key(i).text());
            }
            return names;
        }

        // The environment the selection names; a pixi.lock has environments, not categories.
        auto select_environment(const Node& root, const LockSelection& selection,
                                const util::SourceLocation& file_location) -> util::Result<Node>
        {
            const Node environments = root.get("environments");
            const Node environment = environments.get(selection.environment);
            if (!environment.is_mapping())
            {
                const auto names = environment_names(environments);
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::usage,
                  "the lock has no environment '" + selection.environment + "'", file_location,
                  names.empty() ? std::string("the lock defines no environments")
                                : "pass --environment with one of: " + util::join(names, ", ")));
            }
            if (!selection.categories.empty())
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::usage, "a pixi.lock has no categories", file_location,
                  "select an environment with --environment (one of: " +
                    util::join(environment_names(environments), ", ") + ")"));
            }
            return environment;
        }

        // The lock before its packages: format, version and the platform chosen.
        auto new_lock(const std::string& version_text, const PlatformChoice& platform)
          -> model::Lock
        {
            model::Lock lock;
            lock.format = model::LockFormat::pixi;
            lock.format_version = version_text;
            lock.machine.platform = platform.subdir;
            if (!platform.name.empty() && platform.name != platform.subdir)
            {
                lock.notes.push_back("platform '" + platform.name + "' (" + platform.subdir + ")");
            }
            return lock;
        }

        // An environment with no package list for the platform: fine when it locks no packages
        // at all (a note), an error naming the platforms it does lock otherwise.
        auto without_platform_packages(const Node& by_platform, const LockSelection& selection,
                                       const util::SourceLocation& file_location, model::Lock lock)
          -> util::Result<model::Lock>
        {
            std::vector<std::string> platforms;
            for (std::size_t i = 0; i < by_platform.size(); ++i)
            {
                platforms.emplace_back(by_platform.key(i).text());
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

        // The entry a reference picks among those at its location (source packages may share
        // one, in a monorepo): the one its name and variants match, else the first; missing
        // when there is none.
        auto find_entry(const Node& packages, const std::vector<Keyed>& index, const Node& selector,
                        const Reference& reference) -> Node
        {
            const auto wanted_name = selector.text("name");
            const Node wanted_variants = selector.get("variants");
            Node entry;
            for (auto candidate = std::lower_bound(index.begin(), index.end(),
                                                   Keyed{ reference.locator, {}, 0 }, by_location);
                 candidate != index.end() && candidate->locator == reference.locator; ++candidate)
            {
                if (candidate->kind != reference.kind)
                {
                    continue;
                }
                const Node item = packages.item(candidate->index);
                if (!entry.exists())
                {
                    entry = item; // the first, when none matches name and variants
                }
                if ((wanted_name.empty() || entry_name(item, reference) == wanted_name) &&
                    variants_match(wanted_variants, item.get("variants")))
                {
                    return item;
                }
            }
            return entry;
        }

        // The error at an environment's reference that no entry of the packages list answers.
        auto missing_entry(const LockSelection& selection, const Reference& reference,
                           const Node& selector, std::string_view file_name) -> util::Error
        {
            return lock_yaml::error(util::ErrorKind::parse,
                                    "environment '" + selection.environment + "' refers to " +
                                      (reference.locator.empty()
                                         ? std::string("an entry")
                                         : "'" + std::string(reference.locator) + "'") +
                                      " that the packages list does not have",
                                    selector.location(file_name));
        }

        // The package of an entry, read as the kind of its reference says; `is_source` tells
        // conda source packages (no artifact to hash) apart.
        auto package_of(const Node& entry, const Reference& reference, bool& is_source)
          -> model::Package
        {
            is_source = reference.kind == "conda_source";
            if (reference.kind == "pypi")
            {
                return pypi_package(entry, reference.locator);
            }
            if (is_source)
            {
                return source_package(entry, reference.locator);
            }
            return conda_package(entry, reference.locator, is_source);
        }

        // Reads the entry one reference of the environment picks into lock.packages; whether
        // it was a source package.
        auto read_reference(const Node& selector, const Node& packages,
                            const std::vector<Keyed>& index, const LockSelection& selection,
                            std::string_view file_name, model::Lock& lock) -> util::Result<bool>
        {
            const Reference reference = reference_of(selector);
            const Node entry = find_entry(packages, index, selector, reference);
            if (reference.kind.empty() || !entry.exists())
            {
                return util::unexpected(missing_entry(selection, reference, selector, file_name));
            }
            bool is_source = false;
            model::Package package = package_of(entry, reference, is_source);
            // Path and editable PyPI packages (the project itself, "pypi: .") and source
            // packages may have no version: they are compared by name.
            if (package.name.empty())
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::parse,
                                   "package '" + std::string(reference.locator) + "' has no name",
                                   entry.location(file_name)));
            }
            package.source = std::string(file_name) + ":" + std::to_string(entry.line());
            lock.packages.push_back(std::move(package));
            return is_source;
        }

        // The packages an environment's references pick, in their order.
        auto read_references(const Node& references, const Node& packages,
                             const std::vector<Keyed>& index, const LockSelection& selection,
                             std::string_view file_name, model::Lock& lock) -> util::Result<void>
        {
            std::size_t source_packages = 0;
            lock.packages.reserve(references.size());
            for (std::size_t r = 0; r < references.size(); ++r)
            {
                const auto is_source =
                  read_reference(references.item(r), packages, index, selection, file_name, lock);
                if (!is_source)
                {
                    return util::unexpected(is_source.error());
                }
                source_packages += *is_source ? 1 : 0;
            }
            if (source_packages > 0)
            {
                lock.notes.push_back(std::to_string(source_packages) +
                                     " source package(s) have no artifact hash and are compared by "
                                     "name, version and build");
            }
            return {};
        }

        // `prebuilt`: the packages list's index when several selections share it, else null.
        auto read_selection(const yaml::Node& root, std::string_view file_name,
                            const LockSelection& selection, const std::vector<Keyed>* prebuilt)
          -> util::Result<model::Lock>
        {
            const util::SourceLocation file_location{ std::string(file_name), 0, 0 };
            const std::string version_text = text(root, "version");
            const auto version = read_version(root, version_text, file_name);
            if (!version)
            {
                return util::unexpected(version.error());
            }
            const bool tagged = *version <= 5; // v4, v5: `kind:` entries
            const auto environment = select_environment(root, selection, file_location);
            if (!environment)
            {
                return util::unexpected(environment.error());
            }
            const auto platform = choose_platform(root, selection.platform, file_name);
            if (!platform)
            {
                return util::unexpected(platform.error());
            }

            model::Lock lock = new_lock(version_text, *platform);
            read_pip_options(*environment, lock);
            const Node by_platform = environment->get("packages");
            const Node references = by_platform.get(platform->key);
            if (!references.is_sequence())
            {
                return without_platform_packages(by_platform, selection, file_location,
                                                 std::move(lock));
            }

            const Node packages = root.get("packages");
            std::vector<Keyed> own_index;
            if (prebuilt == nullptr)
            {
                own_index = build_index(packages, tagged);
            }
            const std::vector<Keyed>& index = prebuilt != nullptr ? *prebuilt : own_index;
            if (const auto read =
                  read_references(references, packages, index, selection, file_name, lock);
                !read)
            {
                return util::unexpected(read.error());
            }
            return lock;
        }
    }

    auto read_pixi_lock(const yaml::Node& root, std::string_view file_name,
                        const LockSelection& selection) -> util::Result<model::Lock>
    {
        return read_selection(root, file_name, selection, nullptr);
    }

    auto read_pixi_locks(const yaml::Node& root, std::string_view file_name,
                         const std::vector<LockSelection>& selections)
      -> std::vector<util::Result<model::Lock>>
    {
        const bool tagged = util::parse_int(root.text("version")).value_or(0) <= 5;
        const auto index = build_index(root.get("packages"), tagged);
        std::vector<util::Result<model::Lock>> locks;
        locks.reserve(selections.size());
        for (const auto& selection : selections)
        {
            locks.push_back(read_selection(root, file_name, selection, &index));
        }
        return locks;
    }

    auto parse_pixi_lock(std::string_view text, std::string_view file_name,
                         const LockSelection& selection) -> util::Result<model::Lock>
    {
        const auto loaded = lock_yaml::load_mapping(text, file_name, "a pixi.lock");
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        return read_pixi_lock(loaded->root(), file_name, selection);
    }
}
