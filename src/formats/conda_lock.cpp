#include "formats/conda_lock.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

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

        constexpr std::string_view main_category = "main";

        auto contains(const std::vector<std::string>& list, std::string_view item) -> bool
        {
            return std::find(list.begin(), list.end(), item) != list.end();
        }

        auto add_unique(std::vector<std::string>& list, std::string_view item)
        {
            if (!item.empty() && !contains(list, item))
            {
                list.emplace_back(item);
            }
        }

        // A 40-hex conda-lock "sha256" of a git package is the commit, not an archive hash.
        auto archive_sha256(std::string_view hash) -> std::string
        {
            return hash.size() == 64 ? util::to_lower(hash) : std::string();
        }

        auto read_pip(const Node& entry, model::Package& package)
        {
            // conda-lock renders a URL source ("name @ <source.url>") in preference to the url.
            std::string location = text(entry.get("source"), "url");
            if (location.empty())
            {
                location = text(entry, "url");
            }
            location = strip_credentials(location);
            package.sha256 = archive_sha256(entry.get("hash").text("sha256"));
            if (auto vcs = vcs_direct_url(location))
            {
                package.direct_url = std::move(*vcs);
            }
            else if (is_local_path(location))
            {
                package.direct_url = model::DirectUrl{};
                package.direct_url->url = location;
            }
            package.url = std::move(location);
        }

        auto read_entry(const Node& entry, std::string_view file_name)
          -> util::Result<model::Package>
        {
            const auto where = entry.location(file_name);
            const std::string name = text(entry, "name");
            for (const std::string_view field : { "name", "version", "manager", "url" })
            {
                if (entry.text(field).empty())
                {
                    return util::unexpected(lock_yaml::error(
                      util::ErrorKind::parse,
                      "package " + (name.empty() ? std::string("entry") : "'" + name + "'") +
                        " has no '" + std::string(field) + "'",
                      where,
                      "CEP 37 requires name, version, manager, platform, url and hash for every "
                      "package"));
                }
            }
            const auto manager = model::parse_manager(entry.text("manager"));
            if (!manager)
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::parse,
                                   "package '" + name + "': unknown manager '" +
                                     text(entry, "manager") + "' (conda or pip)",
                                   where));
            }
            model::Package package;
            if (*manager == model::Manager::conda)
            {
                const auto url = entry.text("url");
                if (!read_artifact_url(url, package))
                {
                    package = model::Package{};
                    package.url = strip_credentials(url);
                }
                if (std::string build = text(entry, "build"); !build.empty())
                {
                    package.build = std::move(build);
                }
                const Node hash = entry.get("hash");
                package.md5 = util::to_lower(hash.text("md5"));
                package.sha256 = archive_sha256(hash.text("sha256"));
                if (package.md5.empty() && package.sha256.empty())
                {
                    return util::unexpected(
                      lock_yaml::error(util::ErrorKind::parse, "package '" + name + "' has no hash",
                                       where, "CEP 37 requires an md5 for every conda package"));
                }
            }
            else
            {
                read_pip(entry, package);
            }
            package.manager = *manager;
            package.name = name;
            package.version = text(entry, "version");
            package.source = std::string(file_name) + ":" + std::to_string(where.line);
            return package;
        }

        auto category_of(const Node& entry) -> std::string
        {
            std::string category = text(entry, "category");
            if (category.empty())
            {
                // CEP 37: category defaults to main; an optional entry without one is "optional".
                category =
                  entry.text("optional") == "true" ? "optional" : std::string(main_category);
            }
            return category;
        }

        struct Read
        {
            model::Package package;
            std::vector<std::string> categories;
        };

        auto category_note(const std::vector<Read>& entries,
                           const std::vector<std::string>& selected, std::size_t left_out)
          -> std::string
        {
            std::map<std::string, std::size_t> counts;
            std::vector<std::string> order;
            for (const auto& entry : entries)
            {
                add_unique(order, entry.package.category);
                ++counts[entry.package.category];
            }
            std::stable_sort(order.begin(), order.end(),
                             [](const std::string& a, const std::string& b)
                             { return a == main_category && b != main_category; });
            std::vector<std::string> parts;
            parts.reserve(order.size());
            for (const auto& category : order)
            {
                parts.push_back(category + " " + std::to_string(counts[category]));
            }
            std::string note = "conda-lock categories: " + util::join(parts, ", ");
            if (selected.empty())
            {
                return note + " (all read)";
            }
            return note + "; " + util::join(selected, ", ") + " selected: the other " +
                   std::to_string(left_out) + " package(s) are checked only when installed";
        }

        // pixi's lock versions 2 and 3 (rattler_lock) kept conda-lock's layout.
        auto is_pixi_legacy(std::string_view version) -> bool
        {
            return version == "2" || version == "3";
        }

        // The root's `version`: 1 (conda-lock, CEP 37), or 2 and 3 (early pixi releases).
        auto read_version(const Node& root, std::string_view file_name) -> util::Result<std::string>
        {
            std::string version = text(root, "version");
            if (version.empty())
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::unsupported,
                                   "conda-lock file without a 'version' key (written before "
                                   "conda-lock 1.0); envcheck reads version 1 "
                                   "(CEP 37)",
                                   util::SourceLocation{ std::string(file_name), 0, 0 },
                                   "re-lock with a current conda-lock"));
            }
            if (version != "1" && !is_pixi_legacy(version))
            {
                return util::unexpected(lock_yaml::error(
                  util::ErrorKind::unsupported,
                  "a lock in conda-lock's layout (metadata, package) with version " + version +
                    ": conda-lock writes version 1 (CEP 37) and pixi wrote this layout as its "
                    "versions 1 to 3; envcheck reads those",
                  root.get("version").location(file_name)));
            }
            return version;
        }

        // What the package list holds: the platforms and categories of the whole file, and the
        // selected platform's packages.
        struct Listing
        {
            std::vector<std::string> platforms;
            std::vector<std::string> categories;
            std::vector<Read> entries; // each package once, with the categories that list it
        };

        auto read_listing(const Node& root, const LockSelection& selection,
                          std::string_view file_name) -> util::Result<Listing>
        {
            const Node packages = root.get("package");
            if (packages.exists() && !packages.is_null() && !packages.is_sequence())
            {
                return util::unexpected(lock_yaml::error(util::ErrorKind::parse,
                                                         "'package' must be a list",
                                                         packages.location(file_name)));
            }
            Listing listing;
            const Node listed = root.get("metadata").get("platforms");
            for (std::size_t i = 0; i < listed.size(); ++i)
            {
                add_unique(listing.platforms, listed.item(i).text());
            }
            std::unordered_map<std::string, std::size_t> index_of;
            for (std::size_t i = 0; i < packages.size(); ++i)
            {
                const Node entry = packages.item(i);
                const std::string_view platform = entry.text("platform");
                add_unique(listing.platforms, platform);
                const std::string category = category_of(entry);
                add_unique(listing.categories, category);
                if (platform != selection.platform)
                {
                    continue;
                }
                auto package = read_entry(entry, file_name);
                if (!package)
                {
                    return util::unexpected(package.error());
                }
                // Entries are unique on (name, manager, platform, category): a package needed by
                // several categories is listed once under each.
                const auto [found, inserted] =
                  index_of.emplace(model::package_key(*package), listing.entries.size());
                if (inserted)
                {
                    listing.entries.push_back(Read{ std::move(*package), {} });
                }
                add_unique(listing.entries[found->second].categories, category);
            }
            return listing;
        }

        // The selected platform and categories must be in the file (one that names no platform
        // at all is read as the selected one).
        auto check_selection(const Listing& listing, const LockSelection& selection,
                             const util::SourceLocation& file_location) -> util::Result<void>
        {
            if (!listing.platforms.empty() && !contains(listing.platforms, selection.platform))
            {
                return util::unexpected(
                  lock_yaml::error(util::ErrorKind::usage,
                                   "the lock has no packages for " + selection.platform +
                                     " (it locks " + util::join(listing.platforms, ", ") + ")",
                                   file_location, "pass --platform with one of them"));
            }
            for (const auto& wanted : selection.categories)
            {
                if (!contains(listing.categories, wanted))
                {
                    return util::unexpected(lock_yaml::error(
                      util::ErrorKind::usage, "the lock has no category '" + wanted + "'",
                      file_location,
                      "pass --category with one of: " + util::join(listing.categories, ", ")));
                }
            }
            return {};
        }

        // No categories asked for selects every package.
        auto is_selected(const Read& entry, const std::vector<std::string>& wanted) -> bool
        {
            return wanted.empty() || std::any_of(entry.categories.begin(), entry.categories.end(),
                                                 [&](const std::string& category)
                                                 { return contains(wanted, category); });
        }

        // Gives each package one category, main when main lists it, else the first that does;
        // how many packages the selection leaves out.
        auto settle_categories(std::vector<Read>& entries, const std::vector<std::string>& wanted)
          -> std::size_t
        {
            std::size_t left_out = 0;
            for (auto& entry : entries)
            {
                entry.package.category = contains(entry.categories, main_category)
                                           ? std::string(main_category)
                                           : entry.categories.front();
                left_out += is_selected(entry, wanted) ? 0 : 1;
            }
            return left_out;
        }

        // Whether the file has categories besides main (and so a note on them is worth it).
        auto has_other_categories(const std::vector<std::string>& categories) -> bool
        {
            return categories.size() > 1 ||
                   (categories.size() == 1 && categories[0] != main_category);
        }
    }

    auto read_conda_lock(const yaml::Node& root, std::string_view file_name,
                         const LockSelection& selection) -> util::Result<model::Lock>
    {
        const util::SourceLocation file_location{ std::string(file_name), 0, 0 };
        const auto version = read_version(root, file_name);
        if (!version)
        {
            return util::unexpected(version.error());
        }
        const bool pixi_legacy = is_pixi_legacy(*version);
        model::Lock lock;
        lock.format = pixi_legacy ? model::LockFormat::pixi : model::LockFormat::conda_lock;
        lock.format_version = *version;
        lock.machine.platform = selection.platform;
        if (pixi_legacy)
        {
            lock.notes.push_back("pixi.lock version " + *version +
                                 " (conda-lock's layout, as early pixi releases wrote it)");
        }

        auto listing = read_listing(root, selection, file_name);
        if (!listing)
        {
            return util::unexpected(listing.error());
        }
        if (const auto checked = check_selection(*listing, selection, file_location); !checked)
        {
            return util::unexpected(checked.error());
        }
        auto& entries = listing->entries;
        const std::size_t left_out = settle_categories(entries, selection.categories);
        if (has_other_categories(listing->categories))
        {
            lock.notes.push_back(category_note(entries, selection.categories, left_out));
        }
        for (auto& entry : entries)
        {
            (is_selected(entry, selection.categories) ? lock.packages : lock.optional_packages)
              .push_back(std::move(entry.package));
        }
        return lock;
    }

    auto parse_conda_lock(std::string_view text, std::string_view file_name,
                          const LockSelection& selection) -> util::Result<model::Lock>
    {
        const auto loaded = lock_yaml::load_mapping(text, file_name, "a conda-lock file");
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        return read_conda_lock(loaded->root(), file_name, selection);
    }
}
