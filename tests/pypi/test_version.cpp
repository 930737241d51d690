#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypi/version.hpp"
#include "tests/catch.hpp"
#include "tests/pypi/vectors.hpp"

using envcheck::pypi::PreRelease;
using envcheck::pypi::PreReleaseKind;
using envcheck::pypi::Version;

namespace
{
    auto v(std::string_view text) -> Version
    {
        auto parsed = Version::parse(text);
        INFO("version " << text);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    TEST_CASE("Version::parse", "[pypi][Version]")
    {
        // PEP 440 "Normalization": every spelling and its normalized form.
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "1.0", "1.0" },
            { "1", "1" },
            { "01.02.003", "1.2.3" },
            { "2012.04.15", "2012.4.15" },
            { "1.0a1", "1.0a1" },
            { "1.0alpha1", "1.0a1" },
            { "1.0.a1", "1.0a1" },
            { "1.0-a.1", "1.0a1" },
            { "1.0_A1", "1.0a1" },
            { "1.0a", "1.0a0" },
            { "1.0beta2", "1.0b2" },
            { "1.0c3", "1.0rc3" },
            { "1.0pre3", "1.0rc3" },
            { "1.0preview3", "1.0rc3" },
            { "1.0RC3", "1.0rc3" },
            { "1.0rev4", "1.0.post4" },
            { "1.0r4", "1.0.post4" },
            { "1.0-4", "1.0.post4" },
            { "1.0post", "1.0.post0" },
            { "1.0.post-2", "1.0.post2" },
            { "1.0a1-1", "1.0a1.post1" },
            { "1.0dev", "1.0.dev0" },
            { "1.0-dev-3", "1.0.dev3" },
            { "1.0.DEV1", "1.0.dev1" },
            { "v1.0", "1.0" },
            { "V1.0", "1.0" },
            { " 1.0\n", "1.0" },
            { "1!1.0", "1!1.0" },
            { "0!1.0", "1.0" },
            { "1.0+Ubuntu-1", "1.0+ubuntu.1" },
            { "1.0+abc_007", "1.0+abc.7" },
            { "1.0a1.post2.dev3+local.7", "1.0a1.post2.dev3+local.7" },
            { "18446744073709551615", "18446744073709551615" },
        };
        for (const auto& [text, normalized] : cases)
        {
            CAPTURE(text);
            const auto parsed = Version::parse(text);
            REQUIRE(parsed.has_value());
            CHECK(parsed->to_string() == normalized);
            // Round trip: the normalized form parses to an equal version and prints the same.
            const auto again = Version::parse(parsed->to_string());
            REQUIRE(again.has_value());
            CHECK(*again == *parsed);
            CHECK(again->to_string() == normalized);
        }
    }

    TEST_CASE("Version::parse negative", "[pypi][Version]")
    {
        // The offset points at the first character that does not fit the grammar.
        const std::pair<std::string_view, std::size_t> cases[] = {
            { "", 0 },         { "abc", 0 },     { "1.0.x", 3 },
            { "1.0-", 3 },     { "1.0+", 3 },    { "1.0+a+", 5 },
            { "1..0", 1 },     { "1.0a1b2", 5 }, { "v", 1 },
            { "1!", 2 },       { "1.0 0", 3 },   { "1.0.dev1.post1", 8 },
            { "1.0+_foo", 3 }, { "1,0", 1 },     { "99999999999999999999", 0 },
        };
        for (const auto& [text, offset] : cases)
        {
            CAPTURE(text);
            const auto parsed = Version::parse(text);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == offset);
            CHECK(parsed.error().input == text);
            CHECK_FALSE(parsed.error().message.empty());
        }
    }

    TEST_CASE("Version ordering", "[pypi][Version]")
    {
        // Hand-sorted from PEP 440 "Summary of permitted suffixes and relative ordering".
        const std::vector<Version> chain = {
            v("1.dev0"),
            v("1.0.dev456"),
            v("1.0a1"),
            v("1.0a2.dev456"),
            v("1.0a12.dev456"),
            v("1.0a12"),
            v("1.0b1.dev456"),
            v("1.0b2"),
            v("1.0b2.post345.dev456"),
            v("1.0b2.post345"),
            v("1.0rc1.dev456"),
            v("1.0rc1"),
            v("1.0"),
            v("1.0+abc.5"),
            v("1.0+abc.7"),
            v("1.0+5"),
            v("1.0.post456.dev34"),
            v("1.0.post456"),
            v("1.0.15"),
            v("1.1.dev1"),
            v("1!0.1"),
        };
        for (std::size_t i = 0; i < chain.size(); ++i)
        {
            CHECK(chain[i] == chain[i]);
            for (std::size_t j = i + 1; j < chain.size(); ++j)
            {
                CAPTURE(chain[i].to_string(), chain[j].to_string());
                CHECK(chain[i] < chain[j]);
                CHECK(chain[j] > chain[i]);
                CHECK(chain[i] != chain[j]);
                for (std::size_t k = j + 1; k < chain.size(); ++k)
                {
                    // Transitivity over every triple.
                    CHECK((chain[i] < chain[j] && chain[j] < chain[k] && chain[i] < chain[k]));
                }
            }
        }
    }

    TEST_CASE("Version equality", "[pypi][Version]")
    {
        CHECK(v("1.0") == v("1.0.0"));
        CHECK(v("1.0") == v("1.0.0.0"));
        CHECK(v("0") == v("0.0"));
        CHECK(v("1.0c1") == v("1.0rc1"));
        CHECK(v("1.0-1") == v("1.0.post1"));
        CHECK(v("1.0+05") == v("1.0+5"));
        CHECK(v("1.0+ABC") == v("1.0+abc"));
        CHECK(v("1.0+abc") != v("1.0"));
        CHECK(v("1.0+abc") > v("1.0"));
        CHECK(v("1.0+abc") < v("1.0+abc.0"));
        CHECK(v("1.0+abc") < v("1.0+0")); // numbers sort above strings
        CHECK(v("1.0+9") < v("1.0+10"));
        CHECK(v("1.0+99999999999999999999999") > v("1.0+9999999999999999999999"));
    }

    TEST_CASE("Version properties", "[pypi][Version]")
    {
        const auto version = v("1!2.0rc3.post4.dev5+ubuntu.1");
        CHECK(version.epoch() == 1);
        CHECK(version.release() == std::vector<std::uint64_t>{ 2, 0 });
        CHECK(version.pre() == PreRelease{ PreReleaseKind::rc, 3 });
        CHECK(version.post() == 4u);
        CHECK(version.dev() == 5u);
        CHECK(version.local() == "ubuntu.1");
        CHECK(version.public_version() == "1!2.0rc3.post4.dev5");
        CHECK(version.base_version() == "1!2.0");
        CHECK(version.is_prerelease());
        CHECK(version.is_postrelease());
        CHECK(version.is_devrelease());

        CHECK_FALSE(v("1.0").is_prerelease());
        CHECK_FALSE(v("1.0.post1").is_prerelease());
        CHECK(v("1.0.post1.dev1").is_prerelease());
        CHECK(v("1.0b1").is_prerelease());
        CHECK(Version().to_string() == "0");
        CHECK(Version::from_parts(version.parts()) == version);
        CHECK(Version::from_parts(version.parts()).to_string() == version.to_string());
    }

    TEST_CASE("Version packaging vectors", "[pypi][Version]")
    {
        const auto vectors = envcheck::tests::load_vectors("pep440_order.json");
        if (!vectors)
        {
            return;
        }
        using envcheck::tests::asserted_by;
        const char* head = envcheck::tests::packaging_head_version_tests;
        envcheck::tests::VectorTally tally{ "pep440_order.json" };

        for (std::size_t list = 0; list < vectors->at("ordered").size(); ++list)
        {
            const auto& sources = vectors->at("ordered_sources").at(list);
            if (std::find(sources.begin(), sources.end(), head) == sources.end())
            {
                ++tally.skipped;
                continue;
            }
            std::vector<Version> ordered;
            for (const auto& text : vectors->at("ordered").at(list))
            {
                ordered.push_back(v(text.get<std::string>()));
            }
            for (std::size_t i = 0; i < ordered.size(); ++i)
            {
                CHECK(ordered[i] == ordered[i]);
                for (std::size_t j = i + 1; j < ordered.size(); ++j)
                {
                    CAPTURE(ordered[i].to_string(), ordered[j].to_string());
                    CHECK(ordered[i] < ordered[j]);
                    CHECK(ordered[i] <= ordered[j]);
                    CHECK(ordered[i] != ordered[j]);
                    ++tally.checked;
                }
            }
        }
        for (const auto& pair : vectors->at("equal"))
        {
            CHECK(v(pair.at(0).get<std::string>()) == v(pair.at(1).get<std::string>()));
            ++tally.checked;
        }
        const auto& invalid = vectors->at("invalid");
        for (std::size_t i = 0; i < invalid.size(); ++i)
        {
            const auto& sources = vectors->at("invalid_sources").at(i);
            if (std::find(sources.begin(), sources.end(), head) == sources.end())
            {
                ++tally.skipped;
                continue;
            }
            const auto text = invalid.at(i).get<std::string>();
            CAPTURE(text);
            CHECK_FALSE(Version::parse(text).has_value());
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("normalized"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto text = entry.at("version").get<std::string>();
            CAPTURE(text);
            CHECK(v(text).to_string() == entry.at("str").get<std::string>());
            ++tally.checked;
        }
        for (const auto& entry : vectors->at("properties"))
        {
            if (!asserted_by(entry, head))
            {
                ++tally.skipped;
                continue;
            }
            const auto version = v(entry.at("version").get<std::string>());
            const auto property = entry.at("property").get<std::string>();
            const auto& value = entry.at("value");
            CAPTURE(entry.dump());
            if (property == "public")
            {
                CHECK(version.public_version() == value.get<std::string>());
            }
            else if (property == "base_version")
            {
                CHECK(version.base_version() == value.get<std::string>());
            }
            else if (property == "epoch")
            {
                CHECK(version.epoch() == value.get<std::uint64_t>());
            }
            else if (property == "release")
            {
                CHECK(version.release() == value.get<std::vector<std::uint64_t>>());
            }
            else if (property == "local")
            {
                CHECK(version.local() ==
                      (value.is_null() ? std::string() : value.get<std::string>()));
            }
            else if (property == "pre")
            {
                REQUIRE(value.is_null() == !version.pre().has_value());
                if (!value.is_null())
                {
                    CHECK(to_string(version.pre()->kind) == value.at(0).get<std::string>());
                    CHECK(version.pre()->number == value.at(1).get<std::uint64_t>());
                }
            }
            else if (property == "dev" || property == "post")
            {
                const auto& actual = property == "dev" ? version.dev() : version.post();
                REQUIRE(value.is_null() == !actual.has_value());
                if (!value.is_null())
                {
                    CHECK(*actual == value.get<std::uint64_t>());
                }
            }
            else if (property == "is_prerelease")
            {
                CHECK(version.is_prerelease() == value.get<bool>());
            }
            else if (property == "is_devrelease")
            {
                CHECK(version.is_devrelease() == value.get<bool>());
            }
            else if (property == "is_postrelease")
            {
                CHECK(version.is_postrelease() == value.get<bool>());
            }
            else
            {
                FAIL("unknown property " << property);
            }
            ++tally.checked;
        }
        CHECK(tally.checked > 500);
    }
}
