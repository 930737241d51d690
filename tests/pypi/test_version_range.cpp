#include <string_view>

#include "pypi/specifier.hpp"
#include "pypi/version_range.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::Boundary;
using envcheck::pypi::RangePoint;
using envcheck::pypi::SpecifierSet;
using envcheck::pypi::Version;
using envcheck::pypi::VersionRanges;

namespace
{
    auto v(std::string_view text) -> Version
    {
        return Version::parse(text).value();
    }

    auto ranges(std::string_view text) -> VersionRanges
    {
        return SpecifierSet::parse(text).value().ranges();
    }

    TEST_CASE("RangePoint order", "[pypi][VersionRange]")
    {
        // V < V+local < after_locals(V) < V.post0 < after_posts(V) < the next release.
        const RangePoint chain[] = {
            { v("1.0"), Boundary::none },         { v("1.0+local"), Boundary::none },
            { v("1.0"), Boundary::after_locals }, { v("1.0.post0.dev0"), Boundary::none },
            { v("1.0.post0"), Boundary::none },   { v("1.0.post1"), Boundary::after_locals },
            { v("1.0.post7"), Boundary::none },   { v("1.0"), Boundary::after_posts },
            { v("1.0.0.1"), Boundary::none },     { v("1.1.dev0"), Boundary::none },
        };
        for (std::size_t i = 0; i < std::size(chain); ++i)
        {
            CHECK((compare(chain[i], chain[i]) == 0));
            for (std::size_t j = i + 1; j < std::size(chain); ++j)
            {
                CAPTURE(i, j);
                CHECK((compare(chain[i], chain[j]) < 0));
                CHECK((compare(chain[j], chain[i]) > 0));
            }
        }
    }

    TEST_CASE("intersect", "[pypi][VersionRange]")
    {
        // >1.0 excludes every 1.0.postN, so removing 1.0.post1 must not reopen the others.
        const auto both = intersect(ranges(">1.0"), ranges("!=1.0.post1"));
        CHECK_FALSE(contains(both, v("1.0.post2")));
        CHECK(contains(both, v("1.0.1")));
        // Versions are not dense: nothing lies between 1.0a1's post-releases and 1.0a2.dev0.
        CHECK(intersect(ranges(">1.0a1"), ranges("<1.0a2.dev0")).empty());
        CHECK(intersect(ranges(">=1.0"), ranges("<2.0")).size() == 1);
        CHECK(intersect(ranges("!=1.5"), ranges("!=1.7")).size() == 3);
        CHECK(envcheck::pypi::full_range().size() == 1);
    }

    TEST_CASE("prerelease_only", "[pypi][VersionRange]")
    {
        CHECK(prerelease_only(ranges(">=1.0a1,<1.0a5")));
        CHECK(prerelease_only(ranges("<0a1")));
        CHECK_FALSE(prerelease_only(ranges(">=1.0a1.post0,<=1.0")));
        CHECK_FALSE(prerelease_only(ranges(">=1.0a1")));
        CHECK_FALSE(prerelease_only(ranges("==1.0+local")));
    }
}
