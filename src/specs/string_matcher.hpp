// Matching of the string fields of a MatchSpec (name, build, subdir, license, ...), CEP 29
// "String matching": `^...$` is a regular expression, a value with `*` is a glob, anything else
// is compared for equality; all of it ASCII case-insensitive.
//
// Choice: CEP 29 makes every string field case-insensitive; conda's code lowercases names and
// licenses but compares build strings case-sensitively. We follow the CEP (build strings are
// lowercase in practice, so the two agree on real packages).
#ifndef ENVCHECK_SPECS_STRING_MATCHER_HPP
#define ENVCHECK_SPECS_STRING_MATCHER_HPP

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "specs/regex.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    class StringMatcher
    {
    public:
        enum class Kind
        {
            any,   // "*" (or no constraint)
            exact, // no '*', not a regex
            glob,  // contains '*': '*' matches any run of characters
            regex, // "^...$"
        };

        // The free matcher: matches every string.
        StringMatcher() = default;

        [[nodiscard]] static auto parse(std::string_view pattern)
          -> util::Result<StringMatcher, util::ParseError>;

        [[nodiscard]] auto matches(std::string_view value) const -> bool;

        [[nodiscard]] auto kind() const -> Kind { return m_kind; }
        [[nodiscard]] auto is_free() const -> bool { return m_kind == Kind::any; }
        [[nodiscard]] auto is_exact() const -> bool { return m_kind == Kind::exact; }
        // The pattern as written ("*" for the free matcher).
        [[nodiscard]] auto text() const -> const std::string& { return m_text; }
        [[nodiscard]] auto to_string() const -> std::string { return m_text; }

        // Same kind and same pattern, compared case-insensitively.
        friend auto operator==(const StringMatcher& a, const StringMatcher& b) -> bool;

    private:
        Kind m_kind = Kind::any;
        std::string m_text = "*";
        std::shared_ptr<const Regex> m_regex; // shared: compiled once, cheap to copy
    };

    [[nodiscard]] auto to_string(StringMatcher::Kind kind) -> std::string_view;
}

#endif
