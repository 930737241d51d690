#include "specs/match_spec.hpp"

#include <algorithm>

#include "specs/chars.hpp"
#include "specs/match_spec_fast_path.hpp"
#include "specs/platform.hpp"
#include "util/strings.hpp"

namespace envcheck::specs
{
    namespace
    {
        constexpr std::array<std::string_view, spec_field_count> field_keys{
            "channel",      "subdir",         "namespace", "name", "version", "build",
            "build_number", "track_features", "features",  "url",  "md5",     "sha256",
            "license",      "license_family", "fn",        "when",
        };

        // A parsed version spec as the one a MatchSpec shares.
        auto shared(util::Result<VersionSpec, util::ParseError> parsed) -> VersionSpecCache::Entry
        {
            if (!parsed)
            {
                return util::unexpected(std::move(parsed).error());
            }
            return std::make_shared<const VersionSpec>(std::move(parsed).value());
        }

        auto is_url(std::string_view text) -> bool
        {
            const auto scheme = text.find("://");
            if (scheme == std::string_view::npos || scheme == 0)
            {
                return false;
            }
            return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(scheme),
                               [](char c)
                               { return chars::is_alnum(c) || c == '+' || c == '-' || c == '.'; });
        }

        auto package_extension(std::string_view file) -> std::string_view
        {
            for (const std::string_view extension : { ".tar.bz2", ".conda" })
            {
                // Case-insensitive: names are lowercased, so NAME.CONDA must not print as a file.
                if (file.size() > extension.size() &&
                    util::iequals(file.substr(file.size() - extension.size()), extension))
                {
                    return extension;
                }
            }
            return {};
        }

        // What a package name is made of.
        auto is_name_char(char c) -> bool
        {
            return chars::is_alnum(c) || c == '.' || c == '_' || c == '-';
        }

        // "mkl, openssl" / "mkl openssl" -> {"mkl", "openssl"}: sorted, unique, no empties.
        auto feature_set(std::string_view text) -> std::vector<std::string>
        {
            std::vector<std::string> features;
            std::size_t start = 0;
            for (std::size_t i = 0; i <= text.size(); ++i)
            {
                if (i == text.size() || text[i] == ',' || chars::is_space(text[i]))
                {
                    if (i > start)
                    {
                        features.emplace_back(text.substr(start, i - start));
                    }
                    start = i + 1;
                }
            }
            std::sort(features.begin(), features.end());
            features.erase(std::unique(features.begin(), features.end()), features.end());
            return features;
        }

        auto feature_set(const std::vector<std::string>& list) -> std::vector<std::string>
        {
            std::vector<std::string> features;
            for (const auto& entry : list)
            {
                for (auto& feature : feature_set(std::string_view(entry)))
                {
                    features.push_back(std::move(feature));
                }
            }
            std::sort(features.begin(), features.end());
            features.erase(std::unique(features.begin(), features.end()), features.end());
            return features;
        }

        auto join(const std::vector<std::string>& parts, std::string_view separator) -> std::string
        {
            std::string out;
            for (const auto& part : parts)
            {
                if (!out.empty())
                {
                    out += separator;
                }
                out += part;
            }
            return out;
        }

        // key=value for a canonical bracket list, quoted when the value needs it.
        auto bracket_pair(std::string_view key, std::string_view value, bool force_quotes = false)
          -> std::string
        {
            const bool needs_quotes = force_quotes ||
                                      value.find_first_of(",= []\t'\"") != std::string_view::npos ||
                                      value.empty();
            std::string out(key);
            out += '=';
            if (!needs_quotes)
            {
                out += value;
                return out;
            }
            const char quote = value.find('\'') == std::string_view::npos ? '\'' : '"';
            out += quote;
            out += value;
            out += quote;
            return out;
        }

        // A character that reads back the same in a positional field (a build written after '=').
        auto is_positional_char(char c) -> bool
        {
            return chars::is_alnum(c) || c == '_' || c == '.' || c == '+' || c == '!';
        }

        auto positional_safe(std::string_view text) -> bool
        {
            return std::all_of(text.begin(), text.end(), is_positional_char);
        }

        // A package path as the URL conda records: a URL as written; a path with '/' for '\\',
        // made a file:// URL when absolute (from '/' or a Windows drive).
        auto package_url(std::string_view written) -> std::string
        {
            if (is_url(written))
            {
                return std::string(written);
            }
            std::string path(written);
            std::replace(path.begin(), path.end(), '\\', '/');
            const bool drive =
              path.size() >= 3 && chars::is_alpha(path[0]) && path[1] == ':' && path[2] == '/';
            return drive ? "file:///" + path : path.front() == '/' ? "file://" + path : path;
        }

        // A version spec as a bracket value. There conda's sanitizing reads a lone `=V` as `V*`
        // (which differs from `=V` when V holds a literal '*') and drops a leading `==` (so
        // `==1.2*,<2` would become `1.2*,<2`, starts-with); parentheses keep either as it is.
        auto bracket_version(const VersionSpec& version) -> std::string
        {
            std::string text = version.to_string();
            const bool lone_fuzzy = text.size() > 1 && text[0] == '=' && text[1] != '=' &&
                                    text.find_first_of(",|") == std::string::npos;
            if (lone_fuzzy || text.starts_with("=="))
            {
                text = "(" + text + ")";
            }
            return text;
        }

        // An item of conda's legacy (...) block: empty, the bare flag `optional`, or key=value.
        auto is_legacy_item(std::string_view item) -> bool
        {
            const std::string_view word = util::trim(item);
            std::size_t key_end = 0;
            while (key_end < word.size() &&
                   (chars::is_alnum(word[key_end]) || word[key_end] == '_'))
            {
                ++key_end;
            }
            const bool assignment = key_end > 0 && chars::is_alpha(word.front()) &&
                                    util::trim_left(word.substr(key_end)).starts_with('=');
            return word.empty() || word == "optional" || assignment;
        }

        // The contents of a (...) block conda reads as its legacy (target=..., optional) block:
        // any that name "optional" or "target", and any list of legacy items.
        auto is_legacy_block(std::string_view content) -> bool
        {
            if (content.find("optional") != std::string_view::npos ||
                content.find("target") != std::string_view::npos)
            {
                return true;
            }
            const auto items = util::split(content, ',');
            return std::all_of(items.begin(), items.end(), is_legacy_item);
        }

        // A compound version expression (`1.7|1.8`, `>=1,<2`): operators, and it parses.
        auto is_compound_version(std::string_view content) -> bool
        {
            return content.find_first_of("|,<>=!~") != std::string_view::npos &&
                   VersionSpec::parse(content).has_value();
        }

        auto is_hex_digest(std::string_view text, std::size_t size) -> bool
        {
            return text.size() == size && util::is_hex(text);
        }
    }

    auto to_string(SpecField field) -> std::string_view
    {
        return field_keys[static_cast<std::size_t>(field)];
    }

    auto parse_spec_field(std::string_view key) -> std::optional<SpecField>
    {
        for (std::size_t i = 0; i < field_keys.size(); ++i)
        {
            if (field_keys[i] == key)
            {
                return static_cast<SpecField>(i);
            }
        }
        return std::nullopt;
    }

    // ---------------------------------------------------------------------------------------
    // Parser
    // ---------------------------------------------------------------------------------------

    class MatchSpecParser
    {
    public:
        explicit MatchSpecParser(std::string_view input)
          : m_original(input)
          , m_input(input)
        {
        }

        auto run() -> util::Result<MatchSpec, util::ParseError>
        {
            parse();
            if (m_error)
            {
                return util::unexpected(std::move(*m_error));
            }
            return std::move(m_spec);
        }

        // Where the common shape's parts are in a text: the name ends at name_end; the version,
        // when there is one, is [version_begin, version_end), sanitized from sanitized_begin;
        // the build, when there is one, runs from build_begin to the end.
        struct CommonShape
        {
            std::size_t name_end = 0;
            std::size_t version_begin = 0;
            std::size_t version_end = 0; // == version_begin: no version
            std::size_t sanitized_begin = 0;
            std::size_t build_begin = 0; // 0: no build
        };

        // The fast path (issue 19): the shapes nearly every record's depends take -- `name`,
        // `name >=1.2`, `name >=1.0,<2.0a0`, `name 1.2.*`, `name ==1.2 py_0`, `numpy>=1.26` --
        // found without the steps (comment, condition, brackets, legacy block, channel, build
        // split, sanitizing) that cannot apply to them. nullopt for any other text, and for
        // anything the full parser would refuse: it decides those. Both readers below read
        // what it finds; the version spec is theirs to parse (and may still refuse the text).
        static auto scan_common_shape(std::string_view text) -> std::optional<CommonShape>
        {
            CommonShape shape;
            shape.name_end = common_name_end(text);
            if (shape.name_end == 0)
            {
                return std::nullopt;
            }
            shape.version_begin = shape.version_end = shape.name_end;
            if (shape.name_end == text.size())
            {
                return shape;
            }

            // The version: after one space, or right after the name when an operator starts it.
            if (text[shape.name_end] == ' ')
            {
                ++shape.version_begin;
            }
            else if (std::string_view("<>!=~").find(text[shape.name_end]) == std::string_view::npos)
            {
                return std::nullopt;
            }
            shape.version_end = std::min(text.find(' ', shape.version_begin), text.size());
            const std::string_view version =
              text.substr(shape.version_begin, shape.version_end - shape.version_begin);
            // A condition (" if ") starts where the version would (`name if ...`) or after it:
            // neither the name nor the version holds a space, so most texts have nothing left
            // to search.
            if (!is_common_version(version) || version == "if" ||
                text.find(" if ", shape.version_end) != std::string_view::npos)
            {
                return std::nullopt;
            }
            // The build: after one more space, to the end.
            if (shape.version_end < text.size())
            {
                shape.build_begin = shape.version_end + 1;
                if (!is_common_build(text.substr(shape.build_begin)))
                {
                    return std::nullopt;
                }
            }
            // As set_version sanitizes it: a leading `==` goes when no ',' follows (the only
            // case left to this path).
            shape.sanitized_begin =
              version.starts_with("==") ? shape.version_begin + 2 : shape.version_begin;
            return shape;
        }

        // The common shape read into `spec`, a default-constructed one, as run() reads it,
        // spans and warnings included (test_match_spec_fast_path holds the two together over
        // the corpus and the vectors); false for any other text (`spec` is then half-read,
        // to be replaced).
        static auto read_common_shape(std::string_view text, MatchSpec& spec,
                                      VersionSpecCache* cache = nullptr) -> bool
        {
            const auto shape = scan_common_shape(text);
            if (!shape)
            {
                return false;
            }
            spec.m_name = StringMatcher::parse(text.substr(0, shape->name_end)).value(); // exact
            spec.m_spans[static_cast<std::size_t>(SpecField::name)] =
              TextSpan{ 0, shape->name_end };
            if (shape->version_end == shape->version_begin)
            {
                return true;
            }
            if (shape->build_begin != 0)
            {
                const std::string_view build = text.substr(shape->build_begin);
                spec.m_build = StringMatcher::parse(build).value(); // exact or glob
                spec.m_spans[static_cast<std::size_t>(SpecField::build)] =
                  TextSpan{ shape->build_begin, build.size() };
            }
            const std::string_view version_text =
              text.substr(shape->sanitized_begin, shape->version_end - shape->sanitized_begin);
            std::optional<VersionSpecCache::Entry> parsed;
            const auto& version_spec = cache != nullptr
                                         ? cache->parse(version_text)
                                         : parsed.emplace(shared(VersionSpec::parse(version_text)));
            if (!version_spec)
            {
                return false;
            }
            for (const auto& warning : (*version_spec)->warnings())
            {
                spec.m_warnings.push_back(
                  { shape->sanitized_begin + warning.offset, warning.length, warning.message });
            }
            spec.m_version = version_spec.value();
            spec.m_spans[static_cast<std::size_t>(SpecField::version)] =
              TextSpan{ shape->version_begin, shape->version_end - shape->version_begin };
            return true;
        }

        // The common shape read into a CommonSpec: what read_common_shape reads of the name,
        // version and build, without a MatchSpec.
        static auto read_common_spec(std::string_view text, VersionSpecCache& cache)
          -> std::optional<CommonSpec>
        {
            const auto shape = scan_common_shape(text);
            if (!shape)
            {
                return std::nullopt;
            }
            CommonSpec spec;
            spec.m_name = text.substr(0, shape->name_end);
            if (shape->version_end == shape->version_begin)
            {
                return spec;
            }
            const auto& version_spec = cache.parse(
              text.substr(shape->sanitized_begin, shape->version_end - shape->sanitized_begin));
            if (!version_spec)
            {
                return std::nullopt;
            }
            spec.m_version = version_spec.value();
            if (shape->build_begin != 0)
            {
                spec.m_build = StringMatcher::parse(text.substr(shape->build_begin)).value();
            }
            return spec;
        }

    private:
        // Where a plain lowercase package name at the start of `text` ends; 0 when the text
        // does not start with one the full parser would take as it is (a pattern, upper case,
        // a name it refuses, a package file).
        static auto common_name_end(std::string_view text) -> std::size_t
        {
            // One pass over the name, noting a ".." or "--" on the way (issue 19: searching
            // the name for them again was a sixth of reading the common shape).
            std::size_t end = 0;
            bool doubled = false;
            for (; end < text.size(); ++end)
            {
                const char c = text[end];
                if (!(chars::is_digit(c) || (c >= 'a' && c <= 'z') || c == '.' || c == '_' ||
                      c == '-'))
                {
                    break;
                }
                doubled = doubled || ((c == '.' || c == '-') && end > 0 && text[end - 1] == c);
            }
            const std::string_view name = text.substr(0, end);
            const bool refused =
              name.empty() || name.front() == '.' || name.front() == '-' || doubled;
            return refused || is_package_file(name) || is_package_file(text) ? 0 : end;
        }

        // Ends in .conda or .tar.bz2, whatever the case; the last character tells most texts
        // apart without comparing.
        static auto is_package_file(std::string_view text) -> bool
        {
            const char last = text.empty() ? '\0' : chars::to_lower(text.back());
            return (last == 'a' || last == '2') && !package_extension(text).empty();
        }

        // A build string of plain characters and '*' globs.
        static auto is_common_build(std::string_view build) -> bool
        {
            return !build.empty() && std::all_of(build.begin(), build.end(),
                                                 [](char c) {
                                                     return chars::is_alnum(c) || c == '_' ||
                                                            c == '.' || c == '+' || c == '*';
                                                 });
        }

        // Clauses joined by ',', each an optional operator (not a lone '=', which the full
        // parser sanitizes) and version characters; a leading `==` only alone, without ','.
        static auto is_common_version(std::string_view version) -> bool
        {
            if (version.empty() ||
                (version.starts_with("==") && version.find(',') != std::string_view::npos))
            {
                return false;
            }
            std::size_t at = 0;
            while (true)
            {
                // An operator: >=, <=, ==, != or ~=, else > or <.
                if (at < version.size())
                {
                    const char c = version[at];
                    const bool two = at + 1 < version.size() && version[at + 1] == '=' &&
                                     (c == '>' || c == '<' || c == '=' || c == '!' || c == '~');
                    at += two ? 2 : (c == '>' || c == '<') ? 1 : 0;
                }
                const std::size_t clause_begin = at;
                while (at < version.size() &&
                       (chars::is_alnum(version[at]) || version[at] == '.' || version[at] == '_' ||
                        version[at] == '*' || version[at] == '+'))
                {
                    ++at;
                }
                if (at == clause_begin)
                {
                    return false;
                }
                if (at == version.size())
                {
                    return true;
                }
                if (version[at] != ',')
                {
                    return false;
                }
                ++at;
            }
        }

        struct BracketEntry
        {
            SpecField field = SpecField::name;
            std::size_t value_begin = 0;
            std::size_t value_end = 0;
        };

        void fail(std::size_t offset, std::string message)
        {
            if (!m_error)
            {
                m_error = util::ParseError{ std::string(m_original), original_offset(offset),
                                            std::move(message) };
            }
        }

        // "invalid character 'X' in <where>", X being the character at `offset`.
        void fail_character(std::size_t offset, std::string_view where)
        {
            fail(offset, std::string("invalid character '") + m_input[offset] + "' in " +
                           std::string(where));
        }

        void warn(std::size_t begin, std::size_t end, std::string message)
        {
            const std::size_t from = original_offset(begin);
            const std::size_t to = std::max(from, original_offset(end, true));
            m_spec.m_warnings.push_back({ from, to - from, std::move(message) });
        }

        // Where an offset into the text being read lies in the text as given: the positional
        // part is read with the [key=value] list and the legacy (...) block cut out, as conda
        // does, and every offset reported comes back through here. An offset at a cut is the
        // character after it, unless it ends a range (`end`).
        auto original_offset(std::size_t offset, bool end = false) const -> std::size_t
        {
            std::size_t out = offset;
            for (const auto& cut : m_cuts)
            {
                if (cut.at < offset || (!end && cut.at == offset))
                {
                    out += cut.length;
                }
            }
            return out;
        }

        // Re-anchors an error of a sub-parser that read m_input[offset, ...).
        void fail_inside(std::size_t offset, const util::ParseError& error)
        {
            fail(offset + error.offset, error.message);
        }

        void set_span(SpecField field, std::size_t begin, std::size_t end)
        {
            const std::size_t from = original_offset(begin);
            const std::size_t to = std::max(from, original_offset(end, true));
            m_spec.m_spans[static_cast<std::size_t>(field)] = TextSpan{ from, to - from };
        }

        auto text(std::size_t begin, std::size_t end) const -> std::string_view
        {
            return m_input.substr(begin, end - begin);
        }

        auto skip_space(std::size_t at, std::size_t end) const -> std::size_t
        {
            while (at < end && chars::is_space(m_input[at]))
            {
                ++at;
            }
            return at;
        }

        auto trim_end(std::size_t begin, std::size_t end) const -> std::size_t
        {
            while (end > begin && chars::is_space(m_input[end - 1]))
            {
                --end;
            }
            return end;
        }

        void parse()
        {
            const auto first = m_input.find_first_not_of(util::whitespace);
            if (first == std::string_view::npos)
            {
                return; // conda and mamba: the empty spec matches every package
            }
            const std::size_t begin = first;
            std::size_t end = m_input.find_last_not_of(util::whitespace) + 1;
            for (std::size_t i = begin; i < end; ++i)
            {
                const auto c = static_cast<unsigned char>(m_input[i]);
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                {
                    fail(i, "invalid control character in a package spec");
                    return;
                }
            }

            // '#' starts a comment (or, after a package URL, a checksum); ` if ...` is cut off as
            // conda does; what is left may be a package URL or path.
            const auto hash = m_input.find('#', begin);
            std::size_t head_end = trim_end(begin, hash == std::string_view::npos ? end : hash);
            const auto condition = find_top_level(" if ", begin, head_end);
            if (condition != std::string_view::npos)
            {
                m_spec.m_warnings.push_back({ condition + 1, head_end - condition - 1,
                                              "the condition ' if ...' is ignored, as conda "
                                              "ignores it; use [when=\"...\"]" });
                head_end = trim_end(begin, condition);
            }
            if (!package_extension(text(begin, head_end)).empty())
            {
                const bool checksum = condition == std::string_view::npos;
                parse_package_file(begin, head_end, checksum ? hash : std::string_view::npos, end);
                return;
            }
            end = head_end;
            if (end == begin)
            {
                fail(begin, "expected a package spec before the '#' comment");
                return;
            }

            // "mkl@": conda's old way of asking for a feature.
            if (m_input[end - 1] == '@')
            {
                parse_feature(begin, end - 1);
                return;
            }

            // conda cuts the [key=value] list out wherever it is, then a legacy (...) block, and
            // reads what is left as channel, name, version and build.
            std::vector<std::pair<std::size_t, std::size_t>> removed;
            if (const auto block = parse_brackets(begin, end))
            {
                removed.push_back(*block);
            }
            if (m_error)
            {
                return;
            }
            // Without a list to cut out the text is read in place, with no copy.
            std::size_t positional_end = removed.empty() ? end : cut_out(removed, end);
            if (const auto legacy = legacy_block(begin, positional_end))
            {
                m_input = m_original;
                m_cuts.clear();
                removed.push_back(*legacy);
                std::sort(removed.begin(), removed.end());
                // The block may hold the [key=value] list: one cut then.
                std::vector<std::pair<std::size_t, std::size_t>> merged;
                for (const auto& range : removed)
                {
                    if (!merged.empty() && range.first <= merged.back().second)
                    {
                        merged.back().second = std::max(merged.back().second, range.second);
                        continue;
                    }
                    merged.push_back(range);
                }
                positional_end = cut_out(merged, end);
            }
            parse_positional(begin, trim_end(begin, positional_end));
            m_input = m_original;
            m_cuts.clear();
            if (m_error)
            {
                return;
            }
            apply_brackets();
        }

        // Makes m_input the original text without the `removed` ranges (sorted, disjoint, within
        // [.., end)); returns where the positional part [.., end) now ends.
        auto cut_out(const std::vector<std::pair<std::size_t, std::size_t>>& removed,
                     std::size_t end) -> std::size_t
        {
            m_positional.clear();
            m_cuts.clear();
            std::size_t at = 0;
            std::size_t removed_length = 0;
            for (const auto& [from, to] : removed)
            {
                m_positional.append(m_original.substr(at, from - at));
                m_cuts.push_back({ from - removed_length, to - from });
                removed_length += to - from;
                at = to;
            }
            m_positional.append(m_original.substr(at));
            m_input = m_positional;
            return end - removed_length;
        }

        // conda's legacy "(target=..., optional)" block (its _PARENS_RE): the last '(' that a ')'
        // follows, through the last ')', in the positional text as cut so far. conda cuts it out
        // whatever it holds (and marks the spec optional when it holds "optional"); so do we,
        // with a warning, except for a parenthesized compound version after the name
        // (`numpy (1.7|1.8),<2`), which CEP 29 allows and conda's classic parser drops or
        // rejects: that is kept, with a warning. Returns the cut range in the original text.
        auto legacy_block(std::size_t begin, std::size_t end)
          -> std::optional<std::pair<std::size_t, std::size_t>>
        {
            const auto close = m_input.rfind(')', end == 0 ? 0 : end - 1);
            if (close == std::string_view::npos || close < begin)
            {
                return std::nullopt;
            }
            const auto open = m_input.rfind('(', close);
            if (open == std::string_view::npos || open < begin ||
                (m_channel_bracket && original_offset(open) < m_channel_bracket->second))
            {
                return std::nullopt;
            }
            const std::string_view content = text(open + 1, close);
            // What is not that block is a version only if it reads as a compound version
            // expression; anything else conda cuts out, and so do we.
            if (!is_legacy_block(content) && !opens_in_name(open, begin, end) &&
                is_compound_version(content))
            {
                warn(open, close + 1,
                     "conda's classic parser takes '(...)' outside brackets for the legacy "
                     "(target=..., optional) block and drops or rejects this version; write it "
                     "in brackets, as [version='...']");
                return std::nullopt;
            }
            const bool optional = content.find("optional") != std::string_view::npos;
            m_spec.m_optional = m_spec.m_optional || optional;
            warn(open, close + 1,
                 std::string("conda ignores the legacy '(...)' block") +
                   (optional ? " (its 'optional' marks the spec optional)" : "") +
                   "; rattler, pixi and mamba reject it");
            return std::pair{ original_offset(open), original_offset(close + 1, true) };
        }

        // Whether the '(' at `open` stands in the package name (`numpy(...)`), before the first
        // space or operator after the channel's last ':'.
        auto opens_in_name(std::size_t open, std::size_t begin, std::size_t end) const -> bool
        {
            const auto colon = m_input.rfind(':', open);
            const std::size_t name_begin =
              skip_space(colon == std::string_view::npos || colon < begin ? begin : colon + 1, end);
            const auto name_end = m_input.find_first_of(" \t=<>!~", name_begin);
            return name_end == std::string_view::npos || open < name_end;
        }

        // The first `needle` outside brackets and quotes.
        auto find_top_level(std::string_view needle, std::size_t begin, std::size_t end) const
          -> std::size_t
        {
            int depth = 0;
            char quote = '\0';
            for (std::size_t i = begin; i < end; ++i)
            {
                const char c = m_input[i];
                if (quote != '\0')
                {
                    quote = c == quote ? '\0' : quote;
                    continue;
                }
                if (depth > 0 && (c == '\'' || c == '"'))
                {
                    quote = c;
                }
                else if (c == '[')
                {
                    ++depth;
                }
                else if (c == ']')
                {
                    --depth;
                }
                else if (depth == 0 && m_input.substr(i, needle.size()) == needle &&
                         i + needle.size() <= end)
                {
                    return i;
                }
            }
            return std::string_view::npos;
        }

        // The ']' matching the '[' at `open`; npos (after reporting a quote left open) if none.
        auto find_closing_bracket(std::size_t open, std::size_t end) -> std::size_t
        {
            int depth = 0;
            char quote = '\0';
            std::size_t quote_start = 0;
            for (std::size_t i = open; i < end; ++i)
            {
                const char c = m_input[i];
                if (quote != '\0')
                {
                    quote = c == quote ? '\0' : quote;
                    continue;
                }
                if (c == '\'' || c == '"')
                {
                    quote = c;
                    quote_start = i;
                }
                else if (c == '[')
                {
                    ++depth;
                }
                else if (c == ']' && --depth == 0)
                {
                    return i;
                }
            }
            if (quote != '\0')
            {
                fail(quote_start,
                     std::string("missing closing ") + quote + " for this quoted value");
            }
            return std::string_view::npos;
        }

        // Finds the key=value list (and a legacy `channel[subdir]::` block) and reads the list;
        // returns its range [open, close + 1). Text may follow it: conda cuts the list out of the
        // spec wherever it stands (`fsspec[http]>=0.6` is `fsspec>=0.6`), where rattler and
        // mamba want it last, so that is accepted with a warning.
        auto parse_brackets(std::size_t begin, std::size_t end)
          -> std::optional<std::pair<std::size_t, std::size_t>>
        {
            std::size_t at = begin;
            while (true)
            {
                const auto open = m_input.find('[', at);
                if (open == std::string_view::npos || open >= end)
                {
                    return std::nullopt;
                }
                const auto close = find_closing_bracket(open, end);
                if (close == std::string_view::npos)
                {
                    fail(open, "missing ']' to close this '['");
                    return std::nullopt;
                }
                const std::size_t after = skip_space(close + 1, end);
                if (after < end && m_input[after] == ':')
                {
                    m_channel_bracket = { open, close };
                    at = close + 1;
                    continue;
                }
                if (const auto again = m_input.find('[', after); again < end)
                {
                    fail(again, "only one [key=value] list is allowed");
                    return std::nullopt;
                }
                const std::size_t entries = m_brackets.size();
                parse_bracket_list(open, close);
                if (after < end && m_input[after] != '(' && m_brackets.size() > entries)
                {
                    warn(open, close + 1,
                         "conda reads a [key=value] list anywhere in a spec, rattler, pixi and "
                         "mamba only at its end: move it to the end");
                }
                return std::pair{ open, close + 1 };
            }
        }

        // conda's classic parser picks the key=value pairs out of the list (its _BRACKETS_KV_RE)
        // and passes over everything else. Bare words (pip extras such as [http,ssl]) are
        // accepted with a warning, as rattler and pixi reject them; a key whose value conda would
        // drop (`version>3`, `version = 1`, a constraint after an unquoted ',') is an error,
        // since conda would then install something the file did not ask for.
        void parse_bracket_list(std::size_t open, std::size_t close)
        {
            std::vector<std::string> skipped;
            std::size_t at = open + 1;
            while (!m_error)
            {
                while (at < close && (chars::is_space(m_input[at]) || m_input[at] == ','))
                {
                    ++at;
                }
                if (at >= close)
                {
                    break;
                }
                const std::size_t key_begin = at;
                const std::size_t key_end = bracket_key_end(key_begin, close);
                if (key_end == key_begin || key_end >= close || m_input[key_end] != '=')
                {
                    if (!skip_bracket_word(key_begin, key_end, close, skipped))
                    {
                        return;
                    }
                    at = bracket_word_end(key_begin, close);
                    continue;
                }
                const auto pair_end = parse_bracket_pair(key_begin, key_end, close);
                if (!pair_end)
                {
                    return;
                }
                at = *pair_end;
            }
            if (!skipped.empty())
            {
                warn(open, close + 1,
                     "conda's classic parser silently drops [" + util::join(skipped, ",") +
                       "] (not key=value; pip extras mean nothing to a conda package), while "
                       "rattler and pixi reject the spec");
            }
        }

        // Where the key characters of a bracket entry starting at `begin` end.
        auto bracket_key_end(std::size_t begin, std::size_t close) const -> std::size_t
        {
            std::size_t at = begin;
            while (at < close &&
                   (chars::is_alnum(m_input[at]) || m_input[at] == '_' || m_input[at] == '-'))
            {
                ++at;
            }
            return at;
        }

        // One key=value pair of the list, `key_end` at its '=': reads the value and records the
        // entry. Returns where the pair ends; nullopt after reporting a value conda would lose.
        auto parse_bracket_pair(std::size_t key_begin, std::size_t key_end, std::size_t close)
          -> std::optional<std::size_t>
        {
            const std::string_view key = text(key_begin, key_end);
            const std::size_t at = key_end + 1;
            const bool quoted = at < close && (m_input[at] == '\'' || m_input[at] == '"');
            const auto value =
              quoted ? quoted_bracket_value(at, close) : plain_bracket_value(at, close);
            if (!value)
            {
                return std::nullopt;
            }
            const auto [value_begin, value_end] = *value;
            if (value_begin == value_end || util::trim(text(value_begin, value_end)).empty())
            {
                fail(value_begin, "empty value for '" + std::string(key) + "'");
                return std::nullopt;
            }
            add_bracket_entry(key, key_begin, value_begin, value_end);
            return quoted ? value_end + 1 : value_end; // past the closing quote
        }

        // The value inside the quote at `at`, which a ',', a space or the list's end must follow.
        auto quoted_bracket_value(std::size_t at, std::size_t close)
          -> std::optional<std::pair<std::size_t, std::size_t>>
        {
            const char quote = m_input[at];
            const auto closing = m_input.find(quote, at + 1);
            if (closing == std::string_view::npos || closing >= close)
            {
                fail(at, std::string("missing closing ") + quote + " for this quoted value");
                return std::nullopt;
            }
            const std::size_t after = closing + 1;
            if (after < close && !chars::is_space(m_input[after]) && m_input[after] != ',')
            {
                fail(after, "expected ',' or ']' after the quoted value");
                return std::nullopt;
            }
            return std::pair{ at + 1, closing };
        }

        // An unquoted value from `begin`: to the first space or ',' outside nested [...].
        auto plain_bracket_value(std::size_t begin, std::size_t close)
          -> std::optional<std::pair<std::size_t, std::size_t>>
        {
            int depth = 0;
            std::size_t at = begin;
            while (at < close)
            {
                const char c = m_input[at];
                if (depth == 0 && (chars::is_space(c) || c == ','))
                {
                    break;
                }
                if (c == '\'' || c == '"')
                {
                    // (inside [...] too: the value could not be quoted when written back)
                    fail(at, "unexpected quote inside a value; quote the whole value");
                    return std::nullopt;
                }
                depth += c == '[' ? 1 : c == ']' ? -1 : 0;
                ++at;
            }
            return std::pair{ begin, at };
        }

        // Where a word in brackets that is not a key=value pair ends.
        auto bracket_word_end(std::size_t begin, std::size_t close) const -> std::size_t
        {
            std::size_t at = begin;
            while (at < close && !chars::is_space(m_input[at]) && m_input[at] != ',')
            {
                ++at;
            }
            return std::max(at, begin + 1);
        }

        // A word in brackets that is not a key=value pair, `key_end` after its leading key
        // characters: the legacy flag `optional`, something conda skips (kept in `skipped`), or
        // a value conda would lose (an error; returns false).
        auto skip_bracket_word(std::size_t begin, std::size_t key_end, std::size_t close,
                               std::vector<std::string>& skipped) -> bool
        {
            const std::string_view key = text(begin, key_end);
            const std::size_t word_end = bracket_word_end(begin, close);
            const std::size_t next = skip_space(key_end, close);
            const bool known_key = parse_spec_field(key).has_value() || key == "target";
            if (key == "optional" && word_end == key_end)
            {
                m_spec.m_optional = true; // conda's legacy bare flag
                return true;
            }
            if (known_key && next < close &&
                std::string_view("=<>!~").find(m_input[next]) != std::string_view::npos)
            {
                const std::string_view rest = util::trim(text(next, close));
                if (m_input[next] == '=')
                {
                    fail(key_end, "conda's classic parser drops '" + std::string(key) +
                                    " =...' silently (spaces around '='); write " +
                                    std::string(key) + "=" +
                                    std::string(util::trim(rest.substr(1))));
                }
                else
                {
                    fail(key_end, "expected '=' after '" + std::string(key) + "'; write " +
                                    std::string(key) + "='" + std::string(rest) +
                                    "' (conda's classic parser drops it silently)");
                }
                return false;
            }
            if (key.empty() &&
                std::string_view("=<>!~").find(m_input[begin]) != std::string_view::npos)
            {
                fail(begin, "conda's classic parser drops '" + std::string(text(begin, word_end)) +
                              "' silently: quote a value that holds ',' or ' ', as "
                              "version='>=1,<2'");
                return false;
            }
            skipped.emplace_back(text(begin, word_end));
            return true;
        }

        void add_bracket_entry(std::string_view key, std::size_t key_begin, std::size_t value_begin,
                               std::size_t value_end)
        {
            if (key == "target" || key == "optional")
            {
                // MatchSpec(optional=..., target=...): conda consumes both keywords.
                m_spec.m_optional = m_spec.m_optional || key == "optional";
                warn(key_begin, value_end,
                     "'" + std::string(key) + "=' is conda's legacy keyword: " +
                       (key == "optional" ? "it marks the spec optional"
                                          : std::string("conda ignores it")) +
                       "; rattler, pixi and mamba reject it");
                return;
            }
            const auto field = parse_spec_field(key);
            if (!field || *field == SpecField::namespace_name)
            {
                std::string message = "unknown key '" + std::string(key) + "'";
                if (key == "extras" || key == "flags")
                {
                    message += ": conda's classic parser cannot match '" + std::string(key) +
                               "' (conda 26 with solver=rattler reads it)";
                }
                else
                {
                    std::vector<std::string> keys;
                    for (const auto known : field_keys)
                    {
                        if (known != "namespace")
                        {
                            keys.emplace_back(known);
                        }
                    }
                    if (const auto suggestion = util::closest_match(key, keys))
                    {
                        message += "; did you mean '" + *suggestion + "'?";
                    }
                }
                fail(key_begin, message);
                return;
            }
            const auto earlier =
              std::find_if(m_brackets.begin(), m_brackets.end(),
                           [&](const BracketEntry& entry) { return entry.field == *field; });
            if (earlier != m_brackets.end())
            {
                warn(key_begin, value_end,
                     "'" + std::string(key) +
                       "' is given twice: conda uses the last value, rattler rejects the spec");
                m_brackets.erase(earlier);
            }
            m_brackets.push_back({ *field, value_begin, value_end });
        }

        void parse_feature(std::size_t begin, std::size_t end)
        {
            end = trim_end(begin, end);
            const std::string_view feature = text(begin, end);
            if (feature.empty())
            {
                fail(begin, "expected a feature name before '@'");
                return;
            }
            for (std::size_t i = begin; i < end; ++i)
            {
                const char c = m_input[i];
                if (!is_name_char(c)) // a feature is named as a package is
                {
                    fail_character(i, "a feature name");
                    return;
                }
            }
            m_spec.m_track_features = std::vector<std::string>{ util::to_lower(feature) };
            set_span(SpecField::track_features, begin, end);
        }

        // A package name or name pattern; `literal` (a package file's name): a name only.
        auto parse_name(std::size_t begin, std::size_t end, bool literal = false)
          -> std::optional<StringMatcher>
        {
            const std::string lowered = util::to_lower(text(begin, end));
            const bool regex =
              !literal && lowered.size() > 1 && lowered.front() == '^' && lowered.back() == '$';
            const bool glob = !literal && !regex && lowered.find('*') != std::string::npos;
            if (regex || glob)
            {
                if (!check_name_pattern(lowered, begin))
                {
                    return std::nullopt;
                }
                if (glob)
                {
                    warn_unmatchable_glob(lowered, begin, end);
                }
            }
            else if (!check_package_name(lowered, begin))
            {
                return std::nullopt;
            }
            if (!package_extension(lowered).empty())
            {
                // Text ending in .conda or .tar.bz2 is read as a package file, never as a name.
                fail(begin, "a package name cannot end in .conda or .tar.bz2");
                return std::nullopt;
            }
            auto matcher = StringMatcher::parse(lowered);
            if (!matcher)
            {
                fail_inside(begin, matcher.error());
                return std::nullopt;
            }
            return std::move(matcher).value();
        }

        // conda does not check a name pattern; characters that would read back as something
        // else are still refused: quotes, '@', ':', and brackets and parentheses, which conda
        // cuts out of a spec wherever they stand (so a regex cannot group or hold a class).
        // `pattern` (lowercased) starts at `begin`; false when refused.
        auto check_name_pattern(std::string_view pattern, std::size_t begin) -> bool
        {
            for (std::size_t i = 0; i < pattern.size(); ++i)
            {
                if (std::string_view("'\"[]()@#:").find(pattern[i]) != std::string_view::npos ||
                    chars::is_space(pattern[i]))
                {
                    fail_character(begin + i, "a package name pattern");
                    return false;
                }
            }
            return true;
        }

        // A glob is accepted whatever it holds, but one with a character no name has matches
        // nothing: worth a warning.
        void warn_unmatchable_glob(std::string_view glob, std::size_t begin, std::size_t end)
        {
            const auto odd = std::find_if(glob.begin(), glob.end(),
                                          [](char c) { return !is_name_char(c) && c != '*'; });
            if (odd != glob.end())
            {
                warn(begin, end,
                     "the name pattern '" + std::string(glob) + "' has '" + std::string(1, *odd) +
                       "', which no package name has: it matches nothing");
            }
        }

        // A plain package name (lowercased, not empty, starting at `begin`); false when refused.
        // A '*' here is always refused: in a spec it would have made the name a glob, so it can
        // only come from a package file's name.
        auto check_package_name(std::string_view name, std::size_t begin) -> bool
        {
            if (const auto odd = std::find_if_not(name.begin(), name.end(), is_name_char);
                odd != name.end())
            {
                fail_character(begin + static_cast<std::size_t>(odd - name.begin()),
                               "package name");
                return false;
            }
            if (name.front() == '.' || name.front() == '-')
            {
                fail(begin, std::string("a package name cannot start with '") + name.front() + "'");
                return false;
            }
            for (const std::string_view doubled : { "..", "--" })
            {
                if (const auto at = name.find(doubled); at != std::string_view::npos)
                {
                    fail(begin + at,
                         "a package name cannot contain '" + std::string(doubled) + "'");
                    return false;
                }
            }
            return true;
        }

        void set_channel(std::size_t begin, std::size_t end, SpecField span_field)
        {
            const std::string_view written = text(begin, end);
            const ChannelPath path = split_subdir(written);
            if (path.subdir && split_subdir(path.channel).subdir)
            {
                fail(begin, "a channel ends in one subdir at most, not '" +
                              std::string(split_subdir(path.channel).subdir.value()) + "/" +
                              std::string(*path.subdir) + "'");
                return;
            }
            auto channel = Channel::parse(path.channel);
            if (!channel)
            {
                fail_inside(begin, channel.error());
                return;
            }
            m_spec.m_channel =
              channel->is_free() ? std::nullopt : std::optional<Channel>(channel->for_spec());
            set_span(span_field, begin, end);
            if (path.subdir)
            {
                const auto subdir_begin =
                  begin + static_cast<std::size_t>(path.subdir->data() - written.data());
                set_subdir(subdir_begin, subdir_begin + path.subdir->size());
            }
        }

        void set_subdir(std::size_t begin, std::size_t end)
        {
            auto subdir = StringMatcher::parse(util::to_lower(text(begin, end)));
            if (!subdir)
            {
                fail_inside(begin, subdir.error());
                return;
            }
            m_spec.m_subdir =
              subdir->is_free() ? std::nullopt : std::optional<StringMatcher>(std::move(*subdir));
            set_span(SpecField::subdir, begin, end);
        }

        // conda's _sanitize_version_str, applied to the positional version and to a bracket
        // version (always "without a build" there, as in conda): a leading `==` is dropped
        // when there is no build (`pkg==*` is any version, `pkg==1.7.*` starts with 1.7); a
        // leading `=` (or `==` with a build) is dropped when no ',', '|' or '=' follows, and
        // without a build a '*' is appended (`=1.7` is 1.7*, `=>1.2` is >1.2*, `=1.*.3` the glob
        // 1.*.3*). `keep_fuzzy`: CEP 29 keeps `pkg =1.8 build` fuzzy, where conda's code would
        // make it exact.
        void set_version(std::size_t begin, std::size_t end, bool build_present = false,
                         std::optional<std::size_t> written_begin = std::nullopt,
                         bool keep_fuzzy = false)
        {
            const std::size_t span_begin = written_begin.value_or(begin);
            const std::string_view written = text(begin, end);
            std::string sanitized(written);
            std::size_t equals = 0;
            while (equals < written.size() && written[equals] == '=')
            {
                ++equals;
            }
            const std::size_t rest = skip_space(begin + equals, end);
            const std::string_view without = text(rest, end);
            const bool plain = !without.empty() && chars::is_alnum(without.front());
            if (equals > 0 && !without.empty() && !(keep_fuzzy && equals == 1 && plain))
            {
                if (equals >= 2 && !build_present)
                {
                    sanitized = std::string(without);
                    begin = rest;
                }
                else if (without.find_first_of(",|=") == std::string_view::npos)
                {
                    if (equals == 1 &&
                        std::string_view("<>!~").find(without.front()) != std::string_view::npos)
                    {
                        warn(begin, end,
                             "'=" + std::string(1, without.front()) +
                               "' is not an operator: conda drops the '=' and reads '" +
                               std::string(without) +
                               (build_present || without.ends_with('*') ? "" : "*") + "'");
                    }
                    sanitized = std::string(without);
                    begin = rest;
                    // (conda appends it to a regex too, and its treeify then drops it again)
                    if (!build_present && !without.ends_with('*') && !without.starts_with('^'))
                    {
                        sanitized += '*';
                    }
                }
            }
            auto version = VersionSpec::parse(sanitized);
            if (!version)
            {
                fail_inside(begin, version.error());
                return;
            }
            for (const auto& warning : version->warnings())
            {
                warn(begin + warning.offset, begin + warning.offset + warning.length,
                     warning.message);
            }
            m_spec.m_version = std::make_shared<const VersionSpec>(std::move(version).value());
            set_span(SpecField::version, span_begin, end);
        }

        auto string_matcher(std::size_t begin, std::size_t end) -> std::optional<StringMatcher>
        {
            auto matcher = StringMatcher::parse(text(begin, end));
            if (!matcher)
            {
                fail_inside(begin, matcher.error());
                return std::nullopt;
            }
            return std::move(matcher).value();
        }

        // conda's _parse_version_plus_build: the build starts after the first ' ' or '=' that
        // follows a non-operator character (looking back over spaces) and is followed only by
        // characters a build string may hold.
        auto split_build(std::size_t begin, std::size_t end) const -> std::size_t
        {
            for (std::size_t p = begin + 1; p < end; ++p)
            {
                const char c = m_input[p];
                if (c != ' ' && c != '=')
                {
                    continue;
                }
                std::size_t before = p;
                while (before > begin && chars::is_space(m_input[before - 1]))
                {
                    --before;
                }
                if (before == begin ||
                    std::string_view("=!|,<>~").find(m_input[before - 1]) != std::string_view::npos)
                {
                    continue;
                }
                const std::string_view tail = text(p + 1, end);
                if (util::trim(tail).empty() ||
                    tail.find_first_of("-=,|<>~") != std::string_view::npos)
                {
                    continue;
                }
                return p;
            }
            return std::string_view::npos;
        }

        // channel[[subdir]]:namespace:name version build, the part outside brackets.
        void parse_positional(std::size_t begin, std::size_t end)
        {
            const std::size_t rest = parse_channel_and_namespace(begin, end);
            if (m_error)
            {
                return;
            }

            // The name runs to the first space or operator.
            const std::size_t name_begin = skip_space(rest, end);
            std::size_t name_end = name_begin;
            while (name_end < end &&
                   std::string_view(" \t=<>!~").find(m_input[name_end]) == std::string_view::npos)
            {
                ++name_end;
            }
            if (name_end == name_begin)
            {
                fail(name_begin,
                     name_begin < end
                       ? std::string("expected a package name before '") + m_input[name_begin] + "'"
                       : "expected a package name");
                return;
            }
            auto name = parse_name(name_begin, name_end);
            if (!name)
            {
                return;
            }
            m_spec.m_name = std::move(*name);
            set_span(SpecField::name, name_begin, name_end);
            parse_version_and_build(skip_space(name_end, end), end);
        }

        // channel:namespace: before the name, split at the last two ':' as conda's
        // rsplit(':', 2); returns where the name part starts.
        auto parse_channel_and_namespace(std::size_t begin, std::size_t end) -> std::size_t
        {
            const auto last_colon = m_input.rfind(':', end == 0 ? 0 : end - 1);
            if (last_colon == std::string_view::npos || last_colon < begin)
            {
                if (m_channel_bracket)
                {
                    fail(m_channel_bracket->first,
                         "expected '::' after a [subdir] that follows a channel");
                }
                return begin;
            }
            const auto previous =
              last_colon > begin ? m_input.rfind(':', last_colon - 1) : std::string_view::npos;
            std::size_t namespace_begin = begin;
            if (previous != std::string_view::npos && previous >= begin)
            {
                if (!parse_positional_channel(begin, previous))
                {
                    return begin;
                }
                namespace_begin = previous + 1;
            }
            const std::size_t ns_begin = skip_space(namespace_begin, last_colon);
            const std::size_t ns_end = trim_end(ns_begin, last_colon);
            if (ns_end > ns_begin)
            {
                m_spec.m_namespace = std::string(text(ns_begin, ns_end));
                set_span(SpecField::namespace_name, ns_begin, ns_end);
            }
            return last_colon + 1;
        }

        // The channel in [begin, colon), colon being the ':' before the namespace, with the
        // [subdir] that may follow it; false when that [subdir] is refused.
        auto parse_positional_channel(std::size_t begin, std::size_t colon) -> bool
        {
            std::size_t channel_end = colon;
            if (m_channel_bracket && m_channel_bracket->first < colon)
            {
                const auto [open, close] = *m_channel_bracket;
                if (skip_space(close + 1, colon) != colon)
                {
                    fail(skip_space(close + 1, colon),
                         "expected '::' after the [subdir] of a channel");
                    return false;
                }
                channel_end = open;
                const std::size_t subdir_begin = skip_space(open + 1, close);
                if (subdir_begin == close)
                {
                    fail(open, "expected a subdir inside the [] after the channel");
                    return false;
                }
                // Unquoted, so a quote would be part of the subdir, and one holding both
                // kinds could not be written back in any bracket value.
                if (const auto quote = text(subdir_begin, close).find_first_of("'\"");
                    quote != std::string_view::npos)
                {
                    fail_character(subdir_begin + quote, "the [subdir] of a channel");
                    return false;
                }
                set_subdir(subdir_begin, trim_end(subdir_begin, close));
            }
            const std::size_t channel_begin = skip_space(begin, channel_end);
            channel_end = trim_end(channel_begin, channel_end);
            if (channel_end > channel_begin)
            {
                set_channel(channel_begin, channel_end, SpecField::channel);
            }
            return true;
        }

        // The version and build after the name, from `vb_begin` (past the spaces after it).
        void parse_version_and_build(std::size_t vb_begin, std::size_t end)
        {
            if (vb_begin == end || text(vb_begin, end) == "=")
            {
                return; // `numpy` or `numpy=` (conda ignores a lone trailing '=')
            }
            const auto separator = split_build(vb_begin, end);
            const bool build_present = separator != std::string_view::npos;
            std::size_t version_end = end;
            if (separator != std::string_view::npos)
            {
                version_end = trim_end(vb_begin, separator);
                const std::size_t build_begin = skip_space(separator + 1, end);
                set_positional_build(build_begin, end);
                if (m_error)
                {
                    return;
                }
            }
            const std::string_view version = text(vb_begin, version_end);
            if (has_bracket(SpecField::version))
            {
                // conda never reads a version that the bracket one replaces.
                warn(vb_begin, version_end,
                     "the version '" + std::string(version) +
                       "' is ignored: the version in brackets replaces it");
                return;
            }
            if (version == "=" || version == "==")
            {
                fail(version_end, "expected a version after '" + std::string(version) + "'");
                return;
            }
            const bool space_separated = build_present && m_input[separator] != '=';
            set_version(vb_begin, version_end, build_present, vb_begin, space_separated);
        }

        auto has_bracket(SpecField field) const -> bool
        {
            return std::any_of(m_brackets.begin(), m_brackets.end(),
                               [&](const BracketEntry& entry) { return entry.field == field; });
        }

        // The build after the version. conda takes everything after the separator as the build,
        // spaces included (`pkg 1.2 py_0 x` has the build "py_0 x"), which no package has:
        // accepted with a warning. A bracket build replaces it unread, as in conda.
        void set_positional_build(std::size_t begin, std::size_t end)
        {
            if (has_bracket(SpecField::build))
            {
                warn(begin, end,
                     "the build '" + std::string(text(begin, end)) +
                       "' is ignored: the build in brackets replaces it");
                return;
            }
            for (std::size_t i = begin; i < end; ++i)
            {
                if (std::string_view("'\"[]").find(m_input[i]) != std::string_view::npos)
                {
                    fail_character(i, "a build string");
                    return;
                }
            }
            for (std::size_t i = begin; i < end; ++i)
            {
                if (chars::is_space(m_input[i]))
                {
                    warn(begin, end,
                         "conda reads '" + std::string(text(begin, end)) +
                           "' as one build string, and no package has a build with a space: a "
                           "spec has at most three fields (name, version, build)");
                    break;
                }
            }
            auto build = string_matcher(begin, end);
            if (!build)
            {
                return;
            }
            m_spec.m_build = std::move(*build);
            set_span(SpecField::build, begin, end);
        }

        // As conda applies them: the channel (and the subdir it may end in), then the subdir, so
        // that [subdir=...] wins whatever the order written; then the rest.
        void apply_brackets()
        {
            auto rank = [](const BracketEntry& entry) {
                return entry.field == SpecField::channel  ? 0
                       : entry.field == SpecField::subdir ? 1
                                                          : 2;
            };
            std::stable_sort(m_brackets.begin(), m_brackets.end(),
                             [&](const BracketEntry& a, const BracketEntry& b)
                             { return rank(a) < rank(b); });
            for (const auto& entry : m_brackets)
            {
                if (m_error)
                {
                    return;
                }
                const std::size_t begin = entry.value_begin;
                const std::size_t end = entry.value_end;
                const std::string_view value = text(begin, end);
                switch (entry.field)
                {
                    case SpecField::channel:
                        set_channel(begin, end, SpecField::channel);
                        break;
                    case SpecField::subdir:
                        set_subdir(begin, end);
                        break;
                    case SpecField::name:
                        m_spec.m_warnings.push_back(
                          { begin, end - begin,
                            "'name' inside brackets is ignored; the name outside them is used" });
                        break;
                    case SpecField::version:
                        set_version(begin, end);
                        break;
                    case SpecField::build:
                        if (auto build = string_matcher(begin, end))
                        {
                            m_spec.m_build = std::move(*build);
                            set_span(SpecField::build, begin, end);
                        }
                        break;
                    case SpecField::build_number:
                    {
                        auto build_number = BuildNumberSpec::parse(value);
                        if (!build_number)
                        {
                            fail_inside(begin, build_number.error());
                            break;
                        }
                        m_spec.m_build_number = std::move(build_number).value();
                        set_span(SpecField::build_number, begin, end);
                        break;
                    }
                    case SpecField::track_features:
                        m_spec.m_track_features = feature_set(value);
                        set_span(SpecField::track_features, begin, end);
                        break;
                    case SpecField::features:
                        m_spec.m_features = feature_set(value);
                        set_span(SpecField::features, begin, end);
                        break;
                    case SpecField::url:
                        m_spec.m_url = std::string(value);
                        set_span(SpecField::url, begin, end);
                        break;
                    case SpecField::md5:
                        m_spec.m_md5 = std::string(value);
                        set_span(SpecField::md5, begin, end);
                        break;
                    case SpecField::sha256:
                        m_spec.m_sha256 = std::string(value);
                        set_span(SpecField::sha256, begin, end);
                        break;
                    case SpecField::fn:
                        m_spec.m_fn = std::string(value);
                        set_span(SpecField::fn, begin, end);
                        break;
                    case SpecField::license:
                    case SpecField::license_family:
                        if (auto matcher = StringMatcher::parse(util::to_lower(value)))
                        {
                            auto& target = entry.field == SpecField::license
                                             ? m_spec.m_license
                                             : m_spec.m_license_family;
                            target = std::move(matcher).value();
                            set_span(entry.field, begin, end);
                        }
                        else
                        {
                            fail_inside(begin, matcher.error());
                        }
                        break;
                    case SpecField::when:
                        m_spec.m_when = std::string(value);
                        set_span(SpecField::when, begin, end);
                        break;
                    case SpecField::namespace_name:
                        break;
                }
            }
        }

        void parse_package_file(std::size_t begin, std::size_t end, std::size_t hash,
                                std::size_t spec_end)
        {
            m_spec.m_package_file = true;
            const std::string_view written = text(begin, end);
            if (const auto quote = written.find('\'');
                quote != std::string_view::npos && written.find('"') != std::string_view::npos)
            {
                fail(begin + quote, "a package path cannot contain both ' and \"");
                return;
            }
            const std::string url = package_url(written);
            m_spec.m_url = url;
            set_span(SpecField::url, begin, end);

            const auto slash = written.find_last_of("/\\");
            const std::size_t fn_begin =
              slash == std::string_view::npos ? begin : begin + slash + 1;
            const std::string_view file_written = text(fn_begin, end);
            m_spec.m_fn = util::istarts_with(url, "file://") ? util::percent_decode(file_written)
                                                             : std::string(file_written);
            set_span(SpecField::fn, fn_begin, end);

            if (hash != std::string_view::npos)
            {
                parse_package_checksum(skip_space(hash + 1, spec_end), spec_end);
            }
            if (parse_package_channel(begin, url))
            {
                parse_package_file_name(fn_begin, end);
            }
        }

        // What follows a package URL's '#': an md5 or sha256 digest, or sha256:<digest>; anything
        // else is a comment.
        void parse_package_checksum(std::size_t begin, std::size_t end)
        {
            const std::string_view digest = text(begin, end);
            if (is_hex_digest(digest, 32))
            {
                m_spec.m_md5 = util::to_lower(digest);
                set_span(SpecField::md5, begin, end);
            }
            else if (is_hex_digest(digest, 64))
            {
                m_spec.m_sha256 = util::to_lower(digest);
                set_span(SpecField::sha256, begin, end);
            }
            else if (util::istarts_with(digest, "sha256:") && is_hex_digest(digest.substr(7), 64))
            {
                m_spec.m_sha256 = util::to_lower(digest.substr(7));
                set_span(SpecField::sha256, begin + 7, end);
            }
        }

        // The channel and subdir of a package URL's directory, `begin` the URL's offset. False
        // when its file name is not to be read: the URL is not in a channel (conda then matches
        // on url and fn only) or names no single channel (reported).
        auto parse_package_channel(std::size_t begin, std::string_view url) -> bool
        {
            const auto url_slash = url.rfind('/');
            const ChannelPath path = url_slash == std::string_view::npos || url_slash == 0
                                       ? ChannelPath{}
                                       : split_subdir(url.substr(0, url_slash));
            if (!path.subdir)
            {
                return false;
            }
            if (split_subdir(path.channel).subdir)
            {
                fail(begin, "a package URL has one subdir before the file name, not two");
                return false;
            }
            auto channel = Channel::parse(path.channel);
            if (channel)
            {
                channel = Channel::parse(channel->canonical_name());
            }
            if (!channel)
            {
                fail(begin, "invalid channel in package URL: " + channel.error().message);
                return false;
            }
            // A package URL names one location: '*' or ^...$ there is not a channel pattern.
            if (channel->kind() == Channel::Kind::pattern)
            {
                fail(begin, "a package URL's channel cannot be a pattern ('*' or ^...$)");
                return false;
            }
            if (!channel->is_free())
            {
                m_spec.m_channel = std::move(channel).value();
            }
            m_spec.m_subdir = StringMatcher::parse(*path.subdir).value();
            return true;
        }

        // name-version-build.ext, from `begin` to `end`: the last two '-' separate the three
        // fields. A file names one package: its name, version and build are plain values, never
        // patterns or constraints (which would read back as something else).
        void parse_package_file_name(std::size_t begin, std::size_t end)
        {
            const std::string_view file = text(begin, end);
            const std::string_view stem =
              file.substr(0, file.size() - package_extension(file).size());
            const auto build_dash = stem.rfind('-');
            const auto version_dash = build_dash == std::string_view::npos || build_dash == 0
                                        ? std::string_view::npos
                                        : stem.rfind('-', build_dash - 1);
            if (version_dash == std::string_view::npos || version_dash == 0 ||
                !package_extension(stem).empty())
            {
                fail(begin, "a package file is named <name>-<version>-<build>.conda or .tar.bz2");
                return;
            }
            auto name = parse_name(begin, begin + version_dash, /*literal=*/true);
            if (!name)
            {
                return;
            }
            m_spec.m_name = std::move(*name);
            set_span(SpecField::name, begin, begin + version_dash);
            if (parse_package_version(begin + version_dash + 1, begin + build_dash))
            {
                parse_package_build(begin + build_dash + 1, begin + stem.size());
            }
        }

        // A package file's version: one version, no operators or globs. False when refused.
        auto parse_package_version(std::size_t begin, std::size_t end) -> bool
        {
            const std::string_view version_text = text(begin, end);
            if (const auto version = Version::parse(version_text); !version)
            {
                fail_inside(begin, version.error());
                return false;
            }
            if (const auto odd = version_text.find_first_of("*=<>~|,^$");
                odd != std::string_view::npos)
            {
                fail_character(begin + odd, "a package file's version");
                return false;
            }
            set_version(begin, end);
            return true;
        }

        // A package file's build string: positional characters only, no globs.
        void parse_package_build(std::size_t begin, std::size_t end)
        {
            const std::string_view build_text = text(begin, end);
            if (const auto odd =
                  std::find_if_not(build_text.begin(), build_text.end(), is_positional_char);
                odd != build_text.end())
            {
                fail_character(begin + static_cast<std::size_t>(odd - build_text.begin()),
                               "a package file's build string");
                return;
            }
            if (auto build = string_matcher(begin, end))
            {
                m_spec.m_build = std::move(*build);
                set_span(SpecField::build, begin, end);
            }
        }

        // A piece of the text left out of the positional part: `length` characters removed at
        // offset `at` of the text that remains.
        struct Cut
        {
            std::size_t at = 0;
            std::size_t length = 0;
        };

        std::string_view m_original; // the spec as given
        std::string_view m_input;    // what is being read: m_original or m_positional
        std::string m_positional;    // m_original without the cut-out pieces
        std::vector<Cut> m_cuts;     // while m_input is m_positional
        MatchSpec m_spec;
        std::optional<util::ParseError> m_error;
        std::vector<BracketEntry> m_brackets;
        std::optional<std::pair<std::size_t, std::size_t>> m_channel_bracket;
    };

    auto MatchSpec::parse(std::string_view text) -> util::Result<MatchSpec, util::ParseError>
    {
        // Read in place: moving a MatchSpec out of an optional and into the result was a sixth
        // of parsing the common shape (issue 19).
        util::Result<MatchSpec, util::ParseError> spec(std::in_place);
        if (!MatchSpecParser::read_common_shape(text, *spec))
        {
            spec = parse_match_spec_full(text);
        }
        return spec; // one return of one object: no move
    }

    auto MatchSpec::parse(std::string_view text, VersionSpecCache& cache)
      -> util::Result<MatchSpec, util::ParseError>
    {
        util::Result<MatchSpec, util::ParseError> spec(std::in_place);
        if (!MatchSpecParser::read_common_shape(text, *spec, &cache))
        {
            spec = parse_match_spec_full(text);
        }
        return spec; // one return of one object: no move
    }

    auto MatchSpec::version() const -> const VersionSpec&
    {
        static const VersionSpec free_spec;
        return m_version ? *m_version : free_spec;
    }

    auto VersionSpecCache::parse(std::string_view text) -> const Entry&
    {
        if (const auto found = m_specs.find(text); found != m_specs.end())
        {
            return found->second;
        }
        return m_specs.emplace(std::string(text), shared(VersionSpec::parse(text))).first->second;
    }

    auto parse_match_spec_full(std::string_view text) -> util::Result<MatchSpec, util::ParseError>
    {
        MatchSpecParser parser(text);
        return parser.run();
    }

    auto CommonSpec::parse(std::string_view text, VersionSpecCache& cache)
      -> std::optional<CommonSpec>
    {
        return MatchSpecParser::read_common_spec(text, cache);
    }

    auto CommonSpec::matches_identity(const Version& version, std::string_view build) const -> bool
    {
        return (m_version == nullptr || m_version->is_free() || m_version->contains(version)) &&
               (!m_build || m_build->matches(build));
    }

    auto parse_match_spec_common_shape(std::string_view text) -> std::optional<MatchSpec>
    {
        std::optional<MatchSpec> spec(std::in_place);
        if (!MatchSpecParser::read_common_shape(text, *spec))
        {
            spec.reset();
        }
        return spec;
    }

    // ---------------------------------------------------------------------------------------
    // Matching and printing
    // ---------------------------------------------------------------------------------------

    auto MatchSpec::matches_identity(std::string_view name, const Version& version,
                                     std::string_view build, std::uint64_t build_number) const
      -> bool
    {
        const VersionSpec& spec = this->version();
        return m_name.matches(name) && (spec.is_free() || spec.contains(version)) &&
               m_build.matches(build) && m_build_number.contains(build_number);
    }

    auto MatchSpec::matches(const PackageRecord& record) const -> bool
    {
        if (!matches_identity(record.name, record.version, record.build, record.build_number))
        {
            return false;
        }
        if ((m_channel && !m_channel->matches(record.channel)) ||
            (m_subdir && !m_subdir->matches(record.subdir)))
        {
            return false;
        }
        if ((m_md5 && !util::iequals(*m_md5, record.md5)) ||
            (m_sha256 && !util::iequals(*m_sha256, record.sha256)) ||
            (m_url && *m_url != record.url) || (m_fn && *m_fn != record.fn))
        {
            return false;
        }
        if ((m_license && !m_license->matches(record.license)) ||
            (m_license_family && !m_license_family->matches(record.license_family)))
        {
            return false;
        }
        if (m_track_features && *m_track_features != feature_set(record.track_features))
        {
            return false;
        }
        return !m_features || *m_features == feature_set(record.features);
    }

    auto MatchSpec::reads_record_details() const -> bool
    {
        // Every field matches() reads after the name, version, build and build number.
        return m_channel || m_subdir || m_md5 || m_sha256 || m_url || m_fn || m_license ||
               m_license_family || m_track_features || m_features;
    }

    auto MatchSpec::is_name_only() const -> bool
    {
        MatchSpec name_only;
        name_only.m_name = m_name;
        return m_name.is_exact() && *this == name_only;
    }

    namespace
    {
        // A MatchSpec written out: what goes before the brackets, and the brackets' pairs.
        struct SpecText
        {
            std::string out;
            std::vector<std::string> brackets;
        };

        // channel[/subdir]::name, positional where parsing splits them off again; otherwise
        // they go in brackets.
        void write_channel_and_name(const MatchSpec& spec, SpecText& text)
        {
            const auto& channel = spec.channel();
            const auto& subdir = spec.subdir();
            const bool channel_positional = channel && channel->kind() != Channel::Kind::pattern;
            if (channel_positional)
            {
                text.out += channel->to_string();
            }
            else if (channel)
            {
                text.brackets.push_back(bracket_pair("channel", channel->to_string()));
            }
            if (subdir)
            {
                // Positional only where parsing splits it off again: a known subdir.
                if (channel_positional && subdir->is_exact() && is_known_subdir(subdir->text()))
                {
                    text.out += '/' + subdir->text();
                }
                else
                {
                    text.brackets.push_back(bracket_pair("subdir", subdir->text()));
                }
            }
            if (!text.out.empty())
            {
                text.out += "::";
            }
            text.out += spec.name().text();
        }

        auto negating_or_compatible(VersionOperator op) -> bool
        {
            return op == VersionOperator::not_equal || op == VersionOperator::not_starts_with ||
                   op == VersionOperator::compatible;
        }

        // The version: positional when it is one clause that reads back the same, else in
        // brackets. True when it is an exact '==' (then a build may follow positionally).
        // `positional` false: in brackets whatever it is.
        auto write_version(const MatchSpec& spec, SpecText& text, bool positional) -> bool
        {
            const VersionSpec& version = spec.version();
            if (version.is_free())
            {
                return false;
            }
            const auto& clauses = version.constraints();
            const VersionConstraint* clause =
              clauses.size() == 1 && positional ? &clauses.front() : nullptr;
            const bool starred =
              clause && clause->version.text().find('*') != std::string_view::npos;
            // An exact version holding a literal '*' goes in brackets: conda's sanitizing reads a
            // positional `==1*a` as the pattern 1*a, with a build after it or not.
            if (clause && clause->op == VersionOperator::equal && !starred)
            {
                text.out +=
                  "==" + clause->to_string().substr(clause->written_with_operator ? 2 : 0);
                return true;
            }
            if (clause && clause->op == VersionOperator::starts_with && !starred)
            {
                text.out += "=" + std::string(clause->version.text());
            }
            else if (clause && spec.build().is_free() && negating_or_compatible(clause->op))
            {
                text.out += clause->to_string();
            }
            else
            {
                text.brackets.push_back(bracket_pair("version", bracket_version(version), true));
            }
            return false;
        }

        // The build: positional ('=build') only after an exact version and when it is a plain
        // string that reads back the same.
        void write_build(const MatchSpec& spec, bool version_exact, SpecText& text)
        {
            const StringMatcher& matcher = spec.build();
            if (matcher.is_free())
            {
                return;
            }
            const std::string& build = matcher.text();
            if (build.find_first_of("><$^|,") != std::string::npos)
            {
                text.brackets.push_back(bracket_pair("build", build, true));
            }
            else if (matcher.kind() == StringMatcher::Kind::glob || !version_exact ||
                     !positional_safe(build))
            {
                text.brackets.push_back(bracket_pair("build", build));
            }
            else
            {
                text.out += "=" + build;
            }
        }
    }

    auto MatchSpec::to_string() const -> std::string
    {
        SpecText text;
        write_channel_and_name(*this, text);
        const std::size_t name_end = text.out.size();
        const std::size_t name_brackets = text.brackets.size();
        write_build(*this, write_version(*this, text, true), text);
        if (!package_extension(text.out).empty())
        {
            // A version or build ending in .conda or .tar.bz2 would read back as a package file.
            text.out.resize(name_end);
            text.brackets.resize(name_brackets);
            write_build(*this, write_version(*this, text, false), text);
        }
        auto& brackets = text.brackets;
        std::string& out = text.out;
        if (!m_build_number.is_free())
        {
            brackets.push_back(bracket_pair("build_number", m_build_number.to_string()));
        }
        if (m_track_features)
        {
            brackets.push_back(bracket_pair("track_features", join(*m_track_features, " ")));
        }
        if (m_features)
        {
            brackets.push_back(bracket_pair("features", join(*m_features, " ")));
        }
        // conda leaves the url out when a channel is printed; that is a package URL's own
        // (`https://.../linux-64/numpy-....conda`), and any other spec keeps it so that it
        // re-parses equal (fuzz_match_spec: `conda-forge::numpy[url=...]`).
        if (m_url && (!m_channel || !m_package_file))
        {
            brackets.push_back(bracket_pair("url", *m_url));
        }
        if (m_md5)
        {
            brackets.push_back(bracket_pair("md5", *m_md5));
        }
        if (m_sha256)
        {
            brackets.push_back(bracket_pair("sha256", *m_sha256));
        }
        if (m_license)
        {
            brackets.push_back(bracket_pair("license", m_license->text()));
        }
        if (m_license_family)
        {
            brackets.push_back(bracket_pair("license_family", m_license_family->text()));
        }
        if (m_fn && !m_url)
        {
            brackets.push_back(bracket_pair("fn", *m_fn));
        }
        if (m_when)
        {
            brackets.push_back(bracket_pair("when", *m_when));
        }
        if (m_optional)
        {
            brackets.emplace_back("optional");
        }
        if (!brackets.empty())
        {
            out += '[' + join(brackets, ",") + ']';
        }
        return out;
    }

    auto MatchSpec::conda_build_form() const -> std::string
    {
        std::string out = m_name.text();
        const VersionSpec& spec = this->version();
        const Version* exact = spec.exact_version();
        const std::string version = spec.is_free() ? std::string()
                                    : exact        ? std::string(exact->text())
                                                   : spec.to_string();
        if (!m_build.is_free())
        {
            out += ' ' + (version.empty() ? std::string("*") : version) + ' ' + m_build.text();
        }
        else if (!version.empty())
        {
            out += ' ' + version;
        }
        return out;
    }

    auto MatchSpec::conda_env_form() const -> std::string
    {
        std::string out = to_string();
        if (const auto separator = out.find("::"); separator != std::string::npos)
        {
            out.erase(0, separator + 2);
        }
        if (const auto exact = out.find("=="); exact != std::string::npos)
        {
            out.erase(exact, 1);
        }
        return out;
    }

    auto operator==(const MatchSpec& a, const MatchSpec& b) -> bool
    {
        return a.m_name == b.m_name && a.version() == b.version() && a.m_build == b.m_build &&
               a.m_build_number == b.m_build_number && a.m_channel == b.m_channel &&
               a.m_subdir == b.m_subdir && a.m_md5 == b.m_md5 && a.m_sha256 == b.m_sha256 &&
               a.m_url == b.m_url && a.m_fn == b.m_fn && a.m_license == b.m_license &&
               a.m_license_family == b.m_license_family &&
               a.m_track_features == b.m_track_features && a.m_features == b.m_features &&
               a.m_when == b.m_when && a.m_optional == b.m_optional;
    }
}
