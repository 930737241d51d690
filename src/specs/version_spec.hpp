// conda version specifiers (CEP 29 "Version matching", conda/models/version.py VersionSpec):
// clauses joined by ',' (and) and '|' (or), ',' binding tighter, with parentheses.
//
//   *            any version              ==1.2   exact (1.2 == 1.2.0)      1.2     exact too
//   =1.2         starts with 1.2          1.2.*   and 1.2*: the same          !=1.2.* not starting
//   !=1.2        not exactly 1.2          < <= > >=  ordered (CEP 33)          ~=1.4.2
//   >=1.4.2,1.4.* 1.*.2        glob on the version text ^1\.2\..*$  regex on the version text
//
// Choices where conda, mamba, rattler and the CEP differ (conda wins unless said otherwise):
// - Whitespace: allowed around ',', '|', parentheses and between an operator and its version
//   (CEP 29: spaces MUST be ignored; mamba accepts them; conda's MatchSpec strips them, its
//   VersionSpec alone rejects `>= 1.7`). Whitespace inside a version is an error.
// - "" (empty or blank) is the free spec, as in mamba (conda raises an IndexError).
// - `=*` is the free spec, as mamba and conda's MatchSpec (`pkg=*`) read it; conda's bare
//   VersionSpec would look for a version starting with the literal "*". (`pkg==*` is free too,
//   by MatchSpec's sanitizing; see match_spec.hpp.)
// - Trailing stars as conda reads them: `1.2.*` and `1.2*` start with 1.2; otherwise one '*' is
//   dropped, so `1.2**` starts with the version "1.2*" and `**` with "*" (no real version has
//   a '*': they match nothing, as in conda). `=1.7*` is `=1.7` (what conda's MatchSpec makes
//   of `pkg=1.7*`) and `=1.7**` starts with "1.7*"; a '*' elsewhere after an operator is part
//   of the version, as in conda (`>1.0.0*` compares with the version 1.0.0*, `=1.*.3` with the
//   version 1.*.3).
// - `.*` after ==, <, <=, >, >= is ignored with a warning (conda: "superfluous and deprecated");
//   `!=1.2.*` is "not starting with 1.2"; `~=1.2.*` is an error.
// - A '*' inside a version without operator (`1.*.1`, `*.3`) is a glob on the version text,
//   case-sensitive, as conda's regex; `1.2*` and `1.2.*` are starts-with.
// - `~=` needs at least two components: conda accepts `~=1` and fails at match time, mamba
//   (behind conda's default solver) reads it as `>=1`; so do we, with a warning. `~=*` is an
//   error.
// - `^...$` regexes are supported (conda; rattler rejects them) and matched against the
//   version text, case-sensitive, with re.match semantics; they may not contain quotes.
// - Parentheses nest at most max_nesting deep.
// - to_string() keeps how a clause was written where that matters to readers (`1.7` vs `==1.7`,
//   `=1.7` vs `1.7.*`), normalizes the rest (`1.7*` prints `1.7.*`, `>=1.8.*` prints `>=1.8`)
//   and adds only the parentheses the precedence needs; it re-parses to an equal spec. conda's
//   str() drops needed parentheses ("(1.6|1.7),1.8" prints "1.6|1.7,1.8"); we do not.
#ifndef ENVCHECK_SPECS_VERSION_SPEC_HPP
#define ENVCHECK_SPECS_VERSION_SPEC_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "specs/regex.hpp"
#include "specs/version.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    enum class VersionOperator
    {
        any,             // *
        equal,           // ==1.2 or 1.2
        not_equal,       // !=1.2
        less,            // <1.2
        less_equal,      // <=1.2
        greater,         // >1.2
        greater_equal,   // >=1.2
        starts_with,     // =1.2, 1.2.*, 1.2*
        not_starts_with, // !=1.2.*
        compatible,      // ~=1.2
        glob,            // 1.*.2
        regex,           // ^1\.2.*$
    };

    [[nodiscard]] auto to_string(VersionOperator op) -> std::string_view;

    // Something a parser accepted but the user should hear about (a deprecated form).
    struct SpecWarning
    {
        std::size_t offset = 0; // in the parsed text
        std::size_t length = 0;
        std::string message;
    };

    // One clause of a version spec.
    struct VersionConstraint
    {
        VersionOperator op = VersionOperator::any;
        Version version;                       // the operand of the version operators
        std::shared_ptr<const Version> prefix; // compatible: the prefix `~=` also requires
        std::string pattern;                   // glob and regex: as written
        std::shared_ptr<const Regex> regex;    // regex: compiled once, shared by copies
        bool written_with_operator = false;    // `==1.2` (not `1.2`), `=1.2` (not `1.2.*`)
        bool written_with_star = false;        // `1.2.*`, `1.2*`, `=1.2.*`, `!=1.2.*`

        [[nodiscard]] auto contains(const Version& candidate) const -> bool;
        [[nodiscard]] auto to_string() const -> std::string;
        // Same operator and operand; how it was written does not matter.
        friend auto operator==(const VersionConstraint& a, const VersionConstraint& b) -> bool;
    };

    // Whether some version satisfies a spec (or several at once). Exact for the version
    // operators (interval reasoning over the CEP 33 order); `unknown` when a glob, a regex, or a
    // prefix ending in a string or in "post" could not be turned into a range and the rest does
    // not rule everything out. The versions considered are those without '*' in them.
    enum class Satisfiability
    {
        unsatisfiable,
        satisfiable,
        unknown, // "may be satisfiable"
    };

    [[nodiscard]] auto to_string(Satisfiability satisfiability) -> std::string_view;

    class VersionSpec
    {
    public:
        static constexpr std::size_t max_nesting = 64;

        // The free spec, "*".
        VersionSpec();

        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<VersionSpec, util::ParseError>;

        [[nodiscard]] auto contains(const Version& version) const -> bool;
        [[nodiscard]] auto to_string() const -> std::string;

        // Matches every version (`*`, `""`, `*|1.2`, ...).
        [[nodiscard]] auto is_free() const -> bool { return m_free; }
        // The version of a spec that is a single exact clause (`==1.2`, `1.2`), else null.
        [[nodiscard]] auto exact_version() const -> const Version*;
        // The clauses, in the order written (none for a default-constructed spec).
        [[nodiscard]] auto constraints() const -> std::span<const VersionConstraint>
        {
            if (!m_nodes.empty())
            {
                return m_leaves;
            }
            return m_single ? std::span<const VersionConstraint>(&*m_single, 1)
                            : std::span<const VersionConstraint>();
        }
        [[nodiscard]] auto warnings() const -> const std::vector<SpecWarning>&
        {
            return m_warnings;
        }

        [[nodiscard]] auto satisfiability() const -> Satisfiability;
        // Whether one version can satisfy both specs ("numpy>=2" and "numpy<1.26": no).
        [[nodiscard]] auto intersects(const VersionSpec& other) const -> Satisfiability;

        // Same tree of clauses with equal clauses (or both free); spelling and warnings do not
        // matter.
        friend auto operator==(const VersionSpec& a, const VersionSpec& b) -> bool;

    private:
        enum class NodeKind : std::uint8_t
        {
            leaf,
            all_of, // ','
            any_of, // '|'
        };

        // The tree in prefix order; `size` counts the nodes of the subtree, itself included.
        // Empty for a single clause (the common case), kept inline in m_single so that a match
        // reads no heap memory of the spec; the default-constructed free spec has no clause.
        struct Node
        {
            NodeKind kind = NodeKind::leaf;
            std::uint32_t size = 1;
            std::uint32_t leaf = 0;
        };

        [[nodiscard]] auto evaluate(std::size_t node, const Version& version) const -> bool;
        [[nodiscard]] auto print(std::size_t node, bool inside_all_of) const -> std::string;
        [[nodiscard]] auto compute_free(std::size_t node) const -> bool;

        friend class VersionSpecParser;
        friend class VersionSetBuilder;

        std::vector<Node> m_nodes;
        [[nodiscard]] auto leaf(std::size_t index) const -> const VersionConstraint&
        {
            return m_nodes.empty() ? *m_single : m_leaves[index];
        }

        std::optional<VersionConstraint> m_single; // the clause, when there is one
        std::vector<VersionConstraint> m_leaves;   // the clauses of a tree
        std::vector<SpecWarning> m_warnings;
        bool m_free = true;
    };

    // Whether one version satisfies every spec at once.
    [[nodiscard]] auto satisfiability_of(std::span<const VersionSpec> specs) -> Satisfiability;
}

#endif
