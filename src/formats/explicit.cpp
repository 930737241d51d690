#include "formats/explicit.hpp"

#include <algorithm>

#include "formats/pip_reference.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        auto is_lower_hex(std::string_view text) -> bool
        {
            return std::all_of(text.begin(), text.end(),
                               [](char c) { return util::is_digit(c) || (c >= 'a' && c <= 'f'); });
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
        ArtifactName parsed;
        for (const std::string_view extension :
             { std::string_view(".tar.bz2"), std::string_view(".conda") })
        {
            if (filename.ends_with(extension))
            {
                parsed.extension = std::string(extension);
                filename.remove_suffix(extension.size());
                break;
            }
        }
        if (parsed.extension.empty())
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
        parsed.name = std::string(filename.substr(0, version_dash));
        parsed.version =
          std::string(filename.substr(version_dash + 1, build_dash - version_dash - 1));
        parsed.build = std::string(filename.substr(build_dash + 1));
        if (parsed.version.empty() || parsed.build.empty())
        {
            return std::nullopt;
        }
        return parsed;
    }

    auto strip_credentials(std::string_view url) -> std::string
    {
        std::string result(url);
        if (const auto scheme = result.find("://"); scheme != std::string::npos)
        {
            const auto host_start = scheme + 3;
            const auto path_start = result.find('/', host_start);
            const auto at =
              result.rfind('@', path_start == std::string::npos ? std::string::npos : path_start);
            if (at != std::string::npos && at >= host_start &&
                (path_start == std::string::npos || at < path_start))
            {
                result.erase(host_start, at + 1 - host_start);
            }
        }
        // anaconda.org tokens: https://conda.anaconda.org/t/<token>/channel/...
        if (const auto token = result.find("/t/"); token != std::string::npos)
        {
            const auto end = result.find('/', token + 3);
            if (end != std::string::npos)
            {
                result.erase(token, end - token);
            }
        }
        return result;
    }

    auto package_from_url(std::string_view url) -> std::optional<model::Package>
    {
        const std::string clean = strip_credentials(url);
        const auto slash = clean.find_last_of("/\\");
        const std::string filename = slash == std::string::npos ? clean : clean.substr(slash + 1);
        const auto artifact = parse_artifact_name(filename);
        if (!artifact)
        {
            return std::nullopt;
        }
        model::Package package;
        package.manager = model::Manager::conda;
        package.name = artifact->name;
        package.version = artifact->version;
        package.build = artifact->build;
        package.filename = filename;
        package.url = clean;
        if (slash != std::string::npos)
        {
            const std::string directory = clean.substr(0, slash);
            const auto subdir_slash = directory.find_last_of("/\\");
            const std::string last =
              subdir_slash == std::string::npos ? directory : directory.substr(subdir_slash + 1);
            // Subdirs are "noarch" or "<os>-<arch>" ("linux-64", "osx-arm64", "win-64").
            if (last == "noarch" ||
                (last.find('-') != std::string::npos && last.find('.') == std::string::npos))
            {
                package.subdir = last;
                package.channel = subdir_slash == std::string::npos
                                    ? std::string()
                                    : directory.substr(0, subdir_slash);
            }
            else
            {
                package.channel = directory;
            }
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
            std::string md5;
            std::string sha256;
            if (const auto hash = location.rfind('#'); hash != std::string_view::npos)
            {
                auto fragment = location.substr(hash + 1);
                location = location.substr(0, hash);
                if (fragment.starts_with("sha256:"))
                {
                    fragment.remove_prefix(7);
                }
                const std::string lowered = util::to_lower(fragment);
                if (lowered.size() == 32 && is_lower_hex(lowered))
                {
                    md5 = lowered;
                }
                else if (lowered.size() == 64 && is_lower_hex(lowered))
                {
                    sha256 = lowered;
                }
                else
                {
                    return util::unexpected(
                      explicit_error(file_name, line_number, column + hash + 1,
                                     "the fragment is neither an md5 (32 hex digits) nor a "
                                     "sha256 (64 hex digits)"));
                }
            }
            auto package = package_from_url(location);
            if (!package)
            {
                return util::unexpected(explicit_error(
                  file_name, line_number, column,
                  "not a conda package URL: '" + std::string(location.substr(0, 120)) +
                    "' (expected .../<name>-<version>-<build>.conda or .tar.bz2)"));
            }
            package->md5 = std::move(md5);
            package->sha256 = std::move(sha256);
            lock.packages.push_back(std::move(*package));
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
