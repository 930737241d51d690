#include "pypi/pip_line.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "pypi/filename.hpp"
#include "pypi/name.hpp"
#include "pypi/text.hpp"
#include "util/strings.hpp"

namespace envcheck::pypi
{
    namespace
    {
        struct OptionSpec
        {
            std::string_view long_name;
            char short_name;
            bool takes_value;
        };

        // pip's SUPPORTED_OPTIONS and SUPPORTED_OPTIONS_REQ (src/pip/_internal/req/req_file.py).
        constexpr std::array<OptionSpec, 17> option_specs = { {
          { "--index-url", 'i', true },
          { "--extra-index-url", '\0', true },
          { "--no-index", '\0', false },
          { "--constraint", 'c', true },
          { "--requirement", 'r', true },
          { "--editable", 'e', true },
          { "--find-links", 'f', true },
          { "--no-binary", '\0', true },
          { "--only-binary", '\0', true },
          { "--prefer-binary", '\0', false },
          { "--require-hashes", '\0', false },
          { "--pre", '\0', false },
          { "--trusted-host", '\0', true },
          { "--use-feature", '\0', true },
          { "--global-option", '\0', true },
          { "--hash", '\0', true },
          { "--config-settings", 'C', true },
        } };

        struct LongSpelling
        {
            std::string_view text;
            const OptionSpec* spec;
        };

        auto long_spellings() -> std::vector<LongSpelling>
        {
            std::vector<LongSpelling> out;
            out.reserve(option_specs.size() + 1);
            for (const auto& spec : option_specs)
            {
                out.push_back({ spec.long_name, &spec });
            }
            out.push_back({ "--pypi-url", &option_specs[0] }); // pip's alias of --index-url
            return out;
        }

        constexpr std::array<std::string_view, 3> strong_hashes = { "sha256", "sha384", "sha512" };
        constexpr std::array<std::string_view, 6> url_hashes = { "sha512", "sha384", "sha256",
                                                                 "sha224", "sha1",   "md5" };

        struct VcsScheme
        {
            std::string_view scheme;
            std::string_view vcs;
        };
        // pip's vcs.all_schemes.
        constexpr std::array<VcsScheme, 24> vcs_schemes = { {
          { "git", "git" },       { "git+http", "git" },      { "git+https", "git" },
          { "git+ssh", "git" },   { "git+git", "git" },       { "git+file", "git" },
          { "hg+file", "hg" },    { "hg+http", "hg" },        { "hg+https", "hg" },
          { "hg+ssh", "hg" },     { "hg+static-http", "hg" }, { "svn", "svn" },
          { "svn+ssh", "svn" },   { "svn+http", "svn" },      { "svn+https", "svn" },
          { "svn+svn", "svn" },   { "svn+file", "svn" },      { "bzr+http", "bzr" },
          { "bzr+https", "bzr" }, { "bzr+ssh", "bzr" },       { "bzr+sftp", "bzr" },
          { "bzr+ftp", "bzr" },   { "bzr+lp", "bzr" },        { "bzr+file", "bzr" },
        } };

        constexpr std::array<std::string_view, 12> archive_extensions = {
            ".zip", ".whl",    ".tar.bz2",  ".tbz",    ".tar.xz", ".txz",
            ".tlz", ".tar.lz", ".tar.lzma", ".tar.gz", ".tgz",    ".tar"
        };

        auto failure(PipLineErrorKind kind, std::string_view line, std::size_t offset,
                     std::string message, std::string option = {}, std::string suggestion = {})
          -> util::Unexpected<PipLineError>
        {
            return util::unexpected(
              PipLineError{ kind, util::ParseError{ std::string(line), offset, std::move(message) },
                            std::move(option), std::move(suggestion) });
        }

        auto url_scheme(std::string_view text) -> std::string
        {
            const std::size_t colon = text.find(':');
            return colon == std::string_view::npos ? std::string()
                                                   : detail::lowercase(text.substr(0, colon));
        }

        auto vcs_of_scheme(std::string_view scheme) -> std::optional<std::string_view>
        {
            for (const auto& entry : vcs_schemes)
            {
                if (entry.scheme == scheme)
                {
                    return entry.vcs;
                }
            }
            return std::nullopt;
        }

        // pip's is_url(): a scheme pip can fetch or a VCS scheme.
        auto is_url(std::string_view text) -> bool
        {
            const std::string scheme = url_scheme(text);
            return scheme == "http" || scheme == "https" || scheme == "file" || scheme == "ftp" ||
                   vcs_of_scheme(scheme).has_value();
        }

        auto looks_like_path(std::string_view text) -> bool
        {
            return text.find('/') != std::string_view::npos ||
                   text.find('\\') != std::string_view::npos || text.starts_with(".");
        }

        // "./pkg[dev,test]" -> "./pkg" and {dev, test}
        auto strip_extras(std::string_view text, std::vector<std::string>& extras)
          -> std::string_view
        {
            if (!text.ends_with("]"))
            {
                return text;
            }
            const std::size_t open = text.rfind('[');
            if (open == std::string_view::npos || open == 0 ||
                text.substr(open + 1, text.size() - open - 2).find(']') != std::string_view::npos ||
                open + 2 == text.size())
            {
                return text;
            }
            for (const auto extra : util::split(text.substr(open + 1, text.size() - open - 2), ','))
            {
                const auto trimmed = detail::trim_ascii(extra);
                if (!trimmed.empty())
                {
                    extras.emplace_back(trimmed);
                }
            }
            return text.substr(0, open);
        }

        struct UrlParts
        {
            std::string_view scheme;
            std::string_view authority; // after "//", up to the path
            std::string_view path;
            std::string_view query;    // without '?'
            std::string_view fragment; // without '#'
        };

        auto split_url(std::string_view url) -> UrlParts
        {
            UrlParts parts;
            const std::size_t colon = url.find(':');
            parts.scheme = url.substr(0, colon);
            std::string_view rest = url.substr(colon + 1);
            if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos)
            {
                parts.fragment = rest.substr(hash + 1);
                rest = rest.substr(0, hash);
            }
            if (const std::size_t question = rest.find('?'); question != std::string_view::npos)
            {
                parts.query = rest.substr(question + 1);
                rest = rest.substr(0, question);
            }
            if (rest.starts_with("//"))
            {
                rest.remove_prefix(2);
                const std::size_t slash = std::min(rest.find('/'), rest.size());
                parts.authority = rest.substr(0, slash);
                rest = rest.substr(slash);
            }
            parts.path = rest;
            return parts;
        }

        // The values of `key=` in a "#a=1&b=2" fragment.
        auto fragment_value(std::string_view fragment, std::string_view key)
          -> std::optional<std::string_view>
        {
            for (const auto item : util::split(fragment, '&'))
            {
                if (item.size() > key.size() && item.starts_with(key) && item[key.size()] == '=')
                {
                    return item.substr(key.size() + 1);
                }
            }
            return std::nullopt;
        }

        auto basename(std::string_view path) -> std::string_view
        {
            while (path.ends_with("/"))
            {
                path.remove_suffix(1);
            }
            const std::size_t slash = path.find_last_of("/\\");
            return slash == std::string_view::npos ? path : path.substr(slash + 1);
        }

        // Name and version from a wheel or sdist file name; the requirement pip would build.
        struct FileIdentity
        {
            std::string name;
            std::optional<Version> version;
            bool is_wheel = false;
        };

        auto identify_file(std::string_view filename)
          -> util::Result<FileIdentity, util::ParseError>
        {
            FileIdentity id;
            if (detail::lowercase(filename).ends_with(".whl"))
            {
                auto wheel = parse_wheel_filename(filename);
                if (!wheel)
                {
                    return util::unexpected(wheel.error());
                }
                id.name = wheel->name;
                id.version = wheel->version;
                id.is_wheel = true;
                return id;
            }
            if (auto sdist = parse_sdist_filename(filename))
            {
                id.name = sdist->name;
                id.version = sdist->version;
            }
            return id;
        }

        struct Token
        {
            std::string text;
            std::size_t offset; // where it starts in the line
        };

        // shlex.split(text) in POSIX mode: quotes group, backslash escapes, no comments.
        auto shell_split(std::string_view line, std::size_t start, std::vector<Token>& tokens)
          -> std::optional<std::size_t>
        {
            std::size_t i = start;
            while (i < line.size())
            {
                while (i < line.size() &&
                       (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
                {
                    ++i;
                }
                if (i >= line.size())
                {
                    break;
                }
                Token token{ {}, i };
                while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' &&
                       line[i] != '\n')
                {
                    const char c = line[i];
                    if (c == '\\')
                    {
                        if (i + 1 >= line.size())
                        {
                            return i; // no escaped character
                        }
                        token.text += line[i + 1];
                        i += 2;
                    }
                    else if (c == '\'' || c == '"')
                    {
                        const std::size_t open = i;
                        ++i;
                        while (i < line.size() && line[i] != c)
                        {
                            if (c == '"' && line[i] == '\\' && i + 1 < line.size() &&
                                (line[i + 1] == '"' || line[i + 1] == '\\'))
                            {
                                ++i;
                            }
                            token.text += line[i];
                            ++i;
                        }
                        if (i >= line.size())
                        {
                            return open; // no closing quotation
                        }
                        ++i;
                    }
                    else
                    {
                        token.text += c;
                        ++i;
                    }
                }
                tokens.push_back(std::move(token));
            }
            return std::nullopt;
        }

        auto suggest_option(std::string_view written) -> std::string
        {
            return util::closest_match(written, known_pip_options()).value_or(std::string());
        }

        // optparse's handling of the options part: long options by unique prefix, "=value" or
        // the next word as value, clustered short options, "--" ends the options.
        auto parse_options(std::string_view line, const std::vector<Token>& tokens, PipLine& out)
          -> util::Result<void, PipLineError>
        {
            static const std::vector<LongSpelling> spellings = long_spellings();
            std::size_t i = 0;
            while (i < tokens.size())
            {
                const Token& token = tokens[i];
                const std::string& arg = token.text;
                if (arg == "--")
                {
                    for (++i; i < tokens.size(); ++i)
                    {
                        out.ignored.push_back(tokens[i].text);
                    }
                    break;
                }
                if (arg.starts_with("--"))
                {
                    const std::size_t eq = arg.find('=');
                    const std::string written = arg.substr(0, eq);
                    const OptionSpec* spec = nullptr;
                    std::vector<std::string_view> candidates;
                    for (const auto& spelling : spellings)
                    {
                        if (spelling.text == written)
                        {
                            spec = spelling.spec;
                            candidates.clear();
                            break;
                        }
                        if (spelling.text.starts_with(written))
                        {
                            candidates.push_back(spelling.text);
                            spec = spelling.spec;
                        }
                    }
                    if (candidates.size() > 1)
                    {
                        std::string list;
                        for (const auto c : candidates)
                        {
                            list += (list.empty() ? "" : ", ") + std::string(c);
                        }
                        std::string message = "ambiguous option " + written;
                        message += " (" + list + "?)";
                        return failure(PipLineErrorKind::ambiguous_option, line, token.offset,
                                       std::move(message), written);
                    }
                    if (spec == nullptr)
                    {
                        auto suggestion = suggest_option(written);
                        return failure(
                          PipLineErrorKind::unknown_option, line, token.offset,
                          "no such option: " + written +
                            (suggestion.empty() ? "" : " (did you mean " + suggestion + "?)"),
                          written, suggestion);
                    }
                    ++i;
                    PipOption option{ std::string(spec->long_name), {} };
                    if (spec->takes_value)
                    {
                        if (eq != std::string::npos)
                        {
                            option.value = arg.substr(eq + 1);
                        }
                        else if (i < tokens.size())
                        {
                            option.value = tokens[i].text;
                            ++i;
                        }
                        else
                        {
                            return failure(PipLineErrorKind::missing_value, line, token.offset,
                                           written + " option requires 1 argument", written);
                        }
                    }
                    else if (eq != std::string::npos)
                    {
                        return failure(PipLineErrorKind::unexpected_value, line, token.offset,
                                       written + " option does not take a value", written);
                    }
                    out.options.push_back(std::move(option));
                    continue;
                }
                if (arg.size() > 1 && arg.front() == '-')
                {
                    // Every short option pip knows takes a value: the rest of the word or the next.
                    const std::string written = arg.substr(0, 2);
                    const auto* spec =
                      std::find_if(option_specs.begin(), option_specs.end(),
                                   [&](const OptionSpec& s) { return s.short_name == arg[1]; });
                    if (spec == option_specs.end())
                    {
                        auto suggestion = suggest_option(written);
                        return failure(PipLineErrorKind::unknown_option, line, token.offset,
                                       "no such option: " + written, written, suggestion);
                    }
                    ++i;
                    PipOption option{ std::string(spec->long_name), {} };
                    if (arg.size() > 2)
                    {
                        option.value = arg.substr(2);
                    }
                    else if (i < tokens.size())
                    {
                        option.value = tokens[i].text;
                        ++i;
                    }
                    else
                    {
                        return failure(PipLineErrorKind::missing_value, line, token.offset,
                                       written + " option requires 1 argument", written);
                    }
                    out.options.push_back(std::move(option));
                    continue;
                }
                out.ignored.push_back(arg);
                ++i;
            }
            return {};
        }

        auto collect_hashes(std::string_view line, PipLine& out) -> util::Result<void, PipLineError>
        {
            for (const auto& option : out.options)
            {
                if (option.name != "--hash")
                {
                    continue;
                }
                const std::size_t colon = option.value.find(':');
                const std::size_t at = line.find("--hash");
                if (colon == std::string::npos || colon + 1 == option.value.size())
                {
                    return failure(
                      PipLineErrorKind::invalid_value, line, at == std::string_view::npos ? 0 : at,
                      "--hash takes a hash name and a value, like --hash=sha256:abcde...",
                      "--hash");
                }
                const std::string algorithm = option.value.substr(0, colon);
                if (std::find(strong_hashes.begin(), strong_hashes.end(), algorithm) ==
                    strong_hashes.end())
                {
                    return failure(PipLineErrorKind::invalid_value, line,
                                   at == std::string_view::npos ? 0 : at,
                                   "allowed hash algorithms for --hash are sha256, sha384, sha512",
                                   "--hash", "sha256");
                }
                out.hashes.push_back(option.value);
            }
            return {};
        }

        // Fills vcs, name (#egg=), hashes (#sha256=) and the file identity of a URL.
        auto read_url(std::string_view line, std::size_t offset, std::string_view url, PipLine& out)
          -> util::Result<void, PipLineError>
        {
            const UrlParts parts = split_url(url);
            const std::string scheme = detail::lowercase(parts.scheme);
            if (const auto vcs = vcs_of_scheme(scheme))
            {
                VcsReference reference;
                reference.vcs = std::string(*vcs);
                std::string_view path = parts.path;
                if (const std::size_t at = path.rfind('@'); at != std::string_view::npos)
                {
                    reference.ref = std::string(path.substr(at + 1));
                    path = path.substr(0, at);
                    if (reference.ref.empty())
                    {
                        return failure(PipLineErrorKind::invalid_reference, line, offset,
                                       "the VCS URL has an empty revision after '@'");
                    }
                }
                // The URL up to the end of the path without "@ref", then the query.
                const auto path_begin = static_cast<std::size_t>(parts.path.data() - url.data());
                reference.url = std::string(url.substr(0, path_begin + path.size()));
                if (!parts.query.empty())
                {
                    reference.url += "?" + std::string(parts.query);
                }
                out.vcs = std::move(reference);
            }
            if (const auto egg = fragment_value(parts.fragment, "egg"); egg && out.name.empty())
            {
                if (is_valid_name(*egg))
                {
                    out.name = std::string(*egg);
                }
            }
            for (const auto algorithm : url_hashes)
            {
                if (const auto value = fragment_value(parts.fragment, algorithm))
                {
                    out.hashes.push_back(std::string(algorithm) + ":" + std::string(*value));
                }
            }
            if (!out.vcs)
            {
                const std::string filename = util::percent_decode(basename(parts.path));
                auto id = identify_file(filename);
                if (!id)
                {
                    return failure(PipLineErrorKind::invalid_reference, line, offset,
                                   "invalid wheel file name '" + filename +
                                     "': " + id.error().message);
                }
                if (!id->name.empty() && out.name.empty())
                {
                    out.name = id->name;
                }
                out.file_version = id->version;
                if (id->is_wheel && !out.requirement)
                {
                    if (auto req = Requirement::parse(id->name + "==" + id->version->to_string()))
                    {
                        out.requirement = std::move(*req);
                    }
                }
            }
            if (!out.requirement && !out.name.empty())
            {
                if (auto req = Requirement::parse(out.name))
                {
                    out.requirement = std::move(*req);
                }
            }
            return {};
        }

        // The marker after the ';' (`marker_text`, trimmed) into out.marker; none when empty.
        auto read_marker(std::string_view line, std::string_view marker_text, PipLine& out)
          -> util::Result<void, PipLineError>
        {
            if (marker_text.empty())
            {
                return {};
            }
            auto marker = Marker::parse(marker_text);
            if (!marker)
            {
                const auto marker_offset =
                  static_cast<std::size_t>(marker_text.data() - line.data());
                return failure(PipLineErrorKind::invalid_requirement, line,
                               marker_offset + marker.error().offset,
                               "invalid marker: " + marker.error().message);
            }
            out.marker = std::move(*marker);
            return {};
        }

        // A URL or VCS URL line ("https://.../pkg.whl", "git+https://...#egg=name").
        auto read_url_form(std::string_view line, std::string_view body, std::size_t body_offset,
                           PipLine& out) -> util::Result<void, PipLineError>
        {
            out.kind = vcs_of_scheme(url_scheme(body)) ? PipLineKind::vcs : PipLineKind::url;
            out.target = std::string(body);
            return read_url(line, body_offset, body, out);
        }

        // A local archive: its file name gives the name and version, a wheel's also the
        // requirement pip installs.
        auto read_archive(std::string_view line, std::string_view path, std::size_t body_offset,
                          PipLine& out) -> util::Result<void, PipLineError>
        {
            auto id = identify_file(basename(path));
            if (!id)
            {
                return failure(PipLineErrorKind::invalid_reference, line, body_offset,
                               "invalid wheel file name: " + id.error().message);
            }
            out.name = id->name;
            out.file_version = id->version;
            if (id->is_wheel)
            {
                if (auto named = Requirement::parse(id->name + "==" + id->version->to_string()))
                {
                    out.requirement = std::move(*named);
                }
            }
            return {};
        }

        // A line that is neither a path nor a valid requirement: the parse error, with pip's
        // hint for "name=1.0" (an '=' but none of the version operators).
        auto invalid_requirement(std::string_view line, std::string_view body,
                                 std::size_t body_offset, const util::ParseError& error)
          -> util::Unexpected<PipLineError>
        {
            constexpr std::array<std::string_view, 7> operators = { "~=", "==", "!=", "<=",
                                                                    ">=", "<",  ">" };
            const bool single_equals =
              body.find('=') != std::string_view::npos &&
              std::none_of(operators.begin(), operators.end(),
                           [&](std::string_view op)
                           { return body.find(op) != std::string_view::npos; });
            std::string message = "invalid requirement: " + error.message;
            std::string suggestion;
            if (single_equals)
            {
                message += " ('=' is not a version operator: did you mean '=='?)";
                suggestion = "==";
            }
            return failure(PipLineErrorKind::invalid_requirement, line, body_offset + error.offset,
                           std::move(message), {}, std::move(suggestion));
        }

        // A valid PEP 508 requirement; the URL of "name @ URL" is read like a URL line's.
        auto read_named_requirement(std::string_view line, std::string_view body,
                                    std::size_t body_offset, Requirement&& requirement,
                                    PipLine& out) -> util::Result<void, PipLineError>
        {
            out.requirement = std::move(requirement);
            out.name = out.requirement->name();
            const std::string& url = out.requirement->url();
            if (url.empty())
            {
                out.kind = PipLineKind::requirement;
                return {};
            }
            out.kind = vcs_of_scheme(url_scheme(url)) ? PipLineKind::vcs : PipLineKind::url;
            out.target = url;
            const std::size_t url_offset = body_offset + body.find(url);
            return read_url(line, url_offset, url, out);
        }

        // A line that is not a URL: a local path or archive, which pip reads as a file, or a
        // PEP 508 requirement ("name[extra] >= 1", "name @ URL").
        auto read_name_form(std::string_view line, std::string_view body, std::size_t body_offset,
                            PipLine& out) -> util::Result<void, PipLineError>
        {
            std::vector<std::string> extras;
            const std::string_view path = strip_extras(body, extras);
            const std::size_t at = body.find('@');
            const bool pep508_url =
              at != std::string_view::npos && !looks_like_path(body.substr(0, at));
            const bool archive = has_archive_extension(path) && !pep508_url;
            auto req = Requirement::parse(body);
            if (archive || (looks_like_path(path) && !req))
            {
                out.kind = PipLineKind::path;
                out.target = std::string(path);
                out.extras = std::move(extras);
                if (archive)
                {
                    return read_archive(line, path, body_offset, out);
                }
                return {};
            }
            if (!req)
            {
                return invalid_requirement(line, body, body_offset, req.error());
            }
            return read_named_requirement(line, body, body_offset, std::move(*req), out);
        }

        // The requirement before the marker, in URL or name form; the marker then applies to
        // the requirement it names. A single return of `read`, so that it is built in place.
        auto read_body(std::string_view line, std::string_view body, std::size_t body_offset,
                       PipLine& out) -> util::Result<void, PipLineError>
        {
            auto read = is_url(body) ? read_url_form(line, body, body_offset, out)
                                     : read_name_form(line, body, body_offset, out);
            if (read && out.requirement && out.marker)
            {
                out.requirement->set_marker(out.marker);
            }
            return read;
        }

        // The requirement part of a line (before the options): a URL, a path or PEP 508.
        auto read_requirement(std::string_view line, std::string_view args, PipLine& out)
          -> util::Result<void, PipLineError>
        {
            const bool url_form = is_url(detail::trim_ascii(args));
            // pip splits the marker off first: after "; " for URLs, after ";" otherwise.
            const std::string_view separator = url_form ? "; " : ";";
            std::string_view body = args;
            if (const std::size_t sep = args.find(separator); sep != std::string_view::npos)
            {
                body = args.substr(0, sep);
                auto marker =
                  read_marker(line, detail::trim_ascii(args.substr(sep + separator.size())), out);
                if (!marker)
                {
                    return marker;
                }
            }
            body = detail::trim_ascii(body);
            const auto body_offset = static_cast<std::size_t>(body.data() - line.data());
            if (body.empty())
            {
                return failure(PipLineErrorKind::invalid_requirement, line, body_offset,
                               "expected a requirement before the ';'");
            }
            return read_body(line, body, body_offset, out);
        }

        auto read_editable(std::string_view line, const std::string& value, PipLine& out)
          -> util::Result<void, PipLineError>
        {
            out.kind = PipLineKind::editable;
            const std::size_t at = line.find(value);
            const std::size_t offset = at == std::string_view::npos ? 0 : at;
            std::string_view target = value;
            const std::string scheme = url_scheme(target);
            const bool has_scheme =
              !scheme.empty() && detail::is_alpha(scheme.front()) &&
              std::all_of(scheme.begin(), scheme.end(),
                          [](char c)
                          { return detail::is_alnum(c) || c == '+' || c == '-' || c == '.'; });
            if (has_scheme && scheme.size() > 1) // "C:\pkg" is a Windows path
            {
                out.target = value;
                std::string url = value;
                // pip turns "git:..." into "git+git:..." before asking whether it is a VCS URL.
                if (scheme == "git" || scheme == "hg" || scheme == "svn" || scheme == "bzr")
                {
                    url = scheme + "+" + value;
                }
                if (scheme != "file" && !vcs_of_scheme(url_scheme(url)))
                {
                    return failure(PipLineErrorKind::invalid_reference, line, offset,
                                   "an editable requirement is a local project path or a VCS URL "
                                   "(git+https://...), not " +
                                     scheme + ":");
                }
                return read_url(line, offset, url, out);
            }
            for (const std::string_view prefix : { "git+", "hg+", "svn+", "bzr+" })
            {
                if (detail::istarts_with_at(target, 0, prefix))
                {
                    return failure(
                      PipLineErrorKind::invalid_reference, line, offset,
                      "'" + value +
                        "' starts like a VCS URL but is not one (git+https://host/...)");
                }
            }
            out.target = std::string(strip_extras(target, out.extras));
            return {};
        }

        // Everything from the first "#" that starts the line or follows whitespace is a comment.
        auto strip_comment(std::string_view line) -> std::string_view
        {
            for (std::size_t i = 0; i < line.size(); ++i)
            {
                if (line[i] != '#')
                {
                    continue;
                }
                if (i == 0)
                {
                    return line.substr(0, 0);
                }
                if (util::is_space(line[i - 1]))
                {
                    return detail::trim_ascii_right(line.substr(0, i));
                }
            }
            return line;
        }
    }

    auto to_string(PipLineKind kind) -> std::string_view
    {
        switch (kind)
        {
            case PipLineKind::comment:
                return "comment";
            case PipLineKind::requirement:
                return "requirement";
            case PipLineKind::option:
                return "option";
            case PipLineKind::editable:
                return "editable";
            case PipLineKind::url:
                return "url";
            case PipLineKind::vcs:
                return "vcs";
            case PipLineKind::path:
                return "path";
        }
        return "comment";
    }

    auto to_string(PipLineErrorKind kind) -> std::string_view
    {
        switch (kind)
        {
            case PipLineErrorKind::unknown_option:
                return "unknown_option";
            case PipLineErrorKind::ambiguous_option:
                return "ambiguous_option";
            case PipLineErrorKind::missing_value:
                return "missing_value";
            case PipLineErrorKind::unexpected_value:
                return "unexpected_value";
            case PipLineErrorKind::invalid_value:
                return "invalid_value";
            case PipLineErrorKind::unbalanced_quotes:
                return "unbalanced_quotes";
            case PipLineErrorKind::invalid_requirement:
                return "invalid_requirement";
            case PipLineErrorKind::invalid_reference:
                return "invalid_reference";
        }
        return "invalid_requirement";
    }

    auto VcsReference::ref_is_commit() const -> bool
    {
        return (ref.size() == 40 || ref.size() == 64) && util::is_hex(ref);
    }

    auto PipLine::is_pinned() const -> bool
    {
        switch (kind)
        {
            case PipLineKind::requirement:
                return requirement && requirement->specifier().is_pinned();
            case PipLineKind::url:
            case PipLineKind::path:
                return file_version.has_value() ||
                       (requirement && requirement->specifier().is_pinned());
            case PipLineKind::vcs:
                return vcs && vcs->ref_is_commit();
            case PipLineKind::comment:
            case PipLineKind::option:
            case PipLineKind::editable:
                break;
        }
        return false;
    }

    auto PipLine::is_direct_reference() const -> bool
    {
        return kind == PipLineKind::editable || kind == PipLineKind::url ||
               kind == PipLineKind::vcs || kind == PipLineKind::path;
    }

    auto PipLine::is_verifiable() const -> bool
    {
        return !hashes.empty() || (vcs && vcs->ref_is_commit());
    }

    auto PipLine::option(std::string_view long_name) const -> const PipOption*
    {
        const auto found = std::find_if(options.begin(), options.end(),
                                        [&](const PipOption& o) { return o.name == long_name; });
        return found == options.end() ? nullptr : &*found;
    }

    auto known_pip_options() -> std::vector<std::string>
    {
        std::vector<std::string> out;
        out.reserve(option_specs.size());
        for (const auto& spec : option_specs)
        {
            out.emplace_back(spec.long_name);
        }
        return out;
    }

    auto has_archive_extension(std::string_view text) -> bool
    {
        const std::string lower = detail::lowercase(text);
        return std::any_of(archive_extensions.begin(), archive_extensions.end(),
                           [&](std::string_view ext) { return lower.ends_with(ext); });
    }

    auto parse_pip_line(std::string_view line) -> util::Result<PipLine, PipLineError>
    {
        PipLine out;
        const std::string_view text = detail::trim_ascii(strip_comment(line));
        out.text = std::string(text);
        if (text.empty())
        {
            return out;
        }
        // pip's break_args_options: words up to the first one starting with '-' are the
        // requirement; the rest are options, split like a shell would.
        std::size_t options_start = text.size();
        for (std::size_t word = 0; word < text.size();)
        {
            if (text[word] == '-')
            {
                options_start = word;
                break;
            }
            const std::size_t space = text.find(' ', word);
            if (space == std::string_view::npos)
            {
                break;
            }
            word = space + 1;
        }
        const std::string_view args = detail::trim_ascii_right(text.substr(0, options_start));
        const auto text_offset = static_cast<std::size_t>(text.data() - line.data());

        std::vector<Token> tokens;
        if (const auto bad = shell_split(line.substr(0, text_offset + text.size()),
                                         text_offset + options_start, tokens))
        {
            return failure(PipLineErrorKind::unbalanced_quotes, line, *bad,
                           "the options cannot be split: unbalanced quote or trailing backslash");
        }
        if (auto parsed = parse_options(line, tokens, out); !parsed)
        {
            return util::unexpected(parsed.error());
        }
        if (auto hashes = collect_hashes(line, out); !hashes)
        {
            return util::unexpected(hashes.error());
        }

        if (!args.empty())
        {
            if (auto read = read_requirement(line, args, out); !read)
            {
                return util::unexpected(read.error());
            }
            return out;
        }
        if (const auto* editable = out.option("--editable"))
        {
            if (auto read = read_editable(line, editable->value, out); !read)
            {
                return util::unexpected(read.error());
            }
            return out;
        }
        out.kind = PipLineKind::option;
        return out;
    }
}
