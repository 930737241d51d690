#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "pypi/specifier.hpp"
#include "tests/catch.hpp"
#include "tests/pypi/vectors.hpp"

using envcheck::pypi::Operator;
using envcheck::pypi::Specifier;
using envcheck::pypi::SpecifierSet;
using envcheck::pypi::Version;

namespace
{
    auto spec(std::string_view text) -> Specifier
    {
        auto parsed = Specifier::parse(text);
        INFO("specifier " << text);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    auto set(std::string_view text) -> SpecifierSet
    {
        auto parsed = SpecifierSet::parse(text);
        INFO("specifier set " << text);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    auto views(const std::vector<std::string>& items) -> std::vector<std::string_view>
    {
        return { items.begin(), items.end() };
    }

    TEST_CASE("Specifier::contains", "[pypi][Specifier]")
    {
        // From PEP 440 "Version specifiers", with pre-releases allowed where the PEP's example
        // is about the operator rather than the pre-release rule.
        const std::tuple<std::string_view, std::string_view, bool> cases[] = {
            // Compatible release: ~=V.N is >=V.N, ==V.*
            { "~=2.2", "2.2", true },
            { "~=2.2", "2.3", true },
            { "~=2.2", "2.9.1", true },
            { "~=2.2", "3.0", false },
            { "~=2.2", "2.1", false },
            { "~=1.4.5", "1.4.6", true },
            { "~=1.4.5", "1.5.0", false },
            { "~=2.2.post3", "2.2.post3", true },
            { "~=2.2.post3", "2.3", true },
            { "~=2.2.post3", "2.2", false },
            { "~=2.2.post3", "3.0", false },
            { "~=2.2.0", "2.2.9", true },
            { "~=2.2.0", "2.3", false },
            // Version matching: zero padding, prefix matching, local labels.
            { "==1.1", "1.1.0", true },
            { "==1.1.post1", "1.1", false },
            { "==1.1.*", "1.1", true },
            { "==1.1.*", "1.1.post1", true },
            { "==1.1.*", "1.1.0.5", true },
            { "==1.1.*", "1.2", false },
            { "==1.0", "1.0+abc", true },
            { "==1.0+abc", "1.0+abc", true },
            { "==1.0+abc", "1.0", false },
            { "==1.0+abc", "1.0+abd", false },
            { "!=1.1.*", "1.1.3", false },
            { "!=1.1.*", "1.2", true },
            { "!=1.0", "1.0+abc", false },
            { "==1.*", "1.0.dev1", true },
            // Ordered comparisons: >V excludes V's post-releases and locals, <V its pre-releases.
            { ">1.7", "1.7.1", true },
            { ">1.7", "1.7.0.post1", false },
            { ">1.7", "1.7+local", false },
            { ">1.7.post2", "1.7.1", true },
            { ">1.7.post2", "1.7.0.post3", true },
            { ">1.7.post2", "1.7.0.post1", false },
            { "<1.7", "1.7.0rc1", false },
            { "<1.7", "1.6", true },
            { "<1.7rc2", "1.7rc1", true },
            { "<=1.7", "1.7+local", true },
            { ">=1.7", "1.7+local", true },
            { "<1.7", "1.7+local", false },
            // Arbitrary equality: the string, ASCII case aside.
            { "===foobar", "foobar", true },
            { "===foobar", "FOOBAR", true },
            { "===1.0", "1.0.0", false },
            { "===1.0", "1.0", true },
            // Strings that are not versions only match ===.
            { ">=1.0", "not a version", false },
            // Release numbers at 2^64 - 1, the largest a version holds: the prefix bound of
            // .* and ~= carries into the number before (found by differential testing; the
            // bound used to be dropped, so ==0.18446744073709551615.* matched 1).
            { "==0.18446744073709551615.*", "1", false },
            { "==0.18446744073709551615.*", "0.18446744073709551615.3", true },
            { "==0.18446744073709551615.*", "0.18446744073709551614", false },
            { "!=0.18446744073709551615.*", "1", true },
            { "!=0.18446744073709551615.*", "0.18446744073709551615", false },
            { "==1.18446744073709551615.18446744073709551615.*", "2", false },
            { "==18446744073709551615.*", "1!0", false },
            { "==18446744073709551615.*", "18446744073709551615.1", true },
            { "~=0.18446744073709551615.0", "1.0", false },
            { "~=0.18446744073709551615.0", "0.18446744073709551615.9", true },
            { "~=1.18446744073709551615", "2.0", false },
            { "~=1.18446744073709551615", "1.18446744073709551615", true },
            { ">1.0.post18446744073709551615", "1.0.post18446744073709551615", false },
            { ">1.0.post18446744073709551615", "1.0.1", true },
            { ">1.0.dev18446744073709551615", "1.0.dev18446744073709551615", false },
            { ">1.0.dev18446744073709551615", "1.0", true },
            { ">1.0.dev18446744073709551615", "1.0.dev18446744073709551615+x", false },
            { ">1.0.post18446744073709551615", "1.0.post18446744073709551615+x", false },
            { "<=1.0.post18446744073709551615", "1.0.post18446744073709551615", true },
            { "<=1.0.post18446744073709551615", "1.0.1", false },
        };
        for (const auto& [text, version, expected] : cases)
        {
            CAPTURE(text, version);
            CHECK(spec(text).contains(version, true) == expected);
        }
    }

    TEST_CASE("Specifier pre-releases", "[pypi][Specifier]")
    {
        // packaging 26.x: with no preference a pre-release in range is accepted by contains().
        CHECK(spec(">=1.0").contains("2.0a1"));
        CHECK_FALSE(spec(">=1.0").contains("2.0a1", false));
        auto no_pre = spec(">=1.0");
        no_pre.set_prereleases(false);
        CHECK_FALSE(no_pre.contains("2.0a1"));
        CHECK(no_pre.contains("2.0a1", true));
        CHECK(spec(">=1.0a1").prereleases() == true);
        CHECK(spec(">=1.0").prereleases() == false);
        CHECK(spec("!=1.0a1").prereleases() == false);
        CHECK(spec("==1.0.*").prereleases() == false);
        CHECK_FALSE(spec("===lolwat").prereleases().has_value());

        // filter(): pre-releases only when no final release matches.
        const std::vector<std::string> offered = { "1.2", "1.3", "1.5a1" };
        CHECK(spec(">=1.2.3").filter(views(offered)) == std::vector<std::string_view>{ "1.3" });
        const std::vector<std::string> only_pre = { "1.2", "1.5a1" };
        CHECK(spec(">=1.2.3").filter(views(only_pre)) == std::vector<std::string_view>{ "1.5a1" });
        CHECK(spec(">=1.2.3").filter(views(offered), true) ==
              std::vector<std::string_view>{ "1.3", "1.5a1" });
    }

    TEST_CASE("Specifier::parse", "[pypi][Specifier]")
    {
        const auto compatible = spec(" ~= 1.4.2 ");
        CHECK(compatible.op() == Operator::compatible);
        CHECK(compatible.version_text() == "1.4.2");
        CHECK(compatible.to_string() == "~=1.4.2");
        CHECK(spec("==1.0.*").is_wildcard());
        CHECK(spec("==1.0.*").version() == Version::parse("1.0").value());
        CHECK(spec("===lolwat").version() == std::nullopt);
        CHECK(spec("==V1.0").to_string() == "==V1.0"); // written as given, like packaging
        CHECK(spec("==1.2") == spec("== 1.2.0"));
        CHECK_FALSE(spec("==1.2") == spec("~=1.2"));
        CHECK_FALSE(spec("~=1.2") == spec("~=1.2.0"));
        CHECK(envcheck::pypi::parse_operator("~=") == Operator::compatible);
        CHECK(envcheck::pypi::to_string(Operator::arbitrary) == "===");
    }

    TEST_CASE("Specifier::parse negative", "[pypi][Specifier]")
    {
        const std::pair<std::string_view, std::size_t> cases[] = {
            { "2.0", 0 },       { "=>2.0", 0 },     { "==", 2 },     { "~=1", 2 },
            { "~=1.0+5", 5 },   { ">=1.0+abc", 5 }, { "<1.0.*", 4 }, { "==1.0a1.*", 7 },
            { "==1.0.*.5", 7 }, { "== 1.0 1", 6 },  { "===a b", 4 }, { "", 0 },
            { "===", 3 },       { "=== ", 4 },
        };
        for (const auto& [text, offset] : cases)
        {
            CAPTURE(text);
            const auto parsed = Specifier::parse(text);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == offset);
        }
    }

    TEST_CASE("SpecifierSet::contains", "[pypi][SpecifierSet]")
    {
        CHECK(set(">=1.0,!=1.3.4.*,<2.0").contains("1.5"));
        CHECK_FALSE(set(">=1.0,!=1.3.4.*,<2.0").contains("1.3.4.2"));
        CHECK_FALSE(set(">=1.0,!=1.3.4.*,<2.0").contains("2.0"));
        CHECK(set("").contains("1.0"));
        CHECK(set("").contains("1.0a1"));
        CHECK_FALSE(set("").contains("1.0a1", false));
        CHECK(set(" >= 1.0 , < 2 ").contains("1.9"));
        // An installed pre-release satisfies the set even when pre-releases are off.
        auto no_pre = set(">=1.0");
        no_pre.set_prereleases(false);
        CHECK_FALSE(no_pre.contains("2.0b1"));
        CHECK(no_pre.contains("2.0b1", std::nullopt, true));
        CHECK(set("===foobar").contains("foobar"));
        CHECK_FALSE(set("===foobar,>=1").contains("foobar"));
        CHECK(set("~=1.18.0,~=1.18").contains("1.18.5"));
        CHECK_FALSE(set("~=1.18.0,~=1.18").contains("1.19.5"));
    }

    TEST_CASE("SpecifierSet::is_satisfiable", "[pypi][SpecifierSet]")
    {
        const std::pair<std::string_view, bool> cases[] = {
            { ">=2,<1.26", false },
            { ">=1.0,<2.0", true },
            { "==1.0,!=1.0", false },
            { "==1.*,!=1.*", false },
            { ">1.0,<1.0.post1", false },
            { ">=1.0,<=1.0", true },
            { ">1.0,<=1.0", false },
            { "===1.0,>=2", false },
            { "===abc", true },
            { "===abc,>=1", false },
            { "===abc,===ABC", true },
            { "===abc,===abd", false },
            { "", true },
            { "~=1.4,<1.4", false },
            { "==1.0+abc,!=1.0", false },
            { ">=1.0a1,<1.0a5", true },
            { "<0", false },
            { "<1,>=1", false },
            { ">=1.0a1,<1.0", false },
            { ">1.0,<=1.0.post1", false },
            { ">1.0a1,<1.0a2.dev0", false },
            { "==0.18446744073709551615.*,>=1", false },
            { "~=1.18446744073709551615,>=2", false },
            { ">=1.0.post18446744073709551615,<1.0.1", true },
            { ">1.0.post18446744073709551615,<1.0.0.1", true },
            { ">1.0.post18446744073709551615,<=1.0.post18446744073709551615", false },
        };
        for (const auto& [text, satisfiable] : cases)
        {
            CAPTURE(text);
            CHECK(set(text).is_satisfiable() == satisfiable);
        }
        // With pre-releases excluded, a range holding only pre-releases is empty.
        auto pre_only = set(">=1.0a1,<1.0a5");
        pre_only.set_prereleases(false);
        CHECK_FALSE(pre_only.is_satisfiable());
    }

    TEST_CASE("SpecifierSet::to_string and equality", "[pypi][SpecifierSet]")
    {
        CHECK(set(">=1.0.0,!=1.0.1").to_string() == "!=1.0.1,>=1.0.0");
        CHECK(set("==1.0,==1.0.0").to_string() == "==1.0");
        CHECK(set(">=1.0,!=1.0.1") == set("!=1.0.1, >=1.0"));
        CHECK(set("==1.2") == set("==1.2.0"));
        CHECK_FALSE(set(">=1.0") == set(">=1.0,!=1.5"));
        CHECK(set("==1.0").is_pinned());
        CHECK(set("===1.0").is_pinned());
        CHECK_FALSE(set("==1.0.*").is_pinned());
        CHECK_FALSE(set(">=1.0").is_pinned());
        const auto parsed = SpecifierSet::parse(">=1.0, <2,=3");
        REQUIRE_FALSE(parsed.has_value());
        CHECK(parsed.error().offset == 10);
    }

    TEST_CASE("Specifier packaging vectors", "[pypi][Specifier][SpecifierSet]")
    {
        const auto vectors = envcheck::tests::load_vectors("pep440_specifier.json");
        if (!vectors)
        {
            return;
        }
        using envcheck::tests::asserted_by;
        using envcheck::tests::optional_bool;
        const char* head = envcheck::tests::packaging_head_specifier_tests;
        envcheck::tests::VectorTally tally{ "pep440_specifier.json" };

        for (const auto& c : vectors->at("cases"))
        {
            if (!asserted_by(c, head))
            {
                ++tally.skipped;
                continue;
            }
            CAPTURE(c.dump());
            const auto text = c.at("spec").get<std::string>();
            const auto version = c.at("version").get<std::string>();
            const auto constructor = optional_bool(c.at("prereleases"));
            const auto requested = optional_bool(c.at("contains_prereleases"));
            const bool installed = optional_bool(c.at("installed")).value_or(false);
            const bool as_version = c.value("version_is_Version_object", false);
            const bool expected = c.at("match").get<bool>();
            if (c.at("kind") == "Specifier")
            {
                auto s = spec(text);
                s.set_prereleases(constructor);
                CHECK((as_version ? s.contains(Version::parse(version).value(), requested)
                                  : s.contains(version, requested)) == expected);
            }
            else
            {
                auto s = set(text);
                s.set_prereleases(constructor);
                CHECK((as_version
                         ? s.contains(Version::parse(version).value(), requested, installed)
                         : s.contains(version, requested, installed)) == expected);
            }
            ++tally.checked;
        }

        for (const auto& f : vectors->at("filter"))
        {
            if (!asserted_by(f, head))
            {
                ++tally.skipped;
                continue;
            }
            CAPTURE(f.dump());
            const auto input = f.at("input").get<std::vector<std::string>>();
            const auto expected = f.at("expected").get<std::vector<std::string>>();
            const auto constructor = optional_bool(f.at("prereleases"));
            const auto requested = optional_bool(f.at("filter_prereleases"));
            std::vector<std::string_view> result;
            if (f.at("kind") == "Specifier")
            {
                auto s = spec(f.at("spec").get<std::string>());
                s.set_prereleases(constructor);
                result = s.filter(views(input), requested);
            }
            else
            {
                auto s = set(f.at("spec").get<std::string>());
                s.set_prereleases(constructor);
                result = s.filter(views(input), requested);
            }
            CHECK(std::vector<std::string>(result.begin(), result.end()) == expected);
            ++tally.checked;
        }

        for (const auto& entry : vectors->at("invalid_specifiers"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto text = entry.at("spec").get<std::string>();
            CAPTURE(text);
            CHECK_FALSE(Specifier::parse(text).has_value());
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("valid_specifiers"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto text = entry.at("spec").get<std::string>();
            CAPTURE(text);
            CHECK(Specifier::parse(text).has_value());
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("spec_str"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto text = entry.at("spec").get<std::string>();
            CAPTURE(text);
            if (entry.at("str").is_null())
            {
                // "SpecifierSet('>2.0') & SpecifierSet('<5.0') == SpecifierSet('>2.0,<5.0')":
                // the order of the clauses does not matter.
                CHECK(set(text) == set("<5.0,>2.0"));
            }
            else if (entry.at("kind") == "Specifier")
            {
                CHECK(spec(text).to_string() == entry.at("str").get<std::string>());
            }
            else
            {
                CHECK(set(text).to_string() == entry.at("str").get<std::string>());
            }
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("spec_parts"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto s = spec(entry.at("spec").get<std::string>());
            CAPTURE(entry.dump());
            if (entry.contains("operator"))
            {
                CHECK(to_string(s.op()) == entry.at("operator").get<std::string>());
            }
            else
            {
                CHECK(s.version_text() == entry.at("version").get<std::string>());
            }
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("spec_prereleases_property"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            CAPTURE(entry.dump());
            CHECK(spec(entry.at("spec").get<std::string>()).prereleases() ==
                  optional_bool(entry.at("prereleases")));
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("satisfiable"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            CAPTURE(entry.dump());
            auto s = set(entry.at("spec").get<std::string>());
            s.set_prereleases(optional_bool(entry.at("prereleases")));
            CHECK(s.is_satisfiable() == entry.at("satisfiable").get<bool>());
            ++tally.checked;
        }
        CHECK(tally.checked > 1500);
    }
}
