// Intervals of the PEP 440 version line, the model packaging 26.x evaluates specifiers with:
// every specifier is a sorted list of disjoint ranges, a specifier set is their intersection,
// and an empty intersection means "can never be satisfied".
//
// Some exclusions of PEP 440 are not plain intervals: ">1.0" must not match 1.0.post1 and
// "<=1.0" must match 1.0+local. They are modelled with boundary points that sit just after a
// family of versions of V:  V < V+local < after_locals(V) < V.post0 < after_posts(V).
#ifndef ENVCHECK_PYPI_VERSION_RANGE_HPP
#define ENVCHECK_PYPI_VERSION_RANGE_HPP

#include <compare>
#include <cstdint>
#include <optional>
#include <vector>

#include "pypi/version.hpp"

namespace envcheck::pypi
{
    enum class Boundary : std::uint8_t
    {
        none,         // the version itself
        after_locals, // after V and every V+local, before V.post0
        after_posts,  // after V, V+local and every V.postN, before the next release
    };

    struct RangePoint
    {
        Version version;
        Boundary boundary = Boundary::none;
    };

    // nullopt point: unbounded (-inf for a lower bound, +inf for an upper bound).
    struct LowerBound
    {
        std::optional<RangePoint> point;
        bool inclusive = false;
    };

    struct UpperBound
    {
        std::optional<RangePoint> point;
        bool inclusive = false;
    };

    struct VersionRange
    {
        LowerBound lower;
        UpperBound upper;

        [[nodiscard]] auto contains(const Version& version) const -> bool;
    };

    using VersionRanges = std::vector<VersionRange>;

    // Where `point` sits relative to `version`; a boundary is never equal to a version.
    [[nodiscard]] auto compare(const RangePoint& point, const Version& version)
      -> std::strong_ordering;
    [[nodiscard]] auto compare(const RangePoint& a, const RangePoint& b) -> std::strong_ordering;

    [[nodiscard]] auto full_range() -> VersionRanges;
    // Both inputs sorted and disjoint; so is the result.
    [[nodiscard]] auto intersect(const VersionRanges& left, const VersionRanges& right)
      -> VersionRanges;
    [[nodiscard]] auto contains(const VersionRanges& ranges, const Version& version) -> bool;
    // The ranges that hold at least one version.
    [[nodiscard]] auto without_empty(VersionRanges ranges) -> VersionRanges;
    // True when every range holds pre-releases only (so excluding pre-releases empties it).
    [[nodiscard]] auto prerelease_only(const VersionRanges& ranges) -> bool;
}

#endif
