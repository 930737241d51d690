#include "pypi/specifier.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "pypi/text.hpp"

namespace envcheck::pypi
{
    namespace
    {
        struct OperatorSpelling
        {
            std::string_view text;
            Operator op;
        };
        // Longest first, so that "===" is not read as "==" and "<=" not as "<".
        constexpr std::array<OperatorSpelling, 8> operator_spellings = { {
          { "===", Operator::arbitrary },
          { "==", Operator::equal },
          { "!=", Operator::not_equal },
          { "~=", Operator::compatible },
          { "<=", Operator::less_equal },
          { ">=", Operator::greater_equal },
          { "<", Operator::less },
          { ">", Operator::greater },
        } };

        auto operator_at(std::string_view text, std::size_t pos) -> const OperatorSpelling*
        {
            for (const auto& spelling : operator_spellings)
            {
                if (text.substr(pos, spelling.text.size()) == spelling.text)
                {
                    return &spelling;
                }
            }
            return nullptr;
        }

        auto allows_local(Operator op) -> bool
        {
            return op == Operator::equal || op == Operator::not_equal;
        }

        auto has_suffix_parts(const Version::Parts& parts) -> bool
        {
            return parts.pre || parts.post || parts.dev || !parts.local.empty();
        }

        // "===" clauses end at whitespace, ';' or ')': the version can be almost anything.
        auto arbitrary_end(std::string_view text, std::size_t pos) -> std::size_t
        {
            while (pos < text.size() && text[pos] != ';' && text[pos] != ')' &&
                   detail::python_space_at(text, pos) == 0)
            {
                ++pos;
            }
            return pos;
        }

        auto checked_increment(std::uint64_t value) -> std::optional<std::uint64_t>
        {
            if (value == std::numeric_limits<std::uint64_t>::max())
            {
                return std::nullopt;
            }
            return value + 1;
        }

        auto point(Version version, Boundary boundary = Boundary::none) -> RangePoint
        {
            return RangePoint{ std::move(version), boundary };
        }

        // The smallest version of the next prefix: 1.2 -> 1.3.dev0. A number at 2^64 - 1 cannot
        // grow, and no version between can be written (numbers stop there), so the one before
        // it grows instead: 0.18446744073709551615 -> 1.dev0, and past the last release number
        // the epoch: 18446744073709551615 -> 1!0.dev0. nullopt only when nothing is above.
        auto next_prefix_dev0(const Version& version) -> std::optional<Version>
        {
            Version::Parts parts;
            parts.epoch = version.epoch();
            parts.release = version.release();
            while (!parts.release.empty() && !checked_increment(parts.release.back()))
            {
                parts.release.pop_back();
            }
            if (parts.release.empty())
            {
                const auto epoch = checked_increment(parts.epoch);
                if (!epoch)
                {
                    return std::nullopt;
                }
                parts.epoch = *epoch;
                parts.release = { 0 };
            }
            else
            {
                parts.release.back() = *checked_increment(parts.release.back());
            }
            parts.dev = 0;
            return Version::from_parts(std::move(parts));
        }

        auto base_dev0(const Version& version) -> Version
        {
            Version::Parts parts;
            parts.epoch = version.epoch();
            parts.release = version.release();
            parts.dev = 0;
            return Version::from_parts(std::move(parts));
        }

        auto upper_from(std::optional<Version> version, bool inclusive) -> UpperBound
        {
            if (!version)
            {
                return UpperBound{};
            }
            return UpperBound{ point(std::move(*version)), inclusive };
        }

        auto wildcard_ranges(Operator op, const Version& base) -> VersionRanges
        {
            const LowerBound lower{ point(base_dev0(base)), true };
            auto upper = next_prefix_dev0(base);
            if (op == Operator::equal)
            {
                return { VersionRange{ lower, upper_from(std::move(upper), false) } };
            }
            VersionRanges ranges = { VersionRange{ LowerBound{},
                                                   UpperBound{ lower.point, false } } };
            if (upper)
            {
                ranges.push_back(
                  VersionRange{ LowerBound{ point(std::move(*upper)), true }, UpperBound{} });
            }
            return ranges;
        }

        auto standard_ranges(Operator op, const Version& v, bool has_local) -> VersionRanges
        {
            switch (op)
            {
                case Operator::greater_equal:
                    return { VersionRange{ LowerBound{ point(v), true }, UpperBound{} } };
                case Operator::less_equal:
                    return { VersionRange{ LowerBound{},
                                           UpperBound{ point(v, Boundary::after_locals), true } } };
                case Operator::greater:
                {
                    // >V.devN: the next version is V.dev(N+1); >V.postN: V.post(N+1).dev0;
                    // otherwise everything after V's post-releases (PEP 440).
                    auto parts = v.parts();
                    parts.local.clear();
                    if (parts.dev)
                    {
                        if (const auto next = checked_increment(*parts.dev))
                        {
                            parts.dev = *next;
                            return { VersionRange{
                              LowerBound{ point(Version::from_parts(parts)), true },
                              UpperBound{} } };
                        }
                        // No next dev number to name: what follows V and its local versions.
                        return { VersionRange{
                          LowerBound{ point(Version::from_parts(parts), Boundary::after_locals),
                                      false },
                          UpperBound{} } };
                    }
                    if (parts.post)
                    {
                        if (const auto next = checked_increment(*parts.post))
                        {
                            parts.post = *next;
                            parts.dev = 0;
                            return { VersionRange{
                              LowerBound{ point(Version::from_parts(parts)), true },
                              UpperBound{} } };
                        }
                        return { VersionRange{
                          LowerBound{ point(Version::from_parts(parts), Boundary::after_locals),
                                      false },
                          UpperBound{} } };
                    }
                    return { VersionRange{ LowerBound{ point(v, Boundary::after_posts), false },
                                           UpperBound{} } };
                }
                case Operator::less:
                {
                    // <V excludes V's pre-releases unless V is one: the bound is V.dev0.
                    Version bound = v;
                    if (!v.is_prerelease())
                    {
                        auto parts = v.parts();
                        parts.dev = 0;
                        parts.local.clear();
                        bound = Version::from_parts(std::move(parts));
                    }
                    static const Version smallest =
                      Version::from_parts({ 0, { 0 }, {}, {}, 0, {} });
                    if (bound <= smallest)
                    {
                        return {};
                    }
                    return { VersionRange{ LowerBound{},
                                           UpperBound{ point(std::move(bound)), false } } };
                }
                case Operator::equal:
                case Operator::not_equal:
                {
                    // Without a local label in the specifier, V+anything matches ==V.
                    const RangePoint upper =
                      has_local ? point(v) : point(v, Boundary::after_locals);
                    if (op == Operator::equal)
                    {
                        return { VersionRange{ LowerBound{ point(v), true },
                                               UpperBound{ upper, true } } };
                    }
                    return { VersionRange{ LowerBound{}, UpperBound{ point(v), false } },
                             VersionRange{ LowerBound{ upper, false }, UpperBound{} } };
                }
                case Operator::compatible:
                {
                    // ~=1.4.2 is >=1.4.2, ==1.4.*
                    Version::Parts prefix;
                    prefix.epoch = v.epoch();
                    prefix.release.assign(v.release().begin(), v.release().end() - 1);
                    return { VersionRange{
                      LowerBound{ point(v), true },
                      upper_from(next_prefix_dev0(Version::from_parts(prefix)), false) } };
                }
                case Operator::arbitrary:
                    break;
            }
            return full_range();
        }

        // An item to match: the text as given and its parse, when it is a PEP 440 version.
        struct Candidate
        {
            std::string_view raw;
            std::optional<Version> parsed;
        };

        auto candidates_of(std::span<const std::string_view> items) -> std::vector<Candidate>
        {
            std::vector<Candidate> out;
            out.reserve(items.size());
            for (const auto item : items)
            {
                auto parsed = Version::parse(item);
                out.push_back(Candidate{ item, parsed ? std::optional<Version>(std::move(*parsed))
                                                      : std::nullopt });
            }
            return out;
        }

        // PEP 440's default when the caller states no preference: pre-releases only when no
        // final release is offered. Strings that are not versions are kept (they already passed
        // every specifier) and come out before the first final release.
        auto apply_prerelease_policy(const std::vector<const Candidate*>& matches,
                                     std::optional<bool> prereleases)
          -> std::vector<std::string_view>
        {
            std::vector<std::string_view> out;
            if (prereleases == true)
            {
                for (const auto* item : matches)
                {
                    out.push_back(item->raw);
                }
                return out;
            }
            if (prereleases == false)
            {
                for (const auto* item : matches)
                {
                    if (!item->parsed || !item->parsed->is_prerelease())
                    {
                        out.push_back(item->raw);
                    }
                }
                return out;
            }
            std::vector<std::string_view> not_final;
            std::vector<std::string_view> unparsed;
            bool found_final = false;
            for (const auto* item : matches)
            {
                if (!item->parsed)
                {
                    if (found_final)
                    {
                        out.push_back(item->raw);
                    }
                    else
                    {
                        unparsed.push_back(item->raw);
                        not_final.push_back(item->raw);
                    }
                    continue;
                }
                if (!item->parsed->is_prerelease())
                {
                    if (!found_final)
                    {
                        out.insert(out.end(), unparsed.begin(), unparsed.end());
                        found_final = true;
                    }
                    out.push_back(item->raw);
                    continue;
                }
                if (!found_final)
                {
                    not_final.push_back(item->raw);
                }
            }
            return found_final ? out : not_final;
        }

        // Range filtering: strings that are not versions never match.
        auto filter_by_ranges(const VersionRanges& ranges, const std::vector<Candidate>& items,
                              std::optional<bool> prereleases) -> std::vector<std::string_view>
        {
            std::vector<std::string_view> out;
            std::vector<std::string_view> prerelease_buffer;
            bool found_final = false;
            for (const auto& item : items)
            {
                if (!item.parsed || !contains(ranges, *item.parsed))
                {
                    continue;
                }
                const bool pre = item.parsed->is_prerelease();
                if (prereleases)
                {
                    if (*prereleases || !pre)
                    {
                        out.push_back(item.raw);
                    }
                    continue;
                }
                if (pre)
                {
                    if (!found_final)
                    {
                        prerelease_buffer.push_back(item.raw);
                    }
                }
                else
                {
                    found_final = true;
                    out.push_back(item.raw);
                }
            }
            if (!prereleases && !found_final)
            {
                return prerelease_buffer;
            }
            return out;
        }

        auto pointers_to(const std::vector<Candidate>& items) -> std::vector<const Candidate*>
        {
            std::vector<const Candidate*> out;
            out.reserve(items.size());
            for (const auto& item : items)
            {
                out.push_back(&item);
            }
            return out;
        }

        auto offset_error(std::string_view input, std::size_t offset, std::string message)
          -> util::Unexpected<util::ParseError>
        {
            return util::unexpected(
              util::ParseError{ std::string(input), offset, std::move(message) });
        }
    }

    auto to_string(Operator op) -> std::string_view
    {
        for (const auto& spelling : operator_spellings)
        {
            if (spelling.op == op)
            {
                return spelling.text;
            }
        }
        return "==";
    }

    auto parse_operator(std::string_view text) -> std::optional<Operator>
    {
        for (const auto& spelling : operator_spellings)
        {
            if (spelling.text == text)
            {
                return spelling.op;
            }
        }
        return std::nullopt;
    }

    namespace detail
    {
        auto match_specifier(std::string_view text, std::size_t pos) -> std::size_t
        {
            const auto* spelling = operator_at(text, pos);
            if (spelling == nullptr)
            {
                return 0;
            }
            const std::size_t version_start = skip_python_space(text, pos + spelling->text.size());
            if (spelling->op == Operator::arbitrary)
            {
                const std::size_t end = arbitrary_end(text, version_start);
                return end == version_start ? 0 : end - pos;
            }
            const auto scan = scan_version(text, version_start, allows_local(spelling->op));
            if (!scan.ok && !scan.overflow)
            {
                return 0;
            }
            if (spelling->op == Operator::compatible && scan.parts.release.size() < 2)
            {
                return 0;
            }
            std::size_t end = scan.end;
            if (allows_local(spelling->op) && !has_suffix_parts(scan.parts) &&
                text.substr(end, 2) == ".*")
            {
                end += 2;
            }
            return end - pos;
        }
    }

    auto Specifier::parse(std::string_view text) -> util::Result<Specifier, util::ParseError>
    {
        const std::string_view stripped = detail::strip_python_space(text);
        const auto start = static_cast<std::size_t>(stripped.data() - text.data());
        const std::size_t stripped_end = start + stripped.size();
        const auto* spelling = operator_at(text, start);
        if (spelling == nullptr)
        {
            return offset_error(
              text, start,
              "expected an operator (==, !=, <=, >=, <, >, ~= or ===) before the version");
        }
        Specifier spec;
        spec.m_op = spelling->op;
        const std::size_t version_start =
          detail::skip_python_space(text, start + spelling->text.size());
        spec.m_version_text = std::string(detail::strip_python_space(text.substr(
          start + spelling->text.size(), stripped_end - start - spelling->text.size())));

        if (spec.m_op == Operator::arbitrary)
        {
            const std::size_t end = arbitrary_end(text, version_start);
            if (end == version_start)
            {
                return offset_error(text, version_start, "expected a version after '==='");
            }
            if (end != stripped_end)
            {
                return offset_error(text, end,
                                    "'===' takes one word: whitespace, ';' and ')' end it");
            }
            if (auto version = Version::parse(spec.m_version_text))
            {
                spec.m_version = std::move(*version);
            }
            spec.m_ranges = full_range();
            return spec;
        }

        const auto scan = detail::scan_version(text, version_start, allows_local(spec.m_op));
        if (!scan.ok)
        {
            return offset_error(text, scan.error_offset, "invalid version: " + scan.message);
        }
        std::size_t end = scan.end;
        const bool suffix = has_suffix_parts(scan.parts);
        if (text.substr(end, 2) == ".*")
        {
            if (!allows_local(spec.m_op))
            {
                return offset_error(text, end, "'.*' can only be used with '==' or '!='");
            }
            if (suffix)
            {
                return offset_error(text, end,
                                    "'.*' cannot follow a pre-release, post-release, development "
                                    "release or local version label");
            }
            spec.m_wildcard = true;
            end += 2;
        }
        if (end != stripped_end)
        {
            if (text[end] == '+' && !allows_local(spec.m_op))
            {
                return offset_error(text, end,
                                    "a local version label can only be used with '==' or '!='");
            }
            return offset_error(text, end, "unexpected text after the version");
        }
        if (spec.m_op == Operator::compatible && scan.parts.release.size() < 2)
        {
            return offset_error(text, version_start,
                                "'~=' needs at least two release numbers (~=1.4, not ~=1)");
        }
        spec.m_version = Version::from_parts(scan.parts);
        spec.m_ranges = without_empty(
          spec.m_wildcard ? wildcard_ranges(spec.m_op, *spec.m_version)
                          : standard_ranges(spec.m_op, *spec.m_version,
                                            spec.m_version_text.find('+') != std::string::npos));
        return spec;
    }

    auto Specifier::prereleases() const -> std::optional<bool>
    {
        if (m_prereleases)
        {
            return m_prereleases;
        }
        if (m_op == Operator::not_equal || (m_op == Operator::equal && m_wildcard))
        {
            return false;
        }
        if (!m_version)
        {
            return std::nullopt;
        }
        return m_version->is_prerelease();
    }

    auto Specifier::effective_prereleases(std::optional<bool> requested) const
      -> std::optional<bool>
    {
        if (requested)
        {
            return requested;
        }
        if (m_prereleases)
        {
            return m_prereleases;
        }
        return prereleases() == true ? std::optional<bool>(true) : std::nullopt;
    }

    auto Specifier::matches(std::string_view raw, const Version* parsed,
                            std::optional<bool> prereleases) const -> bool
    {
        const auto allow = effective_prereleases(prereleases);
        if (m_op == Operator::arbitrary)
        {
            if (detail::lowercase(raw) != detail::lowercase(m_version_text))
            {
                return false;
            }
            return !(allow == false && parsed != nullptr && parsed->is_prerelease());
        }
        if (parsed == nullptr || !pypi::contains(m_ranges, *parsed))
        {
            return false;
        }
        return !(allow == false && parsed->is_prerelease());
    }

    auto Specifier::contains(const Version& version, std::optional<bool> prereleases) const -> bool
    {
        const std::string raw = m_op == Operator::arbitrary ? version.to_string() : std::string();
        return matches(raw, &version, prereleases);
    }

    auto Specifier::contains(std::string_view version, std::optional<bool> prereleases) const
      -> bool
    {
        const auto parsed = Version::parse(version);
        return matches(version, parsed ? &*parsed : nullptr, prereleases);
    }

    auto Specifier::filter(std::span<const std::string_view> versions,
                           std::optional<bool> prereleases) const -> std::vector<std::string_view>
    {
        const auto allow = effective_prereleases(prereleases);
        const auto items = candidates_of(versions);
        if (m_op == Operator::arbitrary)
        {
            std::vector<const Candidate*> matched;
            const std::string wanted = detail::lowercase(m_version_text);
            for (const auto& item : items)
            {
                if (detail::lowercase(item.raw) == wanted)
                {
                    matched.push_back(&item);
                }
            }
            return apply_prerelease_policy(matched, allow);
        }
        return filter_by_ranges(m_ranges, items, allow);
    }

    auto Specifier::to_string() const -> std::string
    {
        return std::string(pypi::to_string(m_op)) + m_version_text;
    }

    auto Specifier::canonical_version() const -> std::string
    {
        if (m_op == Operator::arbitrary || m_wildcard || !m_version)
        {
            return m_version_text;
        }
        if (m_op == Operator::compatible)
        {
            return m_version->to_string();
        }
        // Trailing zeros of the release do not change what the specifier means.
        auto parts = m_version->parts();
        while (parts.release.size() > 1 && parts.release.back() == 0)
        {
            parts.release.pop_back();
        }
        return Version::from_parts(std::move(parts)).to_string();
    }

    auto operator==(const Specifier& a, const Specifier& b) -> bool
    {
        return a.m_op == b.m_op && a.canonical_version() == b.canonical_version();
    }

    auto SpecifierSet::parse(std::string_view text) -> util::Result<SpecifierSet, util::ParseError>
    {
        SpecifierSet set;
        std::size_t start = 0;
        while (start <= text.size())
        {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            const std::string_view clause = text.substr(start, comma - start);
            if (!detail::strip_python_space(clause).empty())
            {
                auto spec = Specifier::parse(clause);
                if (!spec)
                {
                    auto error = spec.error();
                    return offset_error(text, start + error.offset, error.message);
                }
                set.m_specs.push_back(std::move(*spec));
            }
            start = comma + 1;
        }
        set.m_has_arbitrary = text.find("===") != std::string_view::npos;
        if (!set.m_specs.empty())
        {
            set.m_ranges = set.m_specs.front().m_ranges;
            for (std::size_t i = 1; i < set.m_specs.size() && !set.m_ranges.empty(); ++i)
            {
                set.m_ranges = intersect(set.m_ranges, set.m_specs[i].m_ranges);
            }
        }
        return set;
    }

    auto SpecifierSet::prereleases() const -> std::optional<bool>
    {
        if (m_prereleases)
        {
            return m_prereleases;
        }
        const bool any = std::any_of(m_specs.begin(), m_specs.end(),
                                     [](const Specifier& s) { return s.prereleases() == true; });
        return any ? std::optional<bool>(true) : std::nullopt;
    }

    auto SpecifierSet::matches(std::string_view raw, const Version* parsed,
                               std::optional<bool> prereleases, bool installed) const -> bool
    {
        if (parsed != nullptr && installed && parsed->is_prerelease())
        {
            prereleases = true;
        }
        const auto allow = prereleases ? prereleases : this->prereleases();
        const bool excluded_prerelease =
          allow == false && parsed != nullptr && parsed->is_prerelease();
        if (m_specs.empty())
        {
            return !excluded_prerelease;
        }
        if (m_has_arbitrary)
        {
            for (const auto& spec : m_specs)
            {
                if (!spec.matches(raw, parsed, true))
                {
                    return false;
                }
            }
            return !excluded_prerelease;
        }
        if (parsed == nullptr || !pypi::contains(m_ranges, *parsed))
        {
            return false;
        }
        return !excluded_prerelease;
    }

    auto SpecifierSet::contains(const Version& version, std::optional<bool> prereleases,
                                bool installed) const -> bool
    {
        const std::string raw = m_has_arbitrary ? version.to_string() : std::string();
        return matches(raw, &version, prereleases, installed);
    }

    auto SpecifierSet::contains(std::string_view version, std::optional<bool> prereleases,
                                bool installed) const -> bool
    {
        const auto parsed = Version::parse(version);
        return matches(version, parsed ? &*parsed : nullptr, prereleases, installed);
    }

    auto SpecifierSet::filter(std::span<const std::string_view> versions,
                              std::optional<bool> prereleases) const
      -> std::vector<std::string_view>
    {
        const auto allow = prereleases ? prereleases : this->prereleases();
        const auto items = candidates_of(versions);
        if (m_specs.empty())
        {
            return apply_prerelease_policy(pointers_to(items), allow);
        }
        if (m_has_arbitrary)
        {
            std::vector<const Candidate*> matched;
            for (const auto& item : items)
            {
                const Version* parsed = item.parsed ? &*item.parsed : nullptr;
                const bool all = std::all_of(m_specs.begin(), m_specs.end(),
                                             [&](const Specifier& s)
                                             { return s.matches(item.raw, parsed, true); });
                if (all)
                {
                    matched.push_back(&item);
                }
            }
            return apply_prerelease_policy(matched, allow);
        }
        return filter_by_ranges(m_ranges, items, allow);
    }

    auto SpecifierSet::is_satisfiable() const -> bool
    {
        if (m_specs.empty())
        {
            return true;
        }
        if (m_ranges.empty())
        {
            return false;
        }
        // "===V" can only ever match the literal V: every other specifier must accept it.
        std::vector<const Specifier*> arbitrary;
        std::vector<const Specifier*> standard;
        for (const auto& spec : m_specs)
        {
            (spec.op() == Operator::arbitrary ? arbitrary : standard).push_back(&spec);
        }
        if (!arbitrary.empty())
        {
            const std::string literal = detail::lowercase(arbitrary.front()->version_text());
            for (const auto* spec : arbitrary)
            {
                if (detail::lowercase(spec->version_text()) != literal)
                {
                    return false;
                }
            }
            const auto& candidate = arbitrary.front()->version();
            if (prereleases() == false && candidate && candidate->is_prerelease())
            {
                return false;
            }
            if (!standard.empty())
            {
                if (!candidate)
                {
                    return false;
                }
                for (const auto* spec : standard)
                {
                    if (!spec->contains(*candidate))
                    {
                        return false;
                    }
                }
            }
        }
        return !(prereleases() == false && prerelease_only(m_ranges));
    }

    auto SpecifierSet::is_pinned() const -> bool
    {
        return std::any_of(m_specs.begin(), m_specs.end(),
                           [](const Specifier& s) {
                               return s.op() == Operator::arbitrary ||
                                      (s.op() == Operator::equal && !s.is_wildcard());
                           });
    }

    auto SpecifierSet::canonical_specs() const -> std::vector<const Specifier*>
    {
        std::vector<std::pair<std::string, const Specifier*>> sorted;
        sorted.reserve(m_specs.size());
        for (const auto& spec : m_specs)
        {
            sorted.emplace_back(spec.to_string(), &spec);
        }
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<const Specifier*> out;
        for (const auto& entry : sorted)
        {
            const Specifier* spec = entry.second;
            const bool duplicate = std::any_of(
              out.begin(), out.end(), [&](const Specifier* seen) { return *seen == *spec; });
            if (!duplicate)
            {
                out.push_back(spec);
            }
        }
        return out;
    }

    auto SpecifierSet::to_string() const -> std::string
    {
        std::string out;
        for (const auto* spec : canonical_specs())
        {
            if (!out.empty())
            {
                out += ',';
            }
            out += spec->to_string();
        }
        return out;
    }

    auto operator==(const SpecifierSet& a, const SpecifierSet& b) -> bool
    {
        const auto left = a.canonical_specs();
        const auto right = b.canonical_specs();
        return std::equal(left.begin(), left.end(), right.begin(), right.end(),
                          [](const Specifier* x, const Specifier* y) { return *x == *y; });
    }
}
