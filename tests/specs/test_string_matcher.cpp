#include <string>
#include <vector>

#include "specs/string_matcher.hpp"
#include "tests/catch.hpp"

using envcheck::specs::StringMatcher;

namespace
{
    TEST_CASE("StringMatcher::parse kinds and matching (CEP 29 string matching)",
              "[specs][StringMatcher]")
    {
        struct Case
        {
            const char* pattern;
            StringMatcher::Kind kind;
            const char* value;
            bool match;
        };
        using Kind = StringMatcher::Kind;
        const std::vector<Case> table = {
            { "*", Kind::any, "anything", true },
            { "**", Kind::any, "", true },
            { "py27_0", Kind::exact, "py27_0", true },
            { "py27_0", Kind::exact, "PY27_0", true },
            { "py27_0", Kind::exact, "py27_1", false },
            { "py27*", Kind::glob, "py27_3", true },
            { "*_cpython", Kind::glob, "h123_0_cpython", true },
            { "*py3*", Kind::glob, "cuda_py310", true },
            { "py.*", Kind::glob, "python", false }, // '.' is literal in a glob
            { "py.*", Kind::glob, "py.1", true },
            { "^py3(9|10).*$", Kind::regex, "py310h1_0", true },
            { "^py3(9|10).*$", Kind::regex, "py38h1_0", false },
        };
        for (const auto& c : table)
        {
            INFO("'" << c.pattern << "' on '" << c.value << "'");
            const auto matcher = StringMatcher::parse(c.pattern);
            REQUIRE(matcher.has_value());
            CHECK(matcher->kind() == c.kind);
            CHECK(matcher->matches(c.value) == c.match);
        }
        CHECK(StringMatcher().is_free());
        CHECK(StringMatcher::parse("Py27*").value() == StringMatcher::parse("py27*").value());
        CHECK_FALSE(StringMatcher::parse("py27*").value() == StringMatcher::parse("py27").value());
        CHECK_FALSE(StringMatcher::parse("").has_value());
        CHECK_FALSE(StringMatcher::parse("^(a$").has_value());
        CHECK(to_string(StringMatcher::Kind::glob) == "glob");
    }
}
