// PEP 440 version specifiers ("~=1.4.2", "==1.2.*", ">1.0,!=1.3") with the semantics of packaging
// 26.x, the release pip vendors since pip 26.0 (pip PRs #13746, #13909, #13945). Where packaging
// 25.0 and 26.x disagree (pre-releases when the caller says nothing, ">V" against V.postN and
// locals, unparsable versions, "===") this follows 26.x:
//   * contains() on one version with no pre-release preference accepts a pre-release that is in
//     range (PEP 440: pre-releases are accepted when nothing else is offered);
//   * filter() with no preference drops pre-releases when at least one final release matches;
//   * a version that does not parse never matches a standard operator;
//   * "===" compares the raw strings, ignoring ASCII case.
#ifndef ENVCHECK_PYPI_SPECIFIER_HPP
#define ENVCHECK_PYPI_SPECIFIER_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pypi/version.hpp"
#include "pypi/version_range.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    enum class Operator : std::uint8_t
    {
        compatible,    // ~=
        equal,         // ==
        not_equal,     // !=
        less_equal,    // <=
        greater_equal, // >=
        less,          // <
        greater,       // >
        arbitrary,     // ===
    };

    [[nodiscard]] auto to_string(Operator op) -> std::string_view;
    [[nodiscard]] auto parse_operator(std::string_view text) -> std::optional<Operator>;

    class Specifier
    {
    public:
        // One clause: an operator and a version, whitespace allowed around and between them.
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Specifier, util::ParseError>;

        [[nodiscard]] auto op() const -> Operator { return m_op; }
        // The version as written, without surrounding whitespace ("1.0.*", "V1.0", "lolwat").
        [[nodiscard]] auto version_text() const -> const std::string& { return m_version_text; }
        [[nodiscard]] auto is_wildcard() const -> bool { return m_wildcard; }
        // The parsed version (the prefix for ==V.*); nullopt for "===" on a non-PEP 440 string.
        [[nodiscard]] auto version() const -> const std::optional<Version>& { return m_version; }
        [[nodiscard]] auto ranges() const -> const VersionRanges& { return m_ranges; }

        // packaging's Specifier.prereleases: the explicit setting, else whether the specifier
        // names a pre-release (never for != and ==V.*; unknown for "===" on a non-version).
        [[nodiscard]] auto prereleases() const -> std::optional<bool>;
        void set_prereleases(std::optional<bool> allow) { m_prereleases = allow; }

        [[nodiscard]] auto contains(const Version& version,
                                    std::optional<bool> prereleases = std::nullopt) const -> bool;
        // A string that is not a PEP 440 version only matches "===".
        [[nodiscard]] auto contains(std::string_view version,
                                    std::optional<bool> prereleases = std::nullopt) const -> bool;
        // The items this specifier accepts, in input order (see the header comment).
        [[nodiscard]] auto filter(std::span<const std::string_view> versions,
                                  std::optional<bool> prereleases = std::nullopt) const
          -> std::vector<std::string_view>;

        // Operator and version as written: "==1.0.*", ">=V2".
        [[nodiscard]] auto to_string() const -> std::string;

        // Equal when operator and normalized version agree ("==1.2" == "== 1.2.0"); the
        // pre-release setting is ignored.
        friend auto operator==(const Specifier& a, const Specifier& b) -> bool;

    private:
        Operator m_op = Operator::greater_equal;
        std::string m_version_text;
        bool m_wildcard = false;
        std::optional<Version> m_version;
        VersionRanges m_ranges;
        std::optional<bool> m_prereleases;

        [[nodiscard]] auto canonical_version() const -> std::string;
        [[nodiscard]] auto effective_prereleases(std::optional<bool> requested) const
          -> std::optional<bool>;
        [[nodiscard]] auto matches(std::string_view raw, const Version* parsed,
                                   std::optional<bool> prereleases) const -> bool;
        friend class SpecifierSet;
    };

    class SpecifierSet
    {
    public:
        // Comma-separated specifiers; empty clauses are skipped, so "" is the set that accepts
        // every version. The error offset is relative to `text`.
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<SpecifierSet, util::ParseError>;

        [[nodiscard]] auto specifiers() const -> const std::vector<Specifier>& { return m_specs; }
        [[nodiscard]] auto empty() const -> bool { return m_specs.empty(); }
        // The intersection of every specifier's ranges ("===" counts as the full range).
        [[nodiscard]] auto ranges() const -> const VersionRanges& { return m_ranges; }

        // The explicit setting, else true when some specifier names a pre-release, else unknown.
        [[nodiscard]] auto prereleases() const -> std::optional<bool>;
        void set_prereleases(std::optional<bool> allow) { m_prereleases = allow; }

        // `installed`: the version is already installed, so a pre-release is acceptable.
        [[nodiscard]] auto contains(const Version& version,
                                    std::optional<bool> prereleases = std::nullopt,
                                    bool installed = false) const -> bool;
        [[nodiscard]] auto contains(std::string_view version,
                                    std::optional<bool> prereleases = std::nullopt,
                                    bool installed = false) const -> bool;
        [[nodiscard]] auto filter(std::span<const std::string_view> versions,
                                  std::optional<bool> prereleases = std::nullopt) const
          -> std::vector<std::string_view>;

        // False when no version can satisfy every specifier ("numpy>=2,<1.26"), counting the
        // pre-release setting: ">=1.0a1,<1.0" with pre-releases disallowed is unsatisfiable.
        // Conservative for "===": only a literal that the other specifiers reject is reported.
        [[nodiscard]] auto is_satisfiable() const -> bool;
        // Whether exactly one version can match: some "==" without ".*", or "===".
        [[nodiscard]] auto is_pinned() const -> bool;

        // Specifiers sorted by their text and deduplicated, joined by ',': "!=1.3,>=1.0".
        [[nodiscard]] auto to_string() const -> std::string;

        friend auto operator==(const SpecifierSet& a, const SpecifierSet& b) -> bool;

    private:
        std::vector<Specifier> m_specs;
        VersionRanges m_ranges = full_range();
        bool m_has_arbitrary = false;
        std::optional<bool> m_prereleases;

        [[nodiscard]] auto matches(std::string_view raw, const Version* parsed,
                                   std::optional<bool> prereleases, bool installed) const -> bool;
        [[nodiscard]] auto canonical_specs() const -> std::vector<const Specifier*>;
    };

    namespace detail
    {
        // Length of the specifier clause that starts at `pos` (operator, optional whitespace,
        // version, stopping where the grammar stops), 0 when none starts there. The PEP 508
        // tokenizer and Specifier::parse share it.
        [[nodiscard]] auto match_specifier(std::string_view text, std::size_t pos) -> std::size_t;
    }
}

#endif
