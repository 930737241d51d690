#include "formats/pip_reference.hpp"

#include <algorithm>
#include <array>

#include "pypi/pip_line.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        constexpr std::array<std::string_view, 4> vcs_names{ "git", "hg", "svn", "bzr" };

        // "https://host/p.git#subdirectory=x" -> {"https://host/p.git", "#subdirectory=x"}.
        auto split_fragment(std::string_view url) -> std::pair<std::string_view, std::string_view>
        {
            const auto hash = url.find('#');
            if (hash == std::string_view::npos)
            {
                return { url, {} };
            }
            return { url.substr(0, hash), url.substr(hash) };
        }

        auto vcs_line(const model::Package& package, const model::DirectUrl& url) -> std::string
        {
            const auto [base, fragment] = split_fragment(url.url);
            const std::string scheme = url.url.starts_with(url.vcs + "+") ? "" : url.vcs + "+";
            const std::string& revision =
              url.commit_id.empty() ? url.requested_revision : url.commit_id;
            std::string line = scheme + std::string(base) +
                               (revision.empty() ? std::string() : "@" + revision) +
                               std::string(fragment);
            if (url.editable)
            {
                return "-e " + line + (fragment.empty() ? "#" : "&") + "egg=" + package.name;
            }
            return package.name + " @ " + line;
        }

        auto archive_line(const model::Package& package, std::string_view url,
                          const std::string& sha256) -> std::string
        {
            std::string line = package.name + " @ " + std::string(url);
            if (!sha256.empty() && url.find('#') == std::string_view::npos)
            {
                line += "#sha256=" + sha256;
            }
            return line;
        }

        auto local_line(const model::Package& package, const std::string& path, bool editable)
          -> std::string
        {
            if (editable)
            {
                return "-e " + path;
            }
            // A file: URL can carry the name (PEP 508); a relative path cannot, and pip reads
            // the project's name from the project itself.
            return path.starts_with("file:") ? package.name + " @ " + path : path;
        }

        // Drops a URL hash fragment whose value is "None" ("...whl#md5=None"), which conda-lock
        // wrote for pip packages it had no hash for.
        auto without_none_hash(std::string_view line) -> std::string
        {
            std::string out(line);
            for (const std::string_view algorithm : { "md5", "sha1", "sha256", "sha384", "sha512" })
            {
                const std::string needle = "#" + std::string(algorithm) + "=None";
                for (auto at = out.find(needle); at != std::string::npos; at = out.find(needle))
                {
                    const auto end = at + needle.size();
                    if (end < out.size() && !util::is_space(out[end]) && out[end] != ';')
                    {
                        break;
                    }
                    out.erase(at, needle.size());
                }
            }
            return out;
        }

        auto exact_version(const pypi::Requirement& requirement) -> std::string
        {
            const std::string specifier = requirement.specifier().to_string();
            if (specifier.find(',') != std::string::npos ||
                specifier.find('*') != std::string::npos)
            {
                return {};
            }
            if (specifier.starts_with("==="))
            {
                return std::string(util::trim(std::string_view(specifier).substr(3)));
            }
            if (specifier.starts_with("=="))
            {
                return std::string(util::trim(std::string_view(specifier).substr(2)));
            }
            return {};
        }
    }

    auto is_pypi_file_url(std::string_view url) -> bool
    {
        return url.starts_with("https://files.pythonhosted.org/") ||
               url.starts_with("http://files.pythonhosted.org/");
    }

    auto is_local_path(std::string_view locator) -> bool
    {
        if (locator.starts_with("file:"))
        {
            return true;
        }
        if (locator.find("://") != std::string_view::npos)
        {
            return false;
        }
        for (const auto vcs : vcs_names)
        {
            if (locator.starts_with(std::string(vcs) + "+"))
            {
                return false;
            }
        }
        return !locator.empty();
    }

    namespace
    {
        // A VCS locator taken apart: the URL left, and what its fragment, query and '@' said.
        struct VcsParts
        {
            std::string_view rest;
            std::string fragment; // "#subdirectory=dir", kept on the URL
            std::string revision; // the resolved commit (or pip's @ref)
            std::string requested;
        };

        // pixi writes the resolved commit as the fragment; pip-style fragments are
        // egg=name&subdirectory=dir.
        void take_fragment(VcsParts& parts)
        {
            const auto hash = parts.rest.find('#');
            if (hash == std::string_view::npos)
            {
                return;
            }
            const auto value = parts.rest.substr(hash + 1);
            parts.rest = parts.rest.substr(0, hash);
            for (const auto part : util::split(value, '&'))
            {
                if (part.starts_with("subdirectory="))
                {
                    parts.fragment = "#" + std::string(part);
                }
                else if (part.find('=') == std::string_view::npos && !part.empty())
                {
                    parts.revision = std::string(part);
                }
            }
        }

        // pixi: ?rev=<r>, ?branch=<b>, ?tag=<t>, ?subdirectory=<dir>.
        void take_query(VcsParts& parts)
        {
            const auto query = parts.rest.find('?');
            if (query == std::string_view::npos)
            {
                return;
            }
            for (const auto part : util::split(parts.rest.substr(query + 1), '&'))
            {
                for (const std::string_view key : { "rev=", "branch=", "tag=" })
                {
                    if (part.starts_with(key))
                    {
                        parts.requested = std::string(part.substr(key.size()));
                    }
                }
                if (part.starts_with("subdirectory="))
                {
                    parts.fragment = "#" + std::string(part);
                }
            }
            parts.rest = parts.rest.substr(0, query);
        }

        // pip: the revision follows the last '@' of the path (not the user@host part).
        void take_path_revision(VcsParts& parts)
        {
            const auto scheme_end = parts.rest.find("://");
            const auto path_start = parts.rest.find('/', scheme_end + 3);
            const auto at = parts.rest.rfind('@');
            if (at == std::string_view::npos || path_start == std::string_view::npos ||
                at <= path_start)
            {
                return;
            }
            const auto ref = std::string(parts.rest.substr(at + 1));
            parts.rest = parts.rest.substr(0, at);
            if (parts.revision.empty())
            {
                parts.revision = ref;
            }
            else if (parts.requested.empty())
            {
                parts.requested = ref;
            }
        }

        auto is_known_vcs(std::string_view vcs) -> bool
        {
            return std::any_of(vcs_names.begin(), vcs_names.end(),
                               [&](std::string_view name) { return util::iequals(vcs, name); });
        }
    }

    auto vcs_direct_url(std::string_view locator) -> std::optional<model::DirectUrl>
    {
        const auto plus = locator.find('+');
        if (plus == std::string_view::npos)
        {
            return std::nullopt;
        }
        const auto vcs = locator.substr(0, plus);
        if (!is_known_vcs(vcs) || locator.find("://") == std::string_view::npos)
        {
            return std::nullopt;
        }
        VcsParts parts{ locator.substr(plus + 1), {}, {}, {} };
        take_fragment(parts);
        take_query(parts);
        take_path_revision(parts);
        model::DirectUrl url;
        url.vcs = util::to_lower(vcs);
        url.url = std::string(parts.rest) + parts.fragment;
        const std::string& revision = parts.revision;
        const bool is_commit = (revision.size() == 40 || revision.size() == 64) &&
                               util::is_hex(revision) && util::to_lower(revision) == revision;
        if (is_commit)
        {
            url.commit_id = revision;
            url.requested_revision = parts.requested;
        }
        else
        {
            url.requested_revision = revision.empty() ? parts.requested : revision;
        }
        return url;
    }

    auto pip_requirement(const model::Package& package) -> std::string
    {
        if (package.direct_url)
        {
            const auto& url = *package.direct_url;
            if (!url.vcs.empty())
            {
                return vcs_line(package, url);
            }
            if (is_local_path(url.url))
            {
                return local_line(package, url.url, url.editable);
            }
            return archive_line(package, url.url,
                                url.archive_sha256.empty() ? package.sha256 : url.archive_sha256);
        }
        if (!package.url.empty() && !is_pypi_file_url(package.url))
        {
            if (const auto vcs = vcs_direct_url(package.url))
            {
                return vcs_line(package, *vcs);
            }
            if (is_local_path(package.url))
            {
                return local_line(package, package.url, false);
            }
            return archive_line(package, package.url, package.sha256);
        }
        return package.version.empty() ? package.name : package.name + "==" + package.version;
    }

    auto package_from_pip_line(std::string_view line) -> std::optional<model::Package>
    {
        const std::string cleaned = without_none_hash(line);
        const auto parsed = pypi::parse_pip_line(cleaned);
        if (!parsed)
        {
            return std::nullopt;
        }
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = parsed->name;
        for (const auto& hash : parsed->hashes)
        {
            if (hash.starts_with("sha256:"))
            {
                package.sha256 = util::to_lower(std::string_view(hash).substr(7));
            }
        }
        if (parsed->file_version)
        {
            package.version = parsed->file_version->to_string();
        }
        switch (parsed->kind)
        {
            case pypi::PipLineKind::comment:
            case pypi::PipLineKind::option:
                return std::nullopt;
            case pypi::PipLineKind::requirement:
                if (parsed->requirement)
                {
                    package.version = exact_version(*parsed->requirement);
                }
                break;
            case pypi::PipLineKind::url:
                if (is_local_path(parsed->target))
                {
                    package.direct_url = model::DirectUrl{};
                    package.direct_url->url = std::string(split_fragment(parsed->target).first);
                    break;
                }
                package.url = std::string(split_fragment(parsed->target).first);
                break;
            case pypi::PipLineKind::vcs:
            case pypi::PipLineKind::editable:
            case pypi::PipLineKind::path:
                if (auto vcs = vcs_direct_url(parsed->target))
                {
                    package.direct_url = std::move(*vcs);
                }
                else
                {
                    package.direct_url = model::DirectUrl{};
                    package.direct_url->url = parsed->target;
                }
                package.direct_url->editable = parsed->kind == pypi::PipLineKind::editable;
                break;
        }
        return package;
    }
}
