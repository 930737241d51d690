#include <string>
#include <vector>

#include "specs/regex.hpp"
#include "tests/catch.hpp"

using envcheck::specs::Regex;

namespace
{
    TEST_CASE("Regex::compile and matches (Python re.match subset)", "[specs][Regex]")
    {
        struct Case
        {
            const char* pattern;
            const char* text;
            bool match;
        };
        const std::vector<Case> table = {
            { "^1\\.7\\.1$", "1.7.1", true },
            { "^1\\.7\\.1$", "1.7.10", false },
            { "^1\\.7\\.[0-9]+$", "1.7.42", true },
            { "^[^1].*$", "1.7.1", false },
            { "^[^1].*$", "2.0", true },
            { "^[0-9+]+\\.[0-9+]+\\.[0-9]+$", "1.7.1", true },
            { "^$", "", true },
            { "^$", "1", false },
            { "^.*(accelerate|mkl)$", "libblas_mkl", true },
            { "^.*(accelerate|mkl)$", "openblas", false },
            { "^(?:py|cp)3\\d{1,2}_.*$", "py310_0", true },
            { "^(?:py|cp)3\\d{1,2}_.*$", "py3100_0", false },
            { "^a{2,}$", "aaaa", true },
            { "^a{2,}$", "a", false },
            { "^a{,2}$", "a{,2}", true }, // not a quantifier: literal braces, as Python
            { "^\\w+-\\s?\\S$", "ab- c", true },
            { "^[a\\-z]+$", "a-z", true },
            { "^[]a]$", "]", true },
            { "^x*?y+?$", "xxyy", true },
            { "abc", "abcdef", true }, // re.match: anchored at the start only
            { "abc", "xabc", false },
            { "^a|b$", "b", true },
            { "^a$\n", "a\n", true }, // Python's $ also matches before a final newline
        };
        for (const auto& c : table)
        {
            INFO("'" << c.pattern << "' on '" << c.text << "'");
            const auto regex = Regex::compile(c.pattern);
            REQUIRE(regex.has_value());
            CHECK(regex->matches(c.text) == c.match);
        }
        CHECK(Regex::compile("^PY3.*$", true)->matches("py310"));
        CHECK_FALSE(Regex::compile("^PY3.*$")->matches("py310"));
        CHECK(Regex::compile("^[A-C]+$", true)->matches("abc"));
    }

    TEST_CASE("Regex::compile negative", "[specs][Regex]")
    {
        struct Bad
        {
            const char* pattern;
            std::size_t offset;
            const char* message;
        };
        const std::vector<Bad> table = {
            { "^(aaaa$", 1, "missing ')'" },
            { "^a)$", 2, "unbalanced ')'" },
            { "*a", 0, "nothing to repeat" },
            { "^a**$", 3, "multiple repeat" },
            { "^(?=a)$", 1, "lookaround" },
            { "^(?P<x>a)$", 1, "lookaround, named groups" },
            { "^(a)\\1$", 4, "backreferences are not supported" },
            { "^\\q$", 1, "unsupported escape" },
            { "^[a-", 1, "unterminated character set" },
            { "^[a-$]", 2, "bad character range" },
            { "^[z-a]$", 2, "bad character range" },
            { "^a{3,2}$", 2, "min above max" },
            { "^a{5000}$", 2, "above 1000" },
            { "^a\\", 2, "trailing backslash" },
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.pattern);
            const auto regex = Regex::compile(bad.pattern);
            REQUIRE_FALSE(regex.has_value());
            CHECK(regex.error().offset == bad.offset);
            CHECK(regex.error().message.find(bad.message) != std::string::npos);
        }
        CHECK_FALSE(Regex::compile("^(a{1000}){1000}$").has_value()); // too many instructions
        std::string deep(200, '(');
        deep += std::string(200, ')');
        CHECK_FALSE(Regex::compile(deep).has_value());
    }

    TEST_CASE("Regex::matches has no backtracking blow-up", "[specs][Regex]")
    {
        // Exponential for a backtracking engine; a single pass here.
        const auto regex = Regex::compile("^(a|aa)*(a*)*b$");
        REQUIRE(regex.has_value());
        CHECK_FALSE(regex->matches(std::string(20000, 'a')));
        CHECK(regex->matches(std::string(20000, 'a') + "b"));
    }
}
