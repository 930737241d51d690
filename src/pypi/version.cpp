#include "pypi/version.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "pypi/text.hpp"

namespace envcheck::pypi
{
    auto to_string(PreReleaseKind kind) -> std::string_view
    {
        switch (kind)
        {
            case PreReleaseKind::alpha:
                return "a";
            case PreReleaseKind::beta:
                return "b";
            case PreReleaseKind::rc:
                return "rc";
        }
        return "a";
    }

    namespace
    {
        constexpr auto is_separator(char c) -> bool
        {
            return c == '.' || c == '_' || c == '-';
        }

        // Spellings in the order packaging's regular expression tries them (alpha before a,
        // preview before pre), so that the first match is also the longest.
        struct Spelling
        {
            std::string_view text;
            PreReleaseKind kind;
        };
        constexpr std::array<Spelling, 8> pre_spellings = { {
          { "alpha", PreReleaseKind::alpha },
          { "a", PreReleaseKind::alpha },
          { "beta", PreReleaseKind::beta },
          { "b", PreReleaseKind::beta },
          { "preview", PreReleaseKind::rc },
          { "pre", PreReleaseKind::rc },
          { "c", PreReleaseKind::rc },
          { "rc", PreReleaseKind::rc },
        } };
        constexpr std::array<std::string_view, 3> post_spellings = { "post", "rev", "r" };

        class Scanner
        {
        public:
            Scanner(std::string_view text, std::size_t pos)
              : m_text(text)
              , m_pos(pos)
            {
            }

            [[nodiscard]] auto pos() const -> std::size_t { return m_pos; }
            void reset(std::size_t pos) { m_pos = pos; }
            [[nodiscard]] auto peek(std::size_t ahead = 0) const -> char
            {
                return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
            }
            auto take_separator() -> bool
            {
                if (is_separator(peek()))
                {
                    ++m_pos;
                    return true;
                }
                return false;
            }
            auto take_word(std::string_view word) -> bool
            {
                if (detail::istarts_with_at(m_text, m_pos, word))
                {
                    m_pos += word.size();
                    return true;
                }
                return false;
            }
            // Digits at the cursor as a number; nullopt when there are none. A number that does
            // not fit in 64 bits is consumed all the same and reported through `overflow_at`.
            auto take_number() -> std::optional<std::uint64_t>
            {
                const std::size_t start = m_pos;
                std::uint64_t value = 0;
                while (m_pos < m_text.size() && detail::is_digit(m_text[m_pos]))
                {
                    const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
                    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                    {
                        if (!m_overflow_at)
                        {
                            m_overflow_at = start;
                        }
                        value = std::numeric_limits<std::uint64_t>::max();
                    }
                    else
                    {
                        value = value * 10 + digit;
                    }
                    ++m_pos;
                }
                if (m_pos == start)
                {
                    return std::nullopt;
                }
                return value;
            }
            // The "[._-]? N?" after a pre, post or dev spelling; a missing number means 0.
            auto take_spelled_number() -> std::uint64_t
            {
                take_separator();
                return take_number().value_or(0);
            }
            [[nodiscard]] auto overflow_at() const -> std::optional<std::size_t>
            {
                return m_overflow_at;
            }

        private:
            std::string_view m_text;
            std::size_t m_pos;
            std::optional<std::size_t> m_overflow_at;
        };

        // Local labels: separators become '.', letters lowercase, numeric segments lose their
        // leading zeros (packaging turns them into ints).
        auto normalize_local(std::string_view label) -> std::string
        {
            std::string out;
            out.reserve(label.size());
            std::size_t start = 0;
            while (start <= label.size())
            {
                std::size_t end = start;
                while (end < label.size() && !is_separator(label[end]))
                {
                    ++end;
                }
                const std::string_view segment = label.substr(start, end - start);
                if (!out.empty() || start != 0)
                {
                    out += '.';
                }
                const bool numeric =
                  !segment.empty() && std::all_of(segment.begin(), segment.end(), detail::is_digit);
                if (numeric)
                {
                    const std::size_t first = segment.find_first_not_of('0');
                    out += first == std::string_view::npos ? std::string_view("0")
                                                           : segment.substr(first);
                }
                else
                {
                    out += detail::lowercase(segment);
                }
                start = end + 1;
            }
            return out;
        }

        // -1, 0, 1 for numeric strings without leading zeros.
        auto compare_numeric(std::string_view a, std::string_view b) -> int
        {
            if (a.size() != b.size())
            {
                return a.size() < b.size() ? -1 : 1;
            }
            const int c = a.compare(b);
            return c < 0 ? -1 : (c > 0 ? 1 : 0);
        }

        auto is_numeric(std::string_view segment) -> bool
        {
            return !segment.empty() &&
                   std::all_of(segment.begin(), segment.end(), detail::is_digit);
        }

        // Local labels compare segment by segment: numbers numerically and above strings,
        // strings lexicographically; a label that is a prefix of the other sorts first.
        auto compare_local(std::string_view a, std::string_view b) -> std::strong_ordering
        {
            if (a.empty() || b.empty())
            {
                return !a.empty() <=> !b.empty();
            }
            std::size_t ia = 0;
            std::size_t ib = 0;
            while (ia <= a.size() && ib <= b.size())
            {
                const std::size_t ea = std::min(a.find('.', ia), a.size());
                const std::size_t eb = std::min(b.find('.', ib), b.size());
                const std::string_view sa = a.substr(ia, ea - ia);
                const std::string_view sb = b.substr(ib, eb - ib);
                const bool na = is_numeric(sa);
                const bool nb = is_numeric(sb);
                if (na != nb)
                {
                    return na ? std::strong_ordering::greater : std::strong_ordering::less;
                }
                const int c = na ? compare_numeric(sa, sb) : sa.compare(sb);
                if (c != 0)
                {
                    return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
                }
                ia = ea + 1;
                ib = eb + 1;
            }
            // One label ran out of segments: the shorter one sorts first.
            const bool a_done = ia > a.size();
            const bool b_done = ib > b.size();
            return b_done <=> a_done;
        }

        auto compare_release(const std::vector<std::uint64_t>& a,
                             const std::vector<std::uint64_t>& b) -> std::strong_ordering
        {
            const std::size_t n = std::max(a.size(), b.size());
            for (std::size_t i = 0; i < n; ++i)
            {
                const std::uint64_t x = i < a.size() ? a[i] : 0;
                const std::uint64_t y = i < b.size() ? b[i] : 0;
                if (x != y)
                {
                    return x <=> y;
                }
            }
            return std::strong_ordering::equal;
        }

        // packaging's _cmpkey for the pre segment: dev-only releases sort before every
        // pre-release (-inf), finals and post-releases after them (+inf).
        auto pre_rank(const Version& v) -> std::pair<int, PreRelease>
        {
            if (!v.pre() && !v.post() && v.dev())
            {
                return { -1, {} };
            }
            if (!v.pre())
            {
                return { 1, {} };
            }
            return { 0, *v.pre() };
        }

        auto join_release(const std::vector<std::uint64_t>& release) -> std::string
        {
            std::string out;
            for (std::size_t i = 0; i < release.size(); ++i)
            {
                if (i != 0)
                {
                    out += '.';
                }
                out += std::to_string(release[i]);
            }
            return out;
        }

        // An optional 'v', the epoch "N!" and the release "N(.N)*", into `parts`. nullopt when
        // they are there, else what is missing at the cursor.
        auto scan_epoch_and_release(Scanner& s, Version::Parts& parts)
          -> std::optional<std::string_view>
        {
            if (s.peek() == 'v' || s.peek() == 'V')
            {
                s.reset(s.pos() + 1);
            }
            // Epoch "N!" or the first release number.
            auto first = s.take_number();
            if (!first)
            {
                return "expected a release number";
            }
            if (s.peek() == '!')
            {
                parts.epoch = *first;
                s.reset(s.pos() + 1);
                first = s.take_number();
                if (!first)
                {
                    return "expected a release number after the epoch";
                }
            }
            parts.release = { *first };
            // A '.' not followed by a digit ends the release: "1.0.post1", "1.0.dev0".
            while (s.peek() == '.' && detail::is_digit(s.peek(1)))
            {
                s.reset(s.pos() + 1);
                const auto part = s.take_number();
                parts.release.push_back(*part);
            }
            return std::nullopt;
        }

        // Pre-release: [._-]? (alpha|a|beta|b|preview|pre|c|rc) [._-]? N?. Without one the
        // cursor stays where it was.
        auto scan_pre(Scanner& s) -> std::optional<PreRelease>
        {
            const std::size_t start = s.pos();
            s.take_separator();
            for (const auto& spelling : pre_spellings)
            {
                if (s.take_word(spelling.text))
                {
                    return PreRelease{ spelling.kind, s.take_spelled_number() };
                }
            }
            s.reset(start);
            return std::nullopt;
        }

        // Post-release: -N | [._-]? (post|rev|r) [._-]? N?. Without one the cursor stays where
        // it was.
        auto scan_post(Scanner& s) -> std::optional<std::uint64_t>
        {
            const std::size_t start = s.pos();
            if (s.peek() == '-' && detail::is_digit(s.peek(1)))
            {
                s.reset(s.pos() + 1);
                return *s.take_number();
            }
            s.take_separator();
            for (const auto spelling : post_spellings)
            {
                if (s.take_word(spelling))
                {
                    return s.take_spelled_number();
                }
            }
            s.reset(start);
            return std::nullopt;
        }

        // Development release: [._-]? dev [._-]? N?. Without one the cursor stays where it was.
        auto scan_dev(Scanner& s) -> std::optional<std::uint64_t>
        {
            const std::size_t start = s.pos();
            s.take_separator();
            if (s.take_word("dev"))
            {
                return s.take_spelled_number();
            }
            s.reset(start);
            return std::nullopt;
        }

        // Where the local label starting at `label_start` ends: [a-z0-9]+ ([._-][a-z0-9]+)*.
        // A separator not followed by a letter or digit is not part of it.
        auto local_label_end(std::string_view text, std::size_t label_start) -> std::size_t
        {
            std::size_t end = label_start;
            while (end < text.size() && detail::is_alnum(text[end]))
            {
                ++end;
            }
            while (end + 1 < text.size() && is_separator(text[end]) &&
                   detail::is_alnum(text[end + 1]))
            {
                ++end;
                while (end < text.size() && detail::is_alnum(text[end]))
                {
                    ++end;
                }
            }
            return end;
        }
    }

    namespace detail
    {
        auto scan_version(std::string_view text, std::size_t pos, bool allow_local) -> VersionScan
        {
            VersionScan scan;
            Scanner s(text, pos);
            if (const auto missing = scan_epoch_and_release(s, scan.parts))
            {
                scan.error_offset = s.pos();
                scan.message = std::string(*missing);
                scan.end = s.pos();
                return scan;
            }
            scan.parts.pre = scan_pre(s);
            scan.parts.post = scan_post(s);
            scan.parts.dev = scan_dev(s);
            // Local label: + [a-z0-9]+ ([._-][a-z0-9]+)*
            if (allow_local && s.peek() == '+' && is_alnum(s.peek(1)))
            {
                const std::size_t label_start = s.pos() + 1;
                const std::size_t end = local_label_end(text, label_start);
                scan.parts.local = normalize_local(text.substr(label_start, end - label_start));
                s.reset(end);
            }

            scan.end = s.pos();
            if (const auto at = s.overflow_at())
            {
                scan.overflow = true;
                scan.error_offset = *at;
                scan.message = "number does not fit in 64 bits";
                return scan;
            }
            scan.ok = true;
            return scan;
        }
    }

    auto Version::parse(std::string_view text) -> util::Result<Version, util::ParseError>
    {
        const std::string_view stripped = detail::strip_python_space(text);
        const auto offset = static_cast<std::size_t>(stripped.data() - text.data());
        auto scan = detail::scan_version(text, offset, true);
        if (!scan.ok)
        {
            return util::unexpected(util::ParseError{ std::string(text), scan.error_offset,
                                                      "invalid version: " + scan.message });
        }
        const std::size_t stripped_end = offset + stripped.size();
        if (scan.end != stripped_end)
        {
            const char c = text[scan.end];
            std::string message = "invalid version: unexpected ";
            if (c >= 0x20 && c < 0x7f)
            {
                message.append(1, '\'').append(1, c).append(1, '\'');
            }
            else
            {
                message.append("character");
            }
            return util::unexpected(util::ParseError{ std::string(text), scan.end, message });
        }
        return from_parts(std::move(scan.parts));
    }

    auto Version::from_parts(Parts parts) -> Version
    {
        Version v;
        v.m_epoch = parts.epoch;
        v.m_release =
          parts.release.empty() ? std::vector<std::uint64_t>{ 0 } : std::move(parts.release);
        v.m_pre = parts.pre;
        v.m_post = parts.post;
        v.m_dev = parts.dev;
        v.m_local = parts.local.empty() ? std::string() : normalize_local(parts.local);
        return v;
    }

    auto Version::parts() const -> Parts
    {
        return Parts{ m_epoch, m_release, m_pre, m_post, m_dev, m_local };
    }

    auto Version::public_version() const -> std::string
    {
        std::string out = base_version();
        if (m_pre)
        {
            out += pypi::to_string(m_pre->kind);
            out += std::to_string(m_pre->number);
        }
        if (m_post)
        {
            out += ".post" + std::to_string(*m_post);
        }
        if (m_dev)
        {
            out += ".dev" + std::to_string(*m_dev);
        }
        return out;
    }

    auto Version::base_version() const -> std::string
    {
        std::string out = m_epoch != 0 ? std::to_string(m_epoch) + "!" : std::string();
        out += join_release(m_release);
        return out;
    }

    auto Version::to_string() const -> std::string
    {
        std::string out = public_version();
        if (!m_local.empty())
        {
            out += '+';
            out += m_local;
        }
        return out;
    }

    auto operator<=>(const Version& a, const Version& b) -> std::strong_ordering
    {
        if (const auto c = a.m_epoch <=> b.m_epoch; c != 0)
        {
            return c;
        }
        if (const auto c = compare_release(a.m_release, b.m_release); c != 0)
        {
            return c;
        }
        const auto [rank_a, pre_a] = pre_rank(a);
        const auto [rank_b, pre_b] = pre_rank(b);
        if (const auto c = rank_a <=> rank_b; c != 0)
        {
            return c;
        }
        if (rank_a == 0)
        {
            if (const auto c = pre_a <=> pre_b; c != 0)
            {
                return c;
            }
        }
        // No post-release sorts first; no dev release sorts last.
        if (const auto c = a.m_post.has_value() <=> b.m_post.has_value(); c != 0)
        {
            return c;
        }
        if (a.m_post)
        {
            if (const auto c = *a.m_post <=> *b.m_post; c != 0)
            {
                return c;
            }
        }
        if (const auto c = b.m_dev.has_value() <=> a.m_dev.has_value(); c != 0)
        {
            return c;
        }
        if (a.m_dev)
        {
            if (const auto c = *a.m_dev <=> *b.m_dev; c != 0)
            {
                return c;
            }
        }
        return compare_local(a.m_local, b.m_local);
    }

    auto operator==(const Version& a, const Version& b) -> bool
    {
        return (a <=> b) == 0;
    }
}
