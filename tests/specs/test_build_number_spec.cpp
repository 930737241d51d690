#include <string>
#include <vector>

#include "specs/build_number_spec.hpp"
#include "tests/catch.hpp"

using envcheck::specs::BuildNumberSpec;

namespace
{
    TEST_CASE("BuildNumberSpec::parse", "[specs][BuildNumberSpec]")
    {
        struct Case
        {
            const char* spec;
            std::uint64_t number;
            bool match;
        };
        const std::vector<Case> table = {
            { "", 7, true },       { "*", 7, true },       { "=*", 7, true },
            { "3", 3, true },      { "3", 4, false },      { "=3", 3, true },
            { "==3", 3, true },    { "!=3", 3, false },    { "!=3", 4, true },
            { "<3", 2, true },     { "<3", 3, false },     { "<=3", 3, true },
            { ">3", 3, false },    { ">3", 4, true },      { ">=3", 3, true },
            { " >= 3 ", 3, true }, { "^[0-2]$", 2, true }, { "^[0-2]$", 12, false },
        };
        for (const auto& c : table)
        {
            INFO("'" << c.spec << "' contains " << c.number);
            const auto spec = BuildNumberSpec::parse(c.spec);
            REQUIRE(spec.has_value());
            CHECK(spec->contains(c.number) == c.match);
            CHECK(BuildNumberSpec::parse(spec->to_string()).value() == *spec);
        }
        CHECK(BuildNumberSpec::parse(">=3")->to_string() == ">=3");
        CHECK(BuildNumberSpec::parse("==3")->to_string() == "3");
        CHECK(BuildNumberSpec().is_free());
    }

    TEST_CASE("BuildNumberSpec::parse negative", "[specs][BuildNumberSpec]")
    {
        struct Bad
        {
            const char* spec;
            std::size_t offset;
            const char* message;
        };
        const std::vector<Bad> table = {
            { "<2.4", 1, "expected a build number (a non-negative integer), found '2.4'" },
            { "<", 1, "expected a build number after '<'" },
            { "(3)", 0, "found '(3)'" },
            { "-1", 0, "found '-1'" },
            { "99999999999999999999999", 0, "a non-negative integer" },
            { "^(1$", 1, "missing ')'" },
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.spec);
            const auto spec = BuildNumberSpec::parse(bad.spec);
            REQUIRE_FALSE(spec.has_value());
            CHECK(spec.error().offset == bad.offset);
            CHECK(spec.error().message.find(bad.message) != std::string::npos);
        }
    }
}
