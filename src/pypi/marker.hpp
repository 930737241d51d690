// PEP 508 environment markers ("python_version < '3.10' and sys_platform == 'linux'") parsed
// and evaluated like packaging 26.x does:
//   * python_version, python_full_version, implementation_version and platform_release compare
//     as PEP 440 versions when the other side is a valid specifier version (a value that is not a
//     version then never matches);
//   * every other comparison is on strings: ==, != and in/not in as in Python, <= and >= mean
//     equality, < and > are always false, ~= and === are an error;
//   * "extra" values are compared after PEP 503 normalization; extras and dependency_groups are
//     sets that only appear on the right of in/not in.
// The environment is a value passed in: nothing here looks at the running system.
#ifndef ENVCHECK_PYPI_MARKER_HPP
#define ENVCHECK_PYPI_MARKER_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    enum class MarkerVariable : std::uint8_t
    {
        implementation_name,
        implementation_version,
        os_name,
        platform_machine,
        platform_python_implementation,
        platform_release,
        platform_system,
        platform_version,
        python_full_version,
        python_version,
        sys_platform,
        extra,
        extras,
        dependency_groups,
    };

    [[nodiscard]] auto to_string(MarkerVariable variable) -> std::string_view;
    // Canonical names and the legacy spellings packaging accepts (os.name, python_implementation).
    [[nodiscard]] auto parse_marker_variable(std::string_view text)
      -> std::optional<MarkerVariable>;

    enum class MarkerOperator : std::uint8_t
    {
        equal,
        not_equal,
        less,
        less_equal,
        greater,
        greater_equal,
        compatible,
        arbitrary_equal,
        in,
        not_in,
    };

    [[nodiscard]] auto to_string(MarkerOperator op) -> std::string_view;

    // The values markers are evaluated against; fill it for the target, not the host.
    struct MarkerEnvironment
    {
        std::string implementation_name;            // "cpython"
        std::string implementation_version;         // "3.12.4"
        std::string os_name;                        // "posix", "nt"
        std::string platform_machine;               // "x86_64", "aarch64", "AMD64", "arm64"
        std::string platform_python_implementation; // "CPython"
        std::string platform_release;               // "6.8.0-45-generic"
        std::string platform_system;                // "Linux", "Windows", "Darwin"
        std::string platform_version;               // "#1 SMP ..."
        std::string python_full_version;            // "3.12.4"
        std::string python_version;                 // "3.12"
        std::string sys_platform;                   // "linux", "win32", "darwin"
        std::string extra;                          // the extra being evaluated, "" for none
        std::vector<std::string> extras;            // lock files: the extras requested
        std::vector<std::string> dependency_groups; // lock files: the groups requested

        [[nodiscard]] auto value(MarkerVariable variable) const -> std::string_view;
    };

    // A CPython environment for a conda platform ("linux-64", "osx-arm64", "win-64", ...) and a
    // Python version ("3.12.4" or "3.12"); nullopt for an unknown platform. platform_release and
    // platform_version stay empty: they describe a machine, not a platform.
    [[nodiscard]] auto marker_environment_for(std::string_view conda_subdir,
                                              std::string_view python_version)
      -> std::optional<MarkerEnvironment>;

    struct MarkerOperand
    {
        std::optional<MarkerVariable> variable; // set for a variable
        std::string literal;                    // the quoted string's content otherwise

        [[nodiscard]] auto is_variable() const -> bool { return variable.has_value(); }
    };

    struct MarkerComparison
    {
        MarkerOperand lhs;
        MarkerOperator op = MarkerOperator::equal;
        MarkerOperand rhs;
        std::size_t offset = 0; // where the comparison starts in the marker text
    };

    enum class MarkerJoin : std::uint8_t
    {
        and_,
        or_,
    };

    struct MarkerTerm;

    // terms[0] joins[0] terms[1] joins[1] ...; "and" binds tighter than "or".
    struct MarkerExpression
    {
        std::vector<MarkerTerm> terms;
        std::vector<MarkerJoin> joins;
    };

    // A comparison or a parenthesized expression.
    struct MarkerTerm
    {
        std::variant<MarkerComparison, MarkerExpression> value;
    };

    class Marker
    {
    public:
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Marker, util::ParseError>;

        [[nodiscard]] auto expression() const -> const MarkerExpression& { return m_expression; }
        // The marker text as written (offsets in the expression point into it).
        [[nodiscard]] auto text() const -> const std::string& { return m_text; }

        // Errors: an undefined comparison ('os_name ~= "posix"'), a set on the wrong side of an
        // operator, or a name that is not in the environment ('"a" == "b"' looks up b); the
        // offset points at the comparison.
        [[nodiscard]] auto evaluate(const MarkerEnvironment& environment) const
          -> util::Result<bool, util::ParseError>;

        // packaging's form: 'python_version < "3.10" and (os_name == "nt" or extra == "dev")'.
        [[nodiscard]] auto to_string() const -> std::string;

        friend auto operator==(const Marker& a, const Marker& b) -> bool
        {
            return a.to_string() == b.to_string();
        }

    private:
        MarkerExpression m_expression;
        std::string m_text;

        friend auto parse_marker_at(std::string_view text, std::size_t& pos)
          -> util::Result<Marker, util::ParseError>;
    };

    // Parses a marker expression that starts at `pos` of a larger text (a requirement after its
    // ';'), stopping before whatever cannot continue the expression; `pos` moves past it.
    // Error offsets are relative to `text`.
    [[nodiscard]] auto parse_marker_at(std::string_view text, std::size_t& pos)
      -> util::Result<Marker, util::ParseError>;
}

#endif
