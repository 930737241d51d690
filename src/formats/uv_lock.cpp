#include "formats/uv_lock.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/explicit.hpp"
#include "formats/pip_reference.hpp"
#include "formats/python_lock.hpp"
#include "formats/toml_document.hpp"
#include "pypi/name.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using python_lock::Artifact;
        using python_lock::error_at;
        using Kind = TomlValue::Kind;

        constexpr std::array<std::string_view, 7> source_kinds{ "registry", "git",       "url",
                                                                "path",     "directory", "editable",
                                                                "virtual" };

        struct Dependency
        {
            std::string key; // normalized name
            std::string name;
            std::string version;
            const TomlValue* marker = nullptr;
            std::vector<std::string> extras;
            const TomlValue* where = nullptr;
        };

        struct Entry
        {
            const TomlValue* table = nullptr;
            std::string name;
            std::string key;
            std::string version;
            std::string source_kind;
            std::string source_value;
            std::vector<Dependency> dependencies;
            std::map<std::string, std::vector<Dependency>> extras; // optional-dependencies
            std::map<std::string, std::vector<Dependency>> groups; // dev-dependencies
            std::vector<Artifact> wheels;
            std::optional<Artifact> sdist;
        };

        auto parse_error(std::string_view file_name, const TomlValue& where, std::string message)
          -> util::Error
        {
            return error_at(util::ErrorKind::parse, file_name, where, std::move(message));
        }

        auto string_member(const TomlValue& table, std::string_view key, std::string_view file_name,
                           std::string& out) -> util::Result<bool>
        {
            const TomlValue* value = table.find(key);
            if (value == nullptr)
            {
                return false;
            }
            if (value->kind != Kind::string)
            {
                return util::unexpected(parse_error(file_name, *value,
                                                    "'" + std::string(key) +
                                                      "' must be a string, not " +
                                                      std::string(to_string(value->kind))));
            }
            out = value->text;
            return true;
        }

        auto file_name_of(std::string_view location) -> std::string
        {
            location = location.substr(0, location.find_first_of("?#"));
            const auto slash = location.rfind('/');
            return std::string(slash == std::string_view::npos ? location
                                                               : location.substr(slash + 1));
        }

        auto read_artifact(const TomlValue& table, std::string_view file_name)
          -> util::Result<Artifact>
        {
            if (table.kind != Kind::table)
            {
                return util::unexpected(
                  parse_error(file_name, table, "a wheel or sdist must be a table"));
            }
            Artifact artifact;
            std::string path;
            std::string hash;
            for (const auto& [key, out] :
                 { std::pair<std::string_view, std::string*>{ "url", &artifact.url },
                   { "path", &path },
                   { "filename", &artifact.filename },
                   { "hash", &hash } })
            {
                if (auto read = string_member(table, key, file_name, *out); !read)
                {
                    return util::unexpected(read.error());
                }
            }
            if (artifact.url.empty())
            {
                artifact.url = path;
            }
            if (artifact.filename.empty())
            {
                artifact.filename = file_name_of(artifact.url);
            }
            artifact.url = strip_credentials(artifact.url);
            artifact.sha256 = python_lock::sha256_of_hash(hash);
            if (const TomlValue* size = table.find("size"); size && size->kind == Kind::integer)
            {
                artifact.size = util::parse_uint(size->text);
            }
            return artifact;
        }

        auto read_dependencies(const TomlValue& list, std::string_view file_name,
                               std::vector<Dependency>& out) -> util::Result<void>
        {
            if (list.kind != Kind::array)
            {
                return util::unexpected(
                  parse_error(file_name, list, "dependencies must be an array of tables"));
            }
            for (const auto& item : list.items)
            {
                if (item.kind != Kind::table)
                {
                    return util::unexpected(
                      parse_error(file_name, item, "a dependency must be a table"));
                }
                Dependency dependency;
                dependency.where = &item;
                if (auto read = string_member(item, "name", file_name, dependency.name);
                    !read || !*read)
                {
                    return util::unexpected(
                      read ? parse_error(file_name, item, "a dependency has no name")
                           : read.error());
                }
                if (auto read = string_member(item, "version", file_name, dependency.version);
                    !read)
                {
                    return util::unexpected(read.error());
                }
                dependency.key = pypi::normalize_name(dependency.name);
                dependency.marker = item.find("marker");
                if (const TomlValue* extras = item.find("extra"))
                {
                    for (const auto& extra : extras->items)
                    {
                        dependency.extras.push_back(pypi::normalize_name(extra.text));
                    }
                }
                out.push_back(std::move(dependency));
            }
            return {};
        }

        auto read_groups(const TomlValue* table, std::string_view file_name,
                         std::map<std::string, std::vector<Dependency>>& out) -> util::Result<void>
        {
            if (table == nullptr)
            {
                return {};
            }
            for (const auto& [group, list] : table->members)
            {
                if (auto read =
                      read_dependencies(list, file_name, out[pypi::normalize_name(group)]);
                    !read)
                {
                    return read;
                }
            }
            return {};
        }

        // `source = { <kind> = "<value>" }`: exactly one key of a known kind.
        auto read_source(const TomlValue& table, std::string_view file_name, Entry& entry)
          -> util::Result<void>
        {
            const TomlValue* source = table.find("source");
            if (source == nullptr || source->kind != Kind::table || source->members.size() != 1)
            {
                return util::unexpected(parse_error(
                  file_name, source ? *source : table,
                  "package '" + entry.name +
                    "' needs a source: one of registry, git, url, path, directory, editable, "
                    "virtual"));
            }
            const auto& [kind, value] = source->members.front();
            if (std::find(source_kinds.begin(), source_kinds.end(), kind) == source_kinds.end())
            {
                return util::unexpected(error_at(
                  util::ErrorKind::unsupported, file_name, value,
                  "package '" + entry.name + "' has a source of unknown kind '" + kind +
                    "' (this envcheck reads registry, git, url, path, directory, editable, "
                    "virtual)"));
            }
            if (value.kind != Kind::string)
            {
                return util::unexpected(parse_error(file_name, value,
                                                    "the source of '" + entry.name +
                                                      "' must be a string, not " +
                                                      std::string(to_string(value.kind))));
            }
            entry.source_kind = kind;
            entry.source_value = value.text;
            return {};
        }

        auto read_entry(const TomlValue& table, std::string_view file_name) -> util::Result<Entry>
        {
            if (table.kind != Kind::table)
            {
                return util::unexpected(
                  parse_error(file_name, table, "a [[package]] must be a table"));
            }
            Entry entry;
            entry.table = &table;
            if (auto read = string_member(table, "name", file_name, entry.name); !read || !*read)
            {
                return util::unexpected(
                  read ? parse_error(file_name, table, "a package has no name") : read.error());
            }
            entry.key = pypi::normalize_name(entry.name);
            if (auto read = read_source(table, file_name, entry); !read)
            {
                return util::unexpected(read.error());
            }
            if (auto read = string_member(table, "version", file_name, entry.version); !read)
            {
                return util::unexpected(read.error());
            }
            // Local projects may have a dynamic version; everything else is a release.
            const auto& kind = entry.source_kind;
            const bool local =
              kind == "virtual" || kind == "editable" || kind == "directory" || kind == "path";
            if (entry.version.empty() && !local)
            {
                return util::unexpected(parse_error(file_name, table,
                                                    "package '" + entry.name + "' (from " + kind +
                                                      " " + entry.source_value +
                                                      ") has no version"));
            }
            if (const TomlValue* dependencies = table.find("dependencies"))
            {
                if (auto read = read_dependencies(*dependencies, file_name, entry.dependencies);
                    !read)
                {
                    return util::unexpected(read.error());
                }
            }
            if (auto read =
                  read_groups(table.find("optional-dependencies"), file_name, entry.extras);
                !read)
            {
                return util::unexpected(read.error());
            }
            if (auto read = read_groups(table.find("dev-dependencies"), file_name, entry.groups);
                !read)
            {
                return util::unexpected(read.error());
            }
            if (const TomlValue* wheels = table.find("wheels"))
            {
                for (const auto& wheel : wheels->items)
                {
                    auto artifact = read_artifact(wheel, file_name);
                    if (!artifact)
                    {
                        return util::unexpected(artifact.error());
                    }
                    entry.wheels.push_back(std::move(*artifact));
                }
            }
            if (const TomlValue* sdist = table.find("sdist"))
            {
                auto artifact = read_artifact(*sdist, file_name);
                if (!artifact)
                {
                    return util::unexpected(artifact.error());
                }
                entry.sdist = std::move(*artifact);
            }
            return entry;
        }

        struct Document
        {
            TomlValue root;
            std::vector<Entry> entries;
            std::vector<std::string> notes;
        };

        // Parses and checks the document; entries point into `document.root`.
        auto load(std::string_view text, std::string_view file_name, Document& document)
          -> util::Result<void>
        {
            auto root = parse_toml(text, file_name);
            if (!root)
            {
                return util::unexpected(root.error());
            }
            document.root = std::move(*root);
            const TomlValue& top = document.root;
            const TomlValue* version = top.find("version");
            if (version == nullptr || version->kind != Kind::integer)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, "not a uv.lock: no integer `version` at the top",
                  util::SourceLocation{ std::string(file_name),
                                        version ? version->position.line : 1,
                                        version ? version->position.column : 1 }));
            }
            if (version->text != std::to_string(uv_lock_version))
            {
                return util::unexpected(
                  error_at(util::ErrorKind::unsupported, file_name, *version,
                           "uv.lock version " + version->text +
                             " is not supported (this envcheck reads version " +
                             std::to_string(uv_lock_version) + ")",
                           "upgrade envcheck, or write the lock with a uv that writes version 1"));
            }
            if (const TomlValue* revision = top.find("revision");
                revision && revision->kind == Kind::integer)
            {
                const auto number = util::parse_int(revision->text);
                if (number && *number > uv_lock_newest_revision)
                {
                    document.notes.push_back(std::string(file_name) + ": uv.lock revision " +
                                             revision->text + " is newer than envcheck knows (" +
                                             std::to_string(uv_lock_newest_revision) +
                                             "); fields added since are not read");
                }
            }
            if (const TomlValue* packages = top.find("package"))
            {
                if (packages->kind != Kind::array)
                {
                    return util::unexpected(
                      parse_error(file_name, *packages, "`package` must be an array of tables"));
                }
                for (const auto& table : packages->items)
                {
                    auto entry = read_entry(table, file_name);
                    if (!entry)
                    {
                        return util::unexpected(entry.error());
                    }
                    document.entries.push_back(std::move(*entry));
                }
            }
            return {};
        }

        auto is_url(std::string_view text) -> bool
        {
            return text.find("://") != std::string_view::npos;
        }

        auto to_package(const Entry& entry, std::string_view file_name, model::Lock& lock)
          -> model::Package
        {
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = entry.name;
            package.version = entry.version;
            package.source = std::string(file_name);
            const auto artifact = python_lock::representative(entry.wheels, entry.sdist);
            if (artifact)
            {
                package.sha256 = artifact->sha256;
                package.filename = artifact->filename;
                package.size = artifact->size;
            }
            const std::string& kind = entry.source_kind;
            const std::string value = strip_credentials(entry.source_value);
            if (kind == "registry")
            {
                python_lock::add_index(lock, value, !is_url(value));
                if (artifact && is_url(artifact->url) && !is_pypi_file_url(artifact->url))
                {
                    package.url = artifact->url;
                }
            }
            else if (kind == "git")
            {
                package.url = "git+" + value;
                package.direct_url = vcs_direct_url(package.url);
            }
            else if (kind == "url")
            {
                package.url = value;
                package.direct_url = model::DirectUrl{};
                package.direct_url->url = value;
                package.direct_url->archive_sha256 = package.sha256;
            }
            else
            {
                package.url = value;
                package.direct_url = model::DirectUrl{};
                package.direct_url->url = value;
                package.direct_url->editable = kind == "editable";
            }
            return package;
        }

        enum class Need
        {
            none,
            optional,
            required,
        };

        class Walk
        {
        public:
            Walk(const std::vector<Entry>& entries, const pypi::MarkerEnvironment& markers,
                 std::string_view file_name)
              : m_entries(entries)
              , m_markers(markers)
              , m_file_name(file_name)
              , m_need(entries.size(), Need::none)
              , m_excluded(entries.size())
            {
                for (std::size_t i = 0; i < entries.size(); ++i)
                {
                    m_by_key[entries[i].key].push_back(i);
                }
            }

            // Follows `dependencies` at `need`, and everything they lead to; `direct` gets the
            // packages the list itself names.
            auto follow(const std::vector<Dependency>& dependencies, Need need,
                        std::vector<std::size_t>* direct = nullptr) -> util::Result<void>
            {
                if (auto queued = enqueue(dependencies, need, direct); !queued)
                {
                    return queued;
                }
                return drain();
            }

            // Marks a package needed (with the extras given), and everything it leads to.
            auto visit(std::size_t index, const std::vector<std::string>& extras, Need need)
              -> util::Result<void>
            {
                m_queue.push_back(Task{ index, extras, need });
                return drain();
            }

            [[nodiscard]] auto need(std::size_t index) const -> Need { return m_need[index]; }
            [[nodiscard]] auto excluded_by(std::size_t index) const -> const std::string&
            {
                return m_excluded[index];
            }

        private:
            struct Task
            {
                std::size_t index;
                std::vector<std::string> extras;
                Need need;
            };

            // The edges whose markers hold, as tasks (a work list, not recursion: a lock's
            // dependency chains can be as long as the lock).
            auto enqueue(const std::vector<Dependency>& dependencies, Need need,
                         std::vector<std::size_t>* direct) -> util::Result<void>
            {
                for (const auto& dependency : dependencies)
                {
                    if (dependency.marker)
                    {
                        auto holds =
                          python_lock::evaluate(*dependency.marker, m_markers, m_file_name);
                        if (!holds)
                        {
                            return util::unexpected(holds.error());
                        }
                        if (!*holds)
                        {
                            for (const auto index : candidates(dependency))
                            {
                                if (m_excluded[index].empty())
                                {
                                    m_excluded[index] = dependency.marker->text;
                                }
                            }
                            continue;
                        }
                    }
                    const auto found = candidates(dependency);
                    if (found.empty())
                    {
                        return util::unexpected(parse_error(
                          m_file_name, *dependency.where,
                          "dependency '" + dependency.name +
                            (dependency.version.empty() ? "" : " " + dependency.version) +
                            "' is not a package of the lock"));
                    }
                    const std::size_t index = found.front();
                    if (direct)
                    {
                        direct->push_back(index);
                    }
                    m_queue.push_back(Task{ index, dependency.extras, need });
                }
                return {};
            }

            auto drain() -> util::Result<void>
            {
                while (!m_queue.empty())
                {
                    Task task = std::move(m_queue.back());
                    m_queue.pop_back();
                    if (auto done = run(task.index, task.extras, task.need); !done)
                    {
                        m_queue.clear();
                        return done;
                    }
                }
                return {};
            }

            auto run(std::size_t index, const std::vector<std::string>& extras, Need need)
              -> util::Result<void>
            {
                const bool fresh = m_need[index] < need;
                m_need[index] = std::max(m_need[index], need);
                std::vector<const std::vector<Dependency>*> lists;
                if (fresh)
                {
                    lists.push_back(&m_entries[index].dependencies);
                }
                for (const auto& extra : extras)
                {
                    const auto key = std::tuple(index, extra, need);
                    if (m_extras_seen.insert(key).second)
                    {
                        if (const auto found = m_entries[index].extras.find(extra);
                            found != m_entries[index].extras.end())
                        {
                            lists.push_back(&found->second);
                        }
                    }
                }
                for (const auto* list : lists)
                {
                    if (auto queued = enqueue(*list, need, nullptr); !queued)
                    {
                        return queued;
                    }
                }
                return {};
            }

            auto candidates(const Dependency& dependency) const -> std::vector<std::size_t>
            {
                std::vector<std::size_t> out;
                const auto found = m_by_key.find(dependency.key);
                if (found == m_by_key.end())
                {
                    return out;
                }
                for (const auto index : found->second)
                {
                    if (dependency.version.empty() ||
                        m_entries[index].version == dependency.version)
                    {
                        out.push_back(index);
                    }
                }
                return out;
            }

            const std::vector<Entry>& m_entries;
            const pypi::MarkerEnvironment& m_markers;
            std::string_view m_file_name;
            std::vector<Need> m_need;
            std::vector<std::string> m_excluded;
            std::map<std::string, std::vector<std::size_t>> m_by_key;
            std::set<std::tuple<std::size_t, std::string, Need>> m_extras_seen;
            std::vector<Task> m_queue;
        };

        // The workspace members: [manifest] members, else the project at ".", else every
        // virtual or editable project.
        auto roots(const Document& document) -> std::vector<std::size_t>
        {
            std::vector<std::size_t> out;
            const auto& entries = document.entries;
            if (const TomlValue* manifest = document.root.find("manifest"))
            {
                if (const TomlValue* members = manifest->find("members"))
                {
                    for (const auto& member : members->items)
                    {
                        const auto key = pypi::normalize_name(member.text);
                        for (std::size_t i = 0; i < entries.size(); ++i)
                        {
                            if (entries[i].key == key)
                            {
                                out.push_back(i);
                            }
                        }
                    }
                }
            }
            for (const bool only_here : { true, false })
            {
                for (std::size_t i = 0; i < entries.size() && out.empty(); ++i)
                {
                    const auto& entry = entries[i];
                    if ((entry.source_kind == "virtual" || entry.source_kind == "editable") &&
                        (!only_here || entry.source_value == "."))
                    {
                        out.push_back(i);
                    }
                }
            }
            return out;
        }
        // From the members: their dependencies and `dev` group as required, then their extras
        // and other groups as optional; `direct` gets the packages the members name.
        auto walk_members(Walk& walk, const std::vector<Entry>& entries,
                          const std::vector<std::size_t>& members, std::vector<std::size_t>& direct)
          -> util::Result<void>
        {
            for (const Need need : { Need::required, Need::optional })
            {
                for (const auto member : members)
                {
                    if (auto visited = walk.visit(member, {}, Need::required); !visited)
                    {
                        return visited;
                    }
                    const auto& entry = entries[member];
                    for (const auto& [group, list] : entry.groups)
                    {
                        if ((group == "dev") == (need == Need::required))
                        {
                            if (auto followed = walk.follow(
                                  list, need, need == Need::required ? &direct : nullptr);
                                !followed)
                            {
                                return followed;
                            }
                        }
                    }
                    if (need == Need::required)
                    {
                        std::vector<std::size_t> from_member;
                        if (auto followed = walk.follow(entry.dependencies, need, &from_member);
                            !followed)
                        {
                            return followed;
                        }
                        direct.insert(direct.end(), from_member.begin(), from_member.end());
                        continue;
                    }
                    for (const auto& [extra, list] : entry.extras)
                    {
                        if (auto followed = walk.follow(list, need); !followed)
                        {
                            return followed;
                        }
                    }
                }
            }
            return {};
        }

    }

    auto count_uv_lock_entries(std::string_view text, std::string_view file_name)
      -> util::Result<std::size_t>
    {
        Document document;
        if (auto loaded = load(text, file_name, document); !loaded)
        {
            return util::unexpected(loaded.error());
        }
        return document.entries.size();
    }

    auto parse_uv_lock(std::string_view text, std::string_view file_name,
                       const LockSelection& selection) -> util::Result<model::Lock>
    {
        Document document;
        if (auto loaded = load(text, file_name, document); !loaded)
        {
            return util::unexpected(loaded.error());
        }
        model::Lock lock;
        lock.format = model::LockFormat::uv;
        lock.format_version = std::to_string(uv_lock_version);
        lock.notes = std::move(document.notes);
        std::string requires_python;
        if (const TomlValue* value = document.root.find("requires-python");
            value && value->kind == Kind::string)
        {
            requires_python = value->text;
        }
        auto target = python_lock::target_for(selection, requires_python, file_name, lock.notes);
        if (!target)
        {
            return util::unexpected(target.error());
        }
        const auto& entries = document.entries;
        Walk walk(entries, target->markers, file_name);
        std::vector<std::size_t> members = roots(document);
        std::vector<std::size_t> direct;
        if (members.empty())
        {
            // No project to start from: every entry is required.
            for (std::size_t i = 0; i < entries.size(); ++i)
            {
                if (auto visited = walk.visit(i, {}, Need::required); !visited)
                {
                    return util::unexpected(visited.error());
                }
            }
        }
        if (auto walked = walk_members(walk, entries, members, direct); !walked)
        {
            return util::unexpected(walked.error());
        }
        std::vector<std::string> left_out;
        for (std::size_t i = 0; i < entries.size(); ++i)
        {
            const auto& entry = entries[i];
            const std::string label =
              entry.name + (entry.version.empty() ? "" : " " + entry.version);
            if (walk.need(i) == Need::none)
            {
                left_out.push_back(label + " (" +
                                   (walk.excluded_by(i).empty()
                                      ? std::string("required by nothing selected")
                                      : walk.excluded_by(i)) +
                                   ")");
                continue;
            }
            if (entry.source_kind == "virtual")
            {
                continue; // a project uv does not install
            }
            auto package = to_package(entry, file_name, lock);
            package.requested = std::find(direct.begin(), direct.end(), i) != direct.end();
            (walk.need(i) == Need::required ? lock.packages : lock.optional_packages)
              .push_back(std::move(package));
        }
        python_lock::finish(lock, file_name, *target, left_out);
        return lock;
    }
}
