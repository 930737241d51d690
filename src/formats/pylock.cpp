#include "formats/pylock.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "formats/explicit.hpp"
#include "formats/pip_reference.hpp"
#include "formats/python_lock.hpp"
#include "formats/toml_document.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using python_lock::Artifact;
        using python_lock::error_at;
        using Kind = TomlValue::Kind;

        auto parse_error(std::string_view file_name, const TomlValue& where, std::string message)
          -> util::Error
        {
            return error_at(util::ErrorKind::parse, file_name, where, std::move(message));
        }

        auto text_of(const TomlValue* table, std::string_view key) -> std::string
        {
            if (table == nullptr)
            {
                return {};
            }
            const TomlValue* value = table->find(key);
            return value && value->kind == Kind::string ? value->text : std::string();
        }

        auto strings_of(const TomlValue* list) -> std::vector<std::string>
        {
            std::vector<std::string> out;
            if (list != nullptr)
            {
                for (const auto& item : list->items)
                {
                    out.push_back(item.text);
                }
            }
            return out;
        }

        auto artifact_of(const TomlValue& table) -> Artifact
        {
            Artifact artifact;
            artifact.url = text_of(&table, "url");
            if (artifact.url.empty())
            {
                artifact.url = text_of(&table, "path");
            }
            artifact.url = strip_credentials(artifact.url);
            artifact.filename = text_of(&table, "name");
            if (artifact.filename.empty())
            {
                const std::string_view location = artifact.url;
                const auto slash = location.rfind('/');
                artifact.filename = std::string(
                  slash == std::string_view::npos ? location : location.substr(slash + 1));
            }
            artifact.sha256 = util::to_lower(text_of(table.find("hashes"), "sha256"));
            if (const TomlValue* size = table.find("size"); size && size->kind == Kind::integer)
            {
                artifact.size = util::parse_uint(size->text);
            }
            return artifact;
        }

        struct Header
        {
            TomlValue root;
            std::vector<std::string> notes;
        };

        auto load(std::string_view text, std::string_view file_name) -> util::Result<Header>
        {
            auto root = parse_toml(text, file_name);
            if (!root)
            {
                return util::unexpected(root.error());
            }
            Header header{ std::move(*root), {} };
            const TomlValue* version = header.root.find("lock-version");
            if (version == nullptr || version->kind != Kind::string)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, "not a pylock.toml: no `lock-version` string at the top",
                  util::SourceLocation{ std::string(file_name),
                                        version ? version->position.line : 1,
                                        version ? version->position.column : 1 }));
            }
            const auto parts = util::split(version->text, '.');
            const auto major = util::parse_int(parts.front());
            const auto minor =
              parts.size() > 1 ? util::parse_int(parts[1]) : std::optional<long long>(0);
            if (!major || !minor || *major != pylock_major_version)
            {
                return util::unexpected(
                  error_at(util::ErrorKind::unsupported, file_name, *version,
                           "pylock.toml lock-version '" + version->text +
                             "' is not supported (this envcheck reads " +
                             std::to_string(pylock_major_version) + ".x)",
                           "upgrade envcheck, or export a lock-version 1.0 pylock.toml"));
            }
            if (*minor > pylock_newest_minor_version)
            {
                header.notes.push_back(std::string(file_name) + ": lock-version " + version->text +
                                       " is newer than envcheck knows (1." +
                                       std::to_string(pylock_newest_minor_version) +
                                       "); fields added since are not read");
            }
            return header;
        }

        auto read_vcs(const TomlValue& vcs, std::string_view file_name, model::Package& package)
          -> util::Result<void>
        {
            model::DirectUrl direct;
            direct.vcs = text_of(&vcs, "type");
            direct.url = strip_credentials(text_of(&vcs, "url"));
            if (direct.url.empty())
            {
                direct.url = text_of(&vcs, "path");
            }
            direct.commit_id = text_of(&vcs, "commit-id");
            direct.requested_revision = text_of(&vcs, "requested-revision");
            if (direct.commit_id.empty())
            {
                return util::unexpected(parse_error(
                  file_name, vcs, "package '" + package.name + "': vcs needs a commit-id"));
            }
            package.url = direct.vcs + "+" + direct.url + "@" + direct.commit_id;
            package.direct_url = std::move(direct);
            return {};
        }

        // A package from an index: its sdist and wheels.
        void read_index_artifacts(const TomlValue& table, model::Lock& lock,
                                  model::Package& package)
        {
            std::vector<Artifact> wheels;
            if (const TomlValue* list = table.find("wheels"))
            {
                for (const auto& wheel : list->items)
                {
                    wheels.push_back(artifact_of(wheel));
                }
            }
            std::optional<Artifact> sdist;
            if (const TomlValue* value = table.find("sdist"))
            {
                sdist = artifact_of(*value);
            }
            python_lock::add_index(lock, text_of(&table, "index"), false);
            if (const auto artifact = python_lock::representative(wheels, sdist))
            {
                package.sha256 = artifact->sha256;
                package.filename = artifact->filename;
                package.size = artifact->size;
                if (artifact->url.find("://") != std::string::npos &&
                    !is_pypi_file_url(artifact->url) && !artifact->url.starts_with("file:"))
                {
                    package.url = artifact->url;
                }
            }
        }

        // Checks an entry's shape and builds its package.
        auto read_package(const TomlValue& table, std::string_view file_name, model::Lock& lock)
          -> util::Result<model::Package>
        {
            if (table.kind != Kind::table)
            {
                return util::unexpected(
                  parse_error(file_name, table, "a [[packages]] entry must be a table"));
            }
            model::Package package;
            package.manager = model::Manager::pip;
            package.source = std::string(file_name);
            package.name = text_of(&table, "name");
            if (package.name.empty())
            {
                return util::unexpected(parse_error(file_name, table, "a package has no name"));
            }
            package.version = text_of(&table, "version");
            std::vector<std::string> sources;
            for (const std::string_view key : { "vcs", "directory", "archive", "wheels", "sdist" })
            {
                if (table.find(key))
                {
                    sources.emplace_back(key);
                }
            }
            const bool from_index =
              std::any_of(sources.begin(), sources.end(),
                          [](const auto& s) { return s == "wheels" || s == "sdist"; });
            const auto distinct =
              sources.size() - (from_index && table.find("wheels") && table.find("sdist") ? 1 : 0);
            if (sources.empty() || distinct != 1)
            {
                return util::unexpected(parse_error(
                  file_name, table,
                  "package '" + package.name +
                    "' needs exactly one source (vcs, directory, "
                    "archive, or sdist/wheels)" +
                    (sources.empty() ? std::string() : ", not " + util::join(sources, " and "))));
            }
            if (package.version.empty() && (from_index || sources.front() == "archive"))
            {
                return util::unexpected(
                  parse_error(file_name, table, "package '" + package.name + "' has no version"));
            }
            if (const TomlValue* vcs = table.find("vcs"))
            {
                if (auto read = read_vcs(*vcs, file_name, package); !read)
                {
                    return util::unexpected(read.error());
                }
            }
            else if (const TomlValue* directory = table.find("directory"))
            {
                model::DirectUrl direct;
                direct.url = text_of(directory, "path");
                const TomlValue* editable = directory->find("editable");
                direct.editable = editable && editable->text == "true";
                package.url = direct.url;
                package.direct_url = std::move(direct);
            }
            else if (const TomlValue* archive = table.find("archive"))
            {
                const Artifact artifact = artifact_of(*archive);
                package.url = artifact.url;
                package.sha256 = artifact.sha256;
                package.size = artifact.size;
                model::DirectUrl direct;
                direct.url = artifact.url;
                direct.archive_sha256 = artifact.sha256;
                package.direct_url = std::move(direct);
            }
            else
            {
                read_index_artifacts(table, lock, package);
            }
            return package;
        }
    }

    auto count_pylock_entries(std::string_view text, std::string_view file_name)
      -> util::Result<std::size_t>
    {
        auto header = load(text, file_name);
        if (!header)
        {
            return util::unexpected(header.error());
        }
        const TomlValue* packages = header->root.find("packages");
        return packages ? packages->items.size() : std::size_t{ 0 };
    }

    auto parse_pylock(std::string_view text, std::string_view file_name,
                      const LockSelection& selection) -> util::Result<model::Lock>
    {
        auto header = load(text, file_name);
        if (!header)
        {
            return util::unexpected(header.error());
        }
        const TomlValue& root = header->root;
        model::Lock lock;
        lock.format = model::LockFormat::pylock;
        lock.format_version = root.find("lock-version")->text;
        lock.notes = std::move(header->notes);
        auto target = python_lock::target_for(selection, text_of(&root, "requires-python"),
                                              file_name, lock.notes);
        if (!target)
        {
            return util::unexpected(target.error());
        }
        pypi::MarkerEnvironment defaults = target->markers;
        defaults.dependency_groups = strings_of(root.find("default-groups"));
        pypi::MarkerEnvironment everything = target->markers;
        everything.extras = strings_of(root.find("extras"));
        everything.dependency_groups = strings_of(root.find("dependency-groups"));
        if (const TomlValue* environments = root.find("environments");
            environments && !environments->items.empty())
        {
            bool any = false;
            for (const auto& environment : environments->items)
            {
                auto holds = python_lock::evaluate(environment, defaults, file_name);
                if (!holds)
                {
                    return util::unexpected(holds.error());
                }
                any = any || *holds;
            }
            if (!any)
            {
                return util::unexpected(
                  error_at(util::ErrorKind::usage, file_name, *environments,
                           "the lock's environments do not include " + target->description,
                           "lock for this environment, or pass --platform for one it includes"));
            }
        }
        std::vector<std::string> left_out;
        if (const TomlValue* packages = root.find("packages"))
        {
            if (packages->kind != Kind::array)
            {
                return util::unexpected(
                  parse_error(file_name, *packages, "`packages` must be an array of tables"));
            }
            for (const auto& table : packages->items)
            {
                auto package = read_package(table, file_name, lock);
                if (!package)
                {
                    return util::unexpected(package.error());
                }
                const TomlValue* marker = table.find("marker");
                if (marker == nullptr)
                {
                    lock.packages.push_back(std::move(*package));
                    continue;
                }
                auto holds = python_lock::evaluate(*marker, defaults, file_name);
                if (!holds)
                {
                    return util::unexpected(holds.error());
                }
                if (*holds)
                {
                    lock.packages.push_back(std::move(*package));
                    continue;
                }
                auto optional = python_lock::evaluate(*marker, everything, file_name);
                if (!optional)
                {
                    return util::unexpected(optional.error());
                }
                if (*optional)
                {
                    lock.optional_packages.push_back(std::move(*package));
                    continue;
                }
                left_out.push_back(package->name +
                                   (package->version.empty() ? "" : " " + package->version) + " (" +
                                   marker->text + ")");
            }
        }
        python_lock::finish(lock, file_name, *target, left_out);
        return lock;
    }
}
