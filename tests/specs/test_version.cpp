#include <string>
#include <vector>

#include "specs/version.hpp"
#include "tests/catch.hpp"

using envcheck::specs::Version;

namespace
{
    auto v(const std::string& text) -> Version
    {
        auto parsed = Version::parse(text);
        INFO("version '" << text << "'" << (parsed ? "" : ": " + parsed.error().to_string()));
        REQUIRE(parsed.has_value());
        return std::move(parsed).value();
    }

    TEST_CASE("Version::parse CEP 33 canonical ordering", "[specs][Version]")
    {
        // CEP 33 "Examples", hand-sorted: each inner list holds equal versions, lists ascend.
        const std::vector<std::vector<std::string>> chain = {
            { "0.4", "0.4.0" },
            { "0.4.1.rc", "0.4.1.RC" },
            { "0.4.1+local" },
            { "0.4.1+0.local" },
            { "0.4.1", "0.4.1+0" },
            { "0.4.1+1.local" },
            { "0.5a1" },
            { "0.5b3" },
            { "0.5C1" },
            { "0.5" },
            { "0.9.6" },
            { "0.960923" },
            { "1.0" },
            { "1.1dev1" },
            { "1.1a1" },
            { "1.1.0dev1", "1.1.dev1" },
            { "1.1.a1" },
            { "1.1.0rc1" },
            { "1.1.0.0", "1.1.0", "1.1" },
            { "1.1.post1", "1.1.0post1" },
            { "1.1post1" },
            { "1996.07.12" },
            { "1!0.4.1" },
            { "1!3.1.1.6" },
            { "2!0.4.1" },
        };
        for (std::size_t i = 0; i < chain.size(); ++i)
        {
            for (const auto& a : chain[i])
            {
                for (const auto& b : chain[i])
                {
                    INFO(a << " == " << b);
                    CHECK(v(a) == v(b));
                    CHECK(std::is_eq(v(a) <=> v(b)));
                }
                // Every later group is greater: checks transitivity, not only neighbours.
                for (std::size_t j = i + 1; j < chain.size(); ++j)
                {
                    for (const auto& b : chain[j])
                    {
                        INFO(a << " < " << b);
                        CHECK(v(a) < v(b));
                        CHECK(v(b) > v(a));
                        CHECK_FALSE(v(a) == v(b));
                    }
                }
            }
        }
    }

    TEST_CASE("Version::parse separators, openssl underscore, case", "[specs][Version]")
    {
        CHECK(v("0.5_5") == v("0.5-5"));  // '-' is '_' when there is no '_'
        CHECK(v("1.0.1_") < v("1.0.1a")); // openssl style
        CHECK(v("1.0.1dev") < v("1.0.1_"));
        CHECK(v("1.0.1") > v("1.0.1a"));
        CHECK(v("1.0.1post.a") > v("1.0.1"));
        CHECK(v("1.0RC1") == v("1.0rc1"));
        CHECK(v("1.007") == v("1.7")); // leading zeros do not count
        CHECK(v(" 1.2 ") == v("1.2")); // surrounding whitespace is ignored
        CHECK(v("0.5*") < v("0.5a1")); // '*' is a string, the smallest one
    }

    TEST_CASE("Version::parse numbers beyond 64 bits compare exactly", "[specs][Version]")
    {
        // conda's integers are unbounded; date stamps exceed CEP 33's 2^31-1.
        CHECK(v("1.20230215103000") > v("1.2147483647"));
        CHECK(v("1.123456789012345678901234") < v("1.123456789012345678901235"));
        CHECK(v("1.99999999999999999999") > v("1.18446744073709551615"));
        CHECK(v("1.000123456789012345678901234") == v("1.123456789012345678901234"));
        CHECK(v("1.123456789012345678901234") < v("1.123456789012345678901234post"));
    }

    TEST_CASE("Version::to_string keeps the text as written", "[specs][Version]")
    {
        for (const std::string text : { "1.2.3-alpha.2", "1!1.2a.3-rc1", "1--", "1_2_3_", "1.0.1_",
                                        "3!1.3ab2.4+42.0alpha", "0.4.A1", "20230215103000" })
        {
            CAPTURE(text);
            CHECK(v(text).to_string() == text);
            CHECK(v(v(text).to_string()) == v(text));
        }
        CHECK(v("  1.2  ").to_string() == "1.2");
        CHECK(Version().to_string() == "0");
        CHECK(Version() == v("0.0"));
    }

    TEST_CASE("Version::parse negative", "[specs][Version]")
    {
        struct Bad
        {
            std::string text;
            std::size_t offset;
            std::string message;
        };
        const std::vector<Bad> table = {
            { "", 0, "expected a version" },
            { "   ", 0, "expected a version" },
            { "1..1", 2, "empty version component" },
            { "1.", 2, "empty version component" },
            { ".1", 0, "empty version component" },
            { "1.2+", 4, "expected a local version after '+'" },
            { "+1.2", 0, "expected a version before '+'" },
            { "1!+1", 2, "expected a version before '+'" },
            { "0!", 2, "expected a version after '!'" },
            { "1!2!3", 3, "duplicated epoch separator '!'" },
            { "a!1.0", 0, "the epoch (before '!') must be an integer" },
            { "1+2+3", 3, "duplicated local version separator '+'" },
            { "1-1_1", 1, "'-' cannot be used in a version that also uses '_'" },
            { "3.5&1", 3, "invalid character '&' in version" },
            { "1.2 3", 3, "invalid character whitespace in version" },
            { "  1@2", 3, "invalid character '@' in version" },
            { "1___", 2, "empty version component" },
            { "1.2+a_", 6, "empty version component" },
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.text);
            const auto parsed = Version::parse(bad.text);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == bad.offset);
            CHECK(parsed.error().message.find(bad.message) != std::string::npos);
            CHECK(parsed.error().input == bad.text);
        }
    }

    TEST_CASE("Version::starts_with is segment-aware", "[specs][Version]")
    {
        struct Case
        {
            const char* version;
            const char* prefix;
            bool result;
        };
        const std::vector<Case> table = {
            { "1.8.2", "1.8", true },   { "1.80", "1.8", false },      { "1.8", "1.8", true },
            { "1.8a1", "1.8", true },   { "1.8.0.0", "1.8.0", true },  { "1.8", "1.8.0", true },
            { "1.9", "1.8", false },    { "0.4.1p1", "0.4.1p", true }, { "1.0dev", "1.0d", false },
            { "1!1.8", "1.8", false },  { "1!1.8.1", "1!1.8", true },  { "1.2+3.4", "1.2+3", true },
            { "1.2+3.4", "1.2", true }, { "1.2", "1.2+3", false },     { "1.0.2a", "1.0.1", false },
        };
        for (const auto& c : table)
        {
            INFO(c.version << " starts with " << c.prefix);
            CHECK(v(c.version).starts_with(v(c.prefix)) == c.result);
        }
    }

    TEST_CASE("Version::compatible_with (~=)", "[specs][Version]")
    {
        CHECK(v("1.4.5").compatible_with(v("1.4.2")));
        CHECK_FALSE(v("1.5").compatible_with(v("1.4.2")));
        CHECK(v("1.9").compatible_with(v("1.4")));
        CHECK_FALSE(v("2.0").compatible_with(v("1.4")));
        CHECK_FALSE(v("1.4.1").compatible_with(v("1.4.2")));
        CHECK_FALSE(
          v("2").compatible_with(v("1"))); // "~=1" has no prefix: conda cannot evaluate it
        REQUIRE(v("1.4.2").compatible_prefix().has_value());
        CHECK(v("1.4.2").compatible_prefix()->to_string() == "1.4");
        CHECK_FALSE(v("1").compatible_prefix().has_value());
    }

    TEST_CASE("Version prefix bounds", "[specs][Version]")
    {
        CHECK(v("1.8").prefix_floor()->to_string() == "1.8*");
        CHECK(v("1.8").next_prefix_bound()->to_string() == "1.9*");
        CHECK(v("1.99").next_prefix_bound()->to_string() == "1.100*");
        CHECK(v("1!2").next_prefix_bound()->to_string() == "1!3*");
        CHECK_FALSE(v("1.8a").next_prefix_bound().has_value());
        CHECK_FALSE(v("1.8post").prefix_floor().has_value());
        CHECK_FALSE(v("1.8+1").prefix_floor().has_value());
        // Every version starting with 1.8 lies in [1.8*, 1.9*).
        for (const std::string text :
             { "1.8", "1.8a1", "1.8dev", "1.8.0.0.1", "1.8.99post", "1.8_" })
        {
            CAPTURE(text);
            CHECK(v(text) >= *v("1.8").prefix_floor());
            CHECK(v(text) < *v("1.8").next_prefix_bound());
        }
    }

    TEST_CASE("Version::epoch", "[specs][Version]")
    {
        CHECK(v("1.0").epoch() == 0U);
        CHECK(v("3!1.0").epoch() == 3U);
        CHECK_FALSE(v("123456789012345678901234!1.0").epoch().has_value());
    }
}
