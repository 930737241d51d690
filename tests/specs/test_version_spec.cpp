#include <string>
#include <vector>

#include "specs/version_spec.hpp"
#include "tests/catch.hpp"

using envcheck::specs::Satisfiability;
using envcheck::specs::Version;
using envcheck::specs::VersionOperator;
using envcheck::specs::VersionSpec;

namespace
{
    auto spec(const std::string& text) -> VersionSpec
    {
        auto parsed = VersionSpec::parse(text);
        INFO("spec '" << text << "'" << (parsed ? "" : ": " + parsed.error().to_string()));
        REQUIRE(parsed.has_value());
        return std::move(parsed).value();
    }

    auto contains(const std::string& s, const std::string& version) -> bool
    {
        return spec(s).contains(Version::parse(version).value());
    }

    TEST_CASE("VersionSpec::parse operators (CEP 29)", "[specs][VersionSpec]")
    {
        struct Case
        {
            const char* spec;
            const char* version;
            bool match;
        };
        const std::vector<Case> table = {
            { "*", "1.2", true },
            { "", "1.2", true },
            { "==1.8", "1.8.0", true }, // exact, zero-padded
            { "==1.8", "1.8.1", false },
            { "1.8", "1.8.0.0", true }, // a bare version is exact
            { "1.8", "1.8.1", false },
            { "=1.8", "1.8.1", true }, // fuzzy
            { "=1.8", "1.80", false }, // segment-aware
            { "1.8.*", "1.8a1", true },
            { "1.8*", "1.8.2", true },
            { "1.8*", "1.80", false },
            { "=1.8*", "1.8.2", true }, // what conda's MatchSpec makes of pkg=1.8*
            { "=*", "0.1", true },
            { "!=1.8", "1.8.0", false },
            { "!=1.8", "1.8.1", true },
            { "!=1.8.*", "1.8.1", false }, // negated fuzzy
            { "!=1.8.*", "1.9", true },
            { "<1.8", "1.8a1", true }, // pre-releases sort before
            { "<=1.8", "1.8.0", true },
            { ">1.8", "1.8.0.1", true },
            { ">=1.8", "1.8", true },
            { ">=1.8.*", "1.8", true },   // the '.*' is ignored, with a warning
            { "~=1.4.2", "1.4.9", true }, // >=1.4.2,1.4.*
            { "~=1.4.2", "1.5", false },
            { "~=1.4", "1.9", true },
            { "~=1.4", "2.0", false },
            { "1.*.1", "1.7.1", true }, // a glob in the middle
            { "1.*.1", "1.7.2", false },
            { "*.3", "2.1.3", true },
            { "^1\\.[78]\\..*$", "1.7.3", true },
            { "^1\\.[78]\\..*$", "1.9.3", false },
            { ">1.0.0*", "1.0.0", true }, // conda: compared with the literal version 1.0.0*
            { ">=1.21,<2", "1.26.4", true },
            { ">=1.21,<2", "2.0", false },
            { "2.1.0|2.2.*", "2.2.4", true },
            { "2.1.0|2.2.*", "2.1.1", false },
            { ">=1,<2|>=3", "3.1", true }, // ',' binds tighter than '|'
            { ">=1,(<2|>=3)", "0.5", false },
            { "(>=1,<2)|>=3", "2.5", false },
            { " ( >=1 , <2 ) | >= 3 ", "3", true }, // whitespace around tokens and operators
            // Trailing stars as conda.models.version reads them (0f64223): `V.*` and `V*` start
            // with V; otherwise one '*' is dropped, so `V**` starts with the version "V*".
            { "1.2**", "1.2*", true },
            { "1.2**", "1.2*.3", true },
            { "1.2**", "1.2", false },
            { "1.2**", "1.2.3", false },
            { "**", "*", true },
            { "**", "1.2", false },
            { "***", "**", true },
            { "1.**", "1.*", true },
            { "1.**", "1.2", false },
            { "=1.2**", "1.2*", true },
            { "=1.2**", "1.2.3", false },
            // conda accepts ~=1 and fails when it compares; mamba, behind conda's default
            // solver, reads it as >=1 (warning)
            { "~=1", "1", true },
            { "~=1", "3.2", true },
            { "~=1", "0.9", false },
        };
        for (const auto& c : table)
        {
            INFO("'" << c.spec << "' contains " << c.version);
            CHECK(contains(c.spec, c.version) == c.match);
        }
    }

    TEST_CASE("VersionSpec::parse negative", "[specs][VersionSpec]")
    {
        struct Bad
        {
            const char* spec;
            std::size_t offset;
            const char* message;
        };
        const std::vector<Bad> table = {
            { ">=", 2, "expected a version after '>='" },
            { ">=1.7,", 6, "expected a version constraint after ','" },
            { "1.7|", 4, "expected a version constraint after '|'" },
            { "1.5||1.6", 4, "expected a version constraint after '|', found '|'" },
            { "(1.5", 4, "expected ')' to close the '(' at column 1" },
            { "1.5)", 3, "unbalanced ')'" },
            { "><2.4", 0, "invalid operator '><'" },
            { "!!2.4", 0, "invalid operator '!!'" },
            { "===3.3", 0, "invalid operator '==='" },
            { "~", 0, "invalid operator '~'" },
            { "~=1.2.*", 5, "'~=' cannot be combined with '.*'" },
            { "~=*", 2, "'~=' needs a version with at least two components" },
            { "1.2 3", 3, "unexpected whitespace in a version" },
            { ">= 1.2 3", 6, "unexpected whitespace in a version" },
            { "^1.5", 0, "a regular expression must end with '$'" },
            { "1.5$", 0, "a regular expression must start with '^'" },
            { "^(1.5$", 1, "missing ')'" },
            { ".*", 0, "expected a version before '*'" },
            { "1.*.&", 4, "invalid character '&' in a version pattern" },
            { ">=1.2..3", 6, "empty version component" },
            { "1.2,>3!", 7, "expected a version after '!'" },
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.spec);
            const auto parsed = VersionSpec::parse(bad.spec);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == bad.offset);
            CHECK(parsed.error().message.find(bad.message) != std::string::npos);
        }
        std::string deep;
        for (int i = 0; i < 100; ++i)
        {
            deep = "(" + deep + (deep.empty() ? "1" : "") + ")";
        }
        CHECK_FALSE(VersionSpec::parse(deep).has_value());
    }

    TEST_CASE("VersionSpec::to_string round trip", "[specs][VersionSpec]")
    {
        struct Case
        {
            const char* spec;
            const char* printed;
        };
        const std::vector<Case> table = {
            { "*", "*" },
            { "", "*" },
            { "1.7", "1.7" },
            { "==1.7", "==1.7" },
            { "=1.7", "=1.7" },
            { "=1.7.*", "=1.7.*" },
            { "1.7*", "1.7.*" },
            { "1.7.*", "1.7.*" },
            { "!=1.7.*", "!=1.7.*" },
            { ">=1.8.*", ">=1.8" },
            { " >= 1.8 , < 2 ", ">=1.8,<2" },
            { "(1.6|1.7),1.8", "(1.6|1.7),1.8" },
            { "((1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "1.5|(1.6|1.7),1.8,1.9|2.0|2.1" },
            { "(>=1,<2)|>3", ">=1,<2|>3" },
            { "~=1.4.2", "~=1.4.2" },
            { "1.*.1", "1.*.1" },
            { "^1\\.7$|1.8", "^1\\.7$|1.8" },
            { "=1.*.*", "=1.*.*" },
            { "==1.*.*", "==1.*.*" },
        };
        for (const auto& c : table)
        {
            CAPTURE(c.spec);
            const VersionSpec parsed = spec(c.spec);
            CHECK(parsed.to_string() == c.printed);
            CHECK(spec(parsed.to_string()) == parsed);
        }
        CHECK_FALSE(spec("1.7") == spec("1.7.*"));
        CHECK(spec("=1.7") == spec("1.7*"));
        CHECK(spec("==1.7") == spec("1.7.0"));
    }

    TEST_CASE("VersionSpec helpers", "[specs][VersionSpec]")
    {
        CHECK(spec("*").is_free());
        CHECK(spec("").is_free());
        CHECK(spec("=*").is_free());
        CHECK(spec("*|1.2").is_free());
        CHECK_FALSE(spec("*,1.2").is_free());
        CHECK_FALSE(spec("1.2").is_free());
        REQUIRE(spec("==1.2").exact_version() != nullptr);
        CHECK(spec("1.2").exact_version()->to_string() == "1.2");
        CHECK(spec("=1.2").exact_version() == nullptr);
        CHECK(spec(">=1,<2").constraints().size() == 2);
        CHECK(spec(">=1,<2").constraints()[1].op == VersionOperator::less);

        const VersionSpec deprecated = spec(">=1.8.*");
        REQUIRE(deprecated.warnings().size() == 1);
        CHECK(deprecated.warnings()[0].offset == 5);
        CHECK(deprecated.warnings()[0].message.find("'.*' after '>=' is ignored") !=
              std::string::npos);
        CHECK(spec(">=1.8").warnings().empty());
    }

    TEST_CASE("VersionSpec::intersects by interval reasoning", "[specs][VersionSpec]")
    {
        struct Case
        {
            const char* a;
            const char* b;
            Satisfiability expected;
        };
        const auto no = Satisfiability::unsatisfiable;
        const auto yes = Satisfiability::satisfiable;
        const auto maybe = Satisfiability::unknown;
        const std::vector<Case> table = {
            { ">=2", "<1.26", no },
            { ">=1.21,<2", "1.26.*", yes },
            { "1.26.*", "1.27.*", no },
            { "1.26.*", "1.26.4", yes },
            { "=3.10", ">=3.11", no },
            { "=3.10", "3.10.13", yes },
            { "==1.5", "1.5.0", yes },
            { "==1.5", "!=1.5.0", no },
            { "!=1.5.0", "1.5.1", yes },
            { "!=1.2.*", "1.2.5", no },
            { "!=1.2.*", ">=1.2,<1.2.9", no },
            { "!=1.2.*", ">=1.2,<1.3", yes }, // 1.3a1: pre-releases sort below 1.3
            { "!=1.2.*", ">=1.2,<=1.3", yes },
            { "~=1.4", "<1.4", no },
            { "~=1.4", ">=2", no },
            { "~=1.4", "1.9.1", yes },
            { ">1.0", "<1.0.0", no },
            { ">=1.0", "<=1.0.0", yes },
            { ">1.0", "<1.0.0.1", yes },
            { ">=3.8,<3.9|>=3.10", "3.9.*", yes }, // 3.9rc1 < 3.9 starts with 3.9
            { ">=3.8,<3.8.5|>=3.10", "3.9.*", no },
            { ">=3.8,<3.9|>=3.10", "3.10.*", yes },
            { "1.*.1", ">=1", maybe },
            { "1.*.1", "<0", maybe }, // a regex: we cannot tell, so "may be"
            { "^1\\..*$", ">=2", maybe },
            { "=1.0a", ">=1", maybe }, // a prefix ending in a string is not a range
            { "*", "<0.1", yes },
        };
        for (const auto& c : table)
        {
            INFO("'" << c.a << "' and '" << c.b << "'");
            CHECK(spec(c.a).intersects(spec(c.b)) == c.expected);
            CHECK(spec(c.b).intersects(spec(c.a)) == c.expected);
        }
        CHECK(spec(">1.0,<1.0.0").satisfiability() == Satisfiability::unsatisfiable);
        CHECK(spec(">=1.26").satisfiability() == Satisfiability::satisfiable);
        const std::vector<VersionSpec> three = { spec(">=1.21"), spec("<2"), spec("!=1.26.*") };
        CHECK(envcheck::specs::satisfiability_of(three) == Satisfiability::satisfiable);
        const std::vector<VersionSpec> none = { spec(">=1.21"), spec("<1.21.5"), spec("!=1.21.*") };
        CHECK(envcheck::specs::satisfiability_of(none) == Satisfiability::unsatisfiable);
        CHECK(to_string(Satisfiability::unknown) == "unknown");
    }
}
