#include "formats/explicit.hpp"

#include <algorithm>
#include <array>

#include "formats/pip_reference.hpp"
#include "util/strings.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::formats
{
    namespace
    {
        // util::is_hex without a call per character: a 10 MB file has 80,000 hashes.
        auto is_hex_digits(std::string_view text) -> bool
        {
            static constexpr auto table = []
            {
                std::array<bool, 256> hex{};
                for (const char c : std::string_view("0123456789abcdefABCDEF"))
                {
                    hex[static_cast<unsigned char>(c)] = true;
                }
                return hex;
            }();
            bool all = true;
            for (const char c : text)
            {
                all &= table[static_cast<unsigned char>(c)];
            }
            return all;
        }

        // find_last_of("/\\") without its memchr per character (a tenth of reading an
        // @EXPLICIT file went there).
        auto last_separator(std::string_view path) -> std::size_t
        {
            for (std::size_t i = path.size(); i > 0; --i)
            {
                if (path[i - 1] == '/' || path[i - 1] == '\\')
                {
                    return i - 1;
                }
            }
            return std::string_view::npos;
        }

        auto explicit_error(std::string_view file_name, std::size_t line, std::size_t column,
                            std::string message) -> util::Error
        {
            return util::make_error(
              util::ErrorKind::parse, std::move(message),
              util::SourceLocation{ std::string(file_name), line, column },
              "each line after @EXPLICIT must be a .conda or .tar.bz2 URL with an optional "
              "#<md5> or #sha256:<sha256> fragment (CEP 23)");
        }

        // The pieces of "name-version-build.conda" as views into `filename`.
        struct ArtifactParts
        {
            std::string_view name;
            std::string_view version;
            std::string_view build;
            std::string_view extension;
        };

        auto split_artifact_name(std::string_view filename) -> std::optional<ArtifactParts>
        {
            ArtifactParts parts;
            for (const std::string_view extension :
                 { std::string_view(".tar.bz2"), std::string_view(".conda") })
            {
                if (filename.ends_with(extension))
                {
                    parts.extension = extension;
                    filename.remove_suffix(extension.size());
                    break;
                }
            }
            if (parts.extension.empty())
            {
                return std::nullopt;
            }
            const auto build_dash = filename.rfind('-');
            if (build_dash == std::string_view::npos || build_dash == 0)
            {
                return std::nullopt;
            }
            const auto version_dash = filename.rfind('-', build_dash - 1);
            if (version_dash == std::string_view::npos || version_dash == 0)
            {
                return std::nullopt;
            }
            parts.name = filename.substr(0, version_dash);
            parts.version = filename.substr(version_dash + 1, build_dash - version_dash - 1);
            parts.build = filename.substr(build_dash + 1);
            if (parts.version.empty() || parts.build.empty())
            {
                return std::nullopt;
            }
            return parts;
        }

        // "# pip <requirement>" (conda-lock's explicit render: "name @ url#sha256=hex", a VCS URL,
        // or "name === version"): the requirement as pip reads it, without credentials; a note
        // for a line that is none, or that names no package (a local project: "./").
        void read_pip_comment(std::string_view requirement, std::size_t line_number,
                              model::Lock& lock)
        {
            auto package = package_from_pip_line(util::trim(requirement));
            const std::string where = "line " + std::to_string(line_number) + ": ";
            if (!package)
            {
                lock.notes.push_back(where + "'# pip' line is not a pip requirement; not read");
                return;
            }
            if (package->name.empty())
            {
                lock.notes.push_back(where + "'# pip " + std::string(util::trim(requirement)) +
                                     "' installs a local project without naming it; not compared");
                return;
            }
            package->url = strip_credentials(package->url);
            if (package->direct_url)
            {
                package->direct_url->url = strip_credentials(package->direct_url->url);
            }
            lock.packages.push_back(std::move(*package));
        }
    }

    auto parse_artifact_name(std::string_view filename) -> std::optional<ArtifactName>
    {
        const auto parts = split_artifact_name(filename);
        if (!parts)
        {
            return std::nullopt;
        }
        return ArtifactName{ std::string(parts->name), std::string(parts->version),
                             std::string(parts->build), std::string(parts->extension) };
    }

    auto strip_credentials(std::string_view url) -> std::string
    {
        return util::redact_url(url);
    }

    auto read_artifact_url(std::string_view url, model::Package& package) -> bool
    {
        std::string clean = strip_credentials(url);
        const std::string_view view(clean);
        const auto slash = last_separator(view);
        const auto filename = slash == std::string_view::npos ? view : view.substr(slash + 1);
        const auto parts = split_artifact_name(filename);
        if (!parts)
        {
            return false;
        }
        package.manager = model::Manager::conda;
        package.name.assign(parts->name);
        package.version.assign(parts->version);
        package.build.assign(parts->build);
        package.filename.assign(filename);
        if (slash != std::string_view::npos)
        {
            const auto directory = view.substr(0, slash);
            const auto subdir_slash = last_separator(directory);
            const auto last = subdir_slash == std::string_view::npos
                                ? directory
                                : directory.substr(subdir_slash + 1);
            // Subdirs are "noarch" or "<os>-<arch>" ("linux-64", "osx-arm64", "win-64").
            if (last == "noarch" || (last.find('-') != std::string_view::npos &&
                                     last.find('.') == std::string_view::npos))
            {
                package.subdir.assign(last);
                package.channel.assign(subdir_slash == std::string_view::npos
                                         ? std::string_view()
                                         : directory.substr(0, subdir_slash));
            }
            else
            {
                package.channel.assign(directory);
            }
        }
        package.url = std::move(clean);
        return true;
    }

    auto package_from_url(std::string_view url) -> std::optional<model::Package>
    {
        model::Package package;
        if (!read_artifact_url(url, package))
        {
            return std::nullopt;
        }
        return package;
    }

    auto is_explicit_file(std::string_view text) -> bool
    {
        for (const auto line : util::split_lines(text))
        {
            if (util::trim(line) == "@EXPLICIT")
            {
                return true;
            }
        }
        return false;
    }

    auto parse_explicit(std::string_view text, std::string_view file_name)
      -> util::Result<model::Lock>
    {
        model::Lock lock;
        lock.format = model::LockFormat::explicit_;
        lock.packages.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
        bool in_body = false;
        std::size_t line_number = 0;
        for (const auto raw : util::split_lines(text))
        {
            ++line_number;
            const auto line = util::trim(raw);
            const auto column = static_cast<std::size_t>(line.data() - raw.data()) + 1;
            if (line.empty())
            {
                continue;
            }
            if (line.front() == '#')
            {
                const auto comment = util::trim(line.substr(1));
                if (comment.starts_with("platform:"))
                {
                    lock.machine.platform = std::string(util::trim(comment.substr(9)));
                }
                else if (in_body && comment.starts_with("pip "))
                {
                    read_pip_comment(comment.substr(4), line_number, lock);
                }
                continue;
            }
            if (line == "@EXPLICIT")
            {
                in_body = true;
                continue;
            }
            if (!in_body)
            {
                return util::unexpected(explicit_error(
                  file_name, line_number, column, "a package line before the @EXPLICIT marker"));
            }
            std::string_view location = line;
            std::string_view hash_text;
            bool is_md5 = false;
            if (const auto hash = location.rfind('#'); hash != std::string_view::npos)
            {
                hash_text = location.substr(hash + 1);
                location = location.substr(0, hash);
                if (hash_text.starts_with("sha256:"))
                {
                    hash_text.remove_prefix(7);
                }
                is_md5 = hash_text.size() == 32;
                if ((hash_text.size() != 32 && hash_text.size() != 64) || !is_hex_digits(hash_text))
                {
                    return util::unexpected(
                      explicit_error(file_name, line_number, column + hash + 1,
                                     "the fragment is neither an md5 (32 hex digits) nor a "
                                     "sha256 (64 hex digits)"));
                }
            }
            auto& package = lock.packages.emplace_back();
            if (!read_artifact_url(location, package))
            {
                return util::unexpected(explicit_error(
                  file_name, line_number, column,
                  "not a conda package URL: '" + std::string(location.substr(0, 120)) +
                    "' (expected .../<name>-<version>-<build>.conda or .tar.bz2)"));
            }
            (is_md5 ? package.md5 : package.sha256) = util::to_lower(hash_text);
        }
        if (!in_body)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::unsupported,
                               "not an @EXPLICIT file: it has no line reading @EXPLICIT",
                               util::SourceLocation{ std::string(file_name), 0, 0 },
                               "conda list --explicit writes such a file"));
        }
        return lock;
    }
}
