#include "pypi/version_range.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace envcheck::pypi
{
    namespace
    {
        auto compare_release(const Version& a, const Version& b) -> std::strong_ordering
        {
            const auto& ra = a.release();
            const auto& rb = b.release();
            const std::size_t n = std::max(ra.size(), rb.size());
            for (std::size_t i = 0; i < n; ++i)
            {
                const std::uint64_t x = i < ra.size() ? ra[i] : 0;
                const std::uint64_t y = i < rb.size() ? rb[i] : 0;
                if (x != y)
                {
                    return x <=> y;
                }
            }
            return std::strong_ordering::equal;
        }

        // The pre slot of packaging's sort key: dev-only releases first, finals and
        // post-releases last.
        auto pre_rank(const Version& v) -> int
        {
            if (!v.pre() && !v.post() && v.dev())
            {
                return -1;
            }
            return v.pre() ? 0 : 1;
        }

        auto compare_pre(const Version& a, const Version& b) -> std::strong_ordering
        {
            if (const auto c = pre_rank(a) <=> pre_rank(b); c != 0)
            {
                return c;
            }
            if (pre_rank(a) == 0)
            {
                return *a.pre() <=> *b.pre();
            }
            return std::strong_ordering::equal;
        }

        auto compare_post(const Version& a, const Version& b) -> std::strong_ordering
        {
            if (const auto c = a.post().has_value() <=> b.post().has_value(); c != 0)
            {
                return c;
            }
            return a.post() ? *a.post() <=> *b.post() : std::strong_ordering::equal;
        }

        auto compare_dev(const Version& a, const Version& b) -> std::strong_ordering
        {
            if (const auto c = b.dev().has_value() <=> a.dev().has_value(); c != 0)
            {
                return c; // no dev release sorts last
            }
            return a.dev() ? *a.dev() <=> *b.dev() : std::strong_ordering::equal;
        }

        auto with(const Version& base, auto&& change) -> Version
        {
            auto parts = base.parts();
            change(parts);
            return Version::from_parts(std::move(parts));
        }

        auto next(std::uint64_t value) -> std::optional<std::uint64_t>
        {
            if (value == std::numeric_limits<std::uint64_t>::max())
            {
                return std::nullopt;
            }
            return value + 1;
        }

        auto lower_less(const LowerBound& a, const LowerBound& b) -> bool
        {
            if (!a.point)
            {
                return b.point.has_value();
            }
            if (!b.point)
            {
                return false;
            }
            if (const auto c = compare(*a.point, *b.point); c != 0)
            {
                return c < 0;
            }
            return a.inclusive && !b.inclusive; // [v starts before (v
        }

        auto upper_less(const UpperBound& a, const UpperBound& b) -> bool
        {
            if (!a.point)
            {
                return false;
            }
            if (!b.point)
            {
                return true;
            }
            if (const auto c = compare(*a.point, *b.point); c != 0)
            {
                return c < 0;
            }
            return !a.inclusive && b.inclusive; // v) ends before v]
        }

        auto upper_admits(const UpperBound& upper, const Version& version) -> bool
        {
            if (!upper.point)
            {
                return true;
            }
            const auto c = compare(*upper.point, version);
            return c > 0 || (c == 0 && upper.inclusive);
        }

        // The smallest version a lower bound admits, when there is one: versions are not
        // dense, so "(after_locals(1.0.dev0), 1.0.dev1)" is empty although its ends differ.
        // nullopt when the admitted versions have no minimum (above a final's post-releases,
        // above a local label).
        auto smallest_admitted(const LowerBound& lower) -> std::optional<Version>
        {
            if (!lower.point)
            {
                return Version::from_parts({ 0, { 0 }, {}, {}, 0, {} }); // 0.dev0
            }
            const RangePoint& p = *lower.point;
            if (p.boundary == Boundary::none)
            {
                if (lower.inclusive)
                {
                    return p.version;
                }
                return std::nullopt;
            }
            if (p.boundary == Boundary::after_locals)
            {
                // Past V's local family: the next dev release, else the next post-release.
                if (p.version.dev())
                {
                    const auto dev = next(*p.version.dev());
                    if (!dev)
                    {
                        return std::nullopt;
                    }
                    return with(p.version,
                                [&](Version::Parts& parts)
                                {
                                    parts.dev = *dev;
                                    parts.local.clear();
                                });
                }
                const auto post =
                  p.version.post() ? next(*p.version.post()) : std::optional<std::uint64_t>(0);
                if (!post)
                {
                    return std::nullopt;
                }
                return with(p.version,
                            [&](Version::Parts& parts)
                            {
                                parts.post = *post;
                                parts.dev = 0;
                                parts.local.clear();
                            });
            }
            // after_posts(V), V a pre-release: the next pre-release number's first dev release.
            if (!p.version.pre())
            {
                return std::nullopt;
            }
            const auto number = next(p.version.pre()->number);
            if (!number)
            {
                return std::nullopt;
            }
            return with(p.version,
                        [&](Version::Parts& parts)
                        {
                            parts.pre->number = *number;
                            parts.post.reset();
                            parts.dev = 0;
                            parts.local.clear();
                        });
        }

        auto is_empty(const LowerBound& lower, const UpperBound& upper) -> bool
        {
            if (!upper.point)
            {
                return false;
            }
            if (const auto first = smallest_admitted(lower))
            {
                return !upper_admits(upper, *first);
            }
            const auto c = compare(*lower.point, *upper.point);
            if (c == 0)
            {
                return !(lower.inclusive && upper.inclusive);
            }
            return c > 0;
        }

        // The smallest final or post-release above or at a version that is a pre-release.
        auto release_of_prerelease(const Version& version) -> Version
        {
            return with(version,
                        [&](Version::Parts& parts)
                        {
                            if (parts.pre)
                            {
                                parts.pre.reset();
                                parts.post.reset(); // 1.0a1.post0 -> 1.0
                            }
                            parts.dev.reset();
                            parts.local.clear();
                        });
        }

        // The smallest version that is not a pre-release at or above a lower bound; nullopt
        // when they have no minimum (then some always exist right above the bound).
        auto lowest_release_at_or_above(const LowerBound& lower) -> std::optional<Version>
        {
            if (!lower.point)
            {
                return Version(); // "0"
            }
            const RangePoint& point = *lower.point;
            if (point.boundary == Boundary::none)
            {
                return point.version.is_prerelease() ? release_of_prerelease(point.version)
                                                     : point.version;
            }
            if (point.version.is_prerelease())
            {
                return release_of_prerelease(point.version);
            }
            if (point.boundary == Boundary::after_posts)
            {
                return std::nullopt;
            }
            // after_locals(1.0) -> 1.0.post0; after_locals(1.0.post0) -> 1.0.post1; after the
            // last post-release number there is no next one to name.
            const auto post =
              point.version.post() ? next(*point.version.post()) : std::optional<std::uint64_t>(0);
            if (!post)
            {
                return std::nullopt;
            }
            return with(point.version,
                        [&](Version::Parts& parts)
                        {
                            parts.post = *post;
                            parts.local.clear();
                        });
        }
    }

    // Points compare by packaging's sort key, in which after_posts(V) holds +inf in the post
    // slot and after_locals(V) +inf in the local slot.
    auto compare(const RangePoint& a, const RangePoint& b) -> std::strong_ordering
    {
        const Version& x = a.version;
        const Version& y = b.version;
        if (const auto c = x.epoch() <=> y.epoch(); c != 0)
        {
            return c;
        }
        if (const auto c = compare_release(x, y); c != 0)
        {
            return c;
        }
        if (const auto c = compare_pre(x, y); c != 0)
        {
            return c;
        }
        const bool x_after_posts = a.boundary == Boundary::after_posts;
        const bool y_after_posts = b.boundary == Boundary::after_posts;
        if (x_after_posts || y_after_posts)
        {
            return x_after_posts <=> y_after_posts;
        }
        if (const auto c = compare_post(x, y); c != 0)
        {
            return c;
        }
        if (const auto c = compare_dev(x, y); c != 0)
        {
            return c;
        }
        const bool x_after_locals = a.boundary == Boundary::after_locals;
        const bool y_after_locals = b.boundary == Boundary::after_locals;
        if (x_after_locals || y_after_locals)
        {
            return x_after_locals <=> y_after_locals;
        }
        return x <=> y; // only the local labels differ now
    }

    auto compare(const RangePoint& point, const Version& version) -> std::strong_ordering
    {
        return compare(point, RangePoint{ version, Boundary::none });
    }
    auto VersionRange::contains(const Version& version) const -> bool
    {
        if (lower.point)
        {
            const auto c = compare(*lower.point, version);
            if (!(c < 0 || (c == 0 && lower.inclusive)))
            {
                return false;
            }
        }
        if (upper.point)
        {
            const auto c = compare(*upper.point, version);
            if (!(c > 0 || (c == 0 && upper.inclusive)))
            {
                return false;
            }
        }
        return true;
    }

    auto full_range() -> VersionRanges
    {
        return { VersionRange{} };
    }

    auto intersect(const VersionRanges& left, const VersionRanges& right) -> VersionRanges
    {
        VersionRanges result;
        std::size_t li = 0;
        std::size_t ri = 0;
        while (li < left.size() && ri < right.size())
        {
            const auto& l = left[li];
            const auto& r = right[ri];
            const LowerBound& lower = lower_less(l.lower, r.lower) ? r.lower : l.lower;
            const UpperBound& upper = upper_less(r.upper, l.upper) ? r.upper : l.upper;
            if (!is_empty(lower, upper))
            {
                result.push_back(VersionRange{ lower, upper });
            }
            // Advance whichever side ends first.
            if (upper_less(l.upper, r.upper))
            {
                ++li;
            }
            else
            {
                ++ri;
            }
        }
        return result;
    }

    auto contains(const VersionRanges& ranges, const Version& version) -> bool
    {
        for (const auto& range : ranges)
        {
            if (range.contains(version))
            {
                return true;
            }
        }
        return false;
    }

    auto prerelease_only(const VersionRanges& ranges) -> bool
    {
        for (const auto& range : ranges)
        {
            const auto nearest = lowest_release_at_or_above(range.lower);
            if (!nearest || upper_admits(range.upper, *nearest))
            {
                return false;
            }
        }
        return true;
    }

    auto without_empty(VersionRanges ranges) -> VersionRanges
    {
        std::erase_if(ranges, [](const VersionRange& r) { return is_empty(r.lower, r.upper); });
        return ranges;
    }
}
