#include "specs/version.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "specs/chars.hpp"
#include "util/strings.hpp"

namespace envcheck::specs
{
    namespace
    {
        // Longer texts are rejected: atom offsets are 32-bit (CEP 26 caps versions at 64 bytes).
        constexpr std::size_t max_version_size = 1U << 20;

        auto lower(char c) -> char
        {
            return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        }

        auto is_version_char(char c) -> bool
        {
            return chars::is_digit(c) || (c >= 'a' && c <= 'z') || c == '*' || c == '.' ||
                   c == '+' || c == '!' || c == '_';
        }

        auto describe(char c) -> std::string
        {
            if (c >= 0x21 && c <= 0x7e)
            {
                return std::string("'") + c + "'";
            }
            if (c == ' ' || c == '\t')
            {
                return "whitespace";
            }
            static constexpr char hex[] = "0123456789abcdef";
            const auto byte = static_cast<unsigned char>(c);
            return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 0xF];
        }
    }

    // Builds a Version from text; errors carry the offset of the offending character in the
    // text as given (leading whitespace included).
    class VersionParser
    {
    public:
        explicit VersionParser(std::string_view input)
          : m_input(input)
        {
        }

        auto run() -> util::Result<Version, util::ParseError>
        {
            const auto first = m_input.find_first_not_of(util::whitespace);
            if (first == std::string_view::npos)
            {
                return fail(0, "expected a version, found an empty string");
            }
            const auto last = m_input.find_last_not_of(util::whitespace);
            m_lead = first;
            const std::string_view text = m_input.substr(first, last - first + 1);
            if (text.size() > max_version_size)
            {
                return fail(0, "version is longer than " + std::to_string(max_version_size) +
                                 " characters");
            }
            m_version.m_text_size = static_cast<std::uint32_t>(text.size());
            m_version.m_buffer.reserve(text.size() * 2);
            m_version.m_buffer.append(text);
            m_version.m_buffer.append(text);
            m_norm = m_version.m_text_size;

            if (auto checked = normalize(text); !checked)
            {
                return util::unexpected(std::move(checked).error());
            }
            if (normalized() == text && text.find("dev") == std::string_view::npos)
            {
                // Nothing to normalize ("dev" is rewritten in place): keep one copy.
                m_version.m_buffer.resize(text.size());
                m_norm = 0;
            }
            m_version.m_norm_offset = static_cast<std::uint32_t>(m_norm);
            const std::string_view norm = normalized();

            // Epoch.
            std::size_t main_begin = 0;
            const auto bang = norm.find('!');
            if (bang != std::string_view::npos)
            {
                if (const auto again = norm.find('!', bang + 1); again != std::string_view::npos)
                {
                    return fail(again, "duplicated epoch separator '!'");
                }
                if (bang == 0)
                {
                    return fail(0, "expected an epoch number before '!'");
                }
                for (std::size_t i = 0; i < bang; ++i)
                {
                    if (!chars::is_digit(norm[i]))
                    {
                        return fail(i, "the epoch (before '!') must be an integer");
                    }
                }
                push_number(0, bang, /*starts_segment=*/true);
                main_begin = bang + 1;
            }
            else
            {
                m_version.m_atoms.push_back({ 0, Version::AtomKind::number, true });
            }

            // Local part.
            std::size_t main_end = norm.size();
            const auto plus = norm.find('+', main_begin);
            if (plus != std::string_view::npos)
            {
                if (const auto again = norm.find('+', plus + 1); again != std::string_view::npos)
                {
                    return fail(again, "duplicated local version separator '+'");
                }
                main_end = plus;
            }
            if (main_begin == main_end)
            {
                return fail(main_begin, main_begin == 0 || plus == main_begin
                                          ? "expected a version before '+'"
                                          : "expected a version after '!'");
            }

            if (auto split = split_part(main_begin, main_end, /*openssl_underscore=*/true); !split)
            {
                return util::unexpected(std::move(split).error());
            }
            m_version.m_main_atoms = static_cast<std::uint32_t>(m_version.m_atoms.size());
            if (plus != std::string_view::npos)
            {
                if (plus + 1 == norm.size())
                {
                    return fail(plus + 1, "expected a local version after '+'");
                }
                if (auto split = split_part(plus + 1, norm.size(), false); !split)
                {
                    return util::unexpected(std::move(split).error());
                }
            }
            return std::move(m_version);
        }

    private:
        auto fail(std::size_t offset, std::string message) const
          -> util::Unexpected<util::ParseError>
        {
            return util::unexpected(
              util::ParseError{ std::string(m_input), m_lead + offset, std::move(message) });
        }

        auto normalized() const -> std::string_view
        {
            return std::string_view(m_version.m_buffer).substr(m_norm, m_version.m_text_size);
        }

        auto normalize(std::string_view text) -> util::Result<void, util::ParseError>
        {
            const bool has_underscore = text.find('_') != std::string_view::npos;
            for (std::size_t i = 0; i < text.size(); ++i)
            {
                char c = lower(text[i]);
                if (c == '-')
                {
                    if (has_underscore)
                    {
                        return fail(i, "'-' cannot be used in a version that also uses '_'");
                    }
                    c = '_';
                }
                else if (!is_version_char(c))
                {
                    return fail(i, "invalid character " + describe(text[i]) + " in version");
                }
                m_version.m_buffer[m_norm + i] = c;
            }
            return {};
        }

        void push_number(std::size_t begin, std::size_t end, bool starts_segment)
        {
            const std::string_view norm = normalized();
            while (begin + 1 < end && norm[begin] == '0')
            {
                ++begin; // leading zeros do not count: 007 == 7
            }
            std::uint64_t value = 0;
            bool fits = true;
            for (std::size_t i = begin; i < end; ++i)
            {
                const auto digit = static_cast<std::uint64_t>(norm[i] - '0');
                if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                {
                    fits = false;
                    break;
                }
                value = value * 10 + digit;
            }
            if (fits)
            {
                m_version.m_atoms.push_back({ value, Version::AtomKind::number, starts_segment });
                return;
            }
            push_text(begin, end, Version::AtomKind::big_number, starts_segment);
        }

        void push_text(std::size_t begin, std::size_t end, Version::AtomKind kind,
                       bool starts_segment)
        {
            const auto offset = static_cast<std::uint64_t>(m_norm + begin);
            const auto length = static_cast<std::uint64_t>(end - begin);
            m_version.m_atoms.push_back({ (offset << 32) | length, kind, starts_segment });
        }

        // One component (a segment): runs of digits, of '*' and of anything else.
        void split_component(std::size_t begin, std::size_t end)
        {
            const std::string_view norm = normalized();
            bool first = true;
            if (!chars::is_digit(norm[begin]))
            {
                // Keeps numbers and strings in phase: 1.1.a1 == 1.1.0a1.
                m_version.m_atoms.push_back({ 0, Version::AtomKind::number, true });
                first = false;
            }
            std::size_t i = begin;
            while (i < end)
            {
                std::size_t j = i + 1;
                const auto run_class = [](char c) {
                    return chars::is_digit(c) ? 0 : c == '*' ? 1 : 2;
                };
                const int current = run_class(norm[i]);
                while (j < end && run_class(norm[j]) == current)
                {
                    ++j;
                }
                const std::string_view run = norm.substr(i, j - i);
                if (current == 0)
                {
                    push_number(i, j, first);
                }
                else if (run == "post")
                {
                    m_version.m_atoms.push_back({ 0, Version::AtomKind::post, first });
                }
                else
                {
                    if (run == "dev")
                    {
                        std::memcpy(&m_version.m_buffer[m_norm + i], "DEV", 3);
                    }
                    push_text(i, j, Version::AtomKind::text, first);
                }
                first = false;
                i = j;
            }
        }

        // A part ([begin, end) of the normalized text) into components at '.' and '_'. With
        // `openssl_underscore`, one trailing '_' stays with the last component (1.0.1_).
        auto split_part(std::size_t begin, std::size_t end, bool openssl_underscore)
          -> util::Result<void, util::ParseError>
        {
            const std::string_view norm = normalized();
            std::size_t core_end = end;
            const bool trailing_underscore = openssl_underscore && norm[end - 1] == '_';
            if (trailing_underscore)
            {
                core_end = end - 1;
            }
            std::size_t start = begin;
            while (true)
            {
                std::size_t stop = start;
                while (stop < core_end && norm[stop] != '.' && norm[stop] != '_')
                {
                    ++stop;
                }
                const bool last = stop >= core_end;
                const std::size_t component_end = last && trailing_underscore ? end : stop;
                if (component_end == start)
                {
                    return fail(start, "empty version component (two separators in a row, or "
                                       "a separator at an end)");
                }
                split_component(start, component_end);
                if (last)
                {
                    return {};
                }
                start = stop + 1;
            }
        }

        std::string_view m_input;
        std::size_t m_lead = 0;
        std::size_t m_norm = 0;
        Version m_version{ Version::Uninitialized{} };
    };

    Version::Version()
      : m_main_atoms(2)
      , m_text_size(1)
      , m_buffer(1, '0')
    {
        m_atoms.push_back({ 0, AtomKind::number, true });
        m_atoms.push_back({ 0, AtomKind::number, true });
    }

    auto Version::parse(std::string_view text) -> util::Result<Version, util::ParseError>
    {
        VersionParser parser(text);
        return parser.run();
    }

    auto Version::main_part() const -> Range
    {
        return { m_atoms.data(), m_atoms.data() + m_main_atoms };
    }

    auto Version::local_part() const -> Range
    {
        return { m_atoms.data() + m_main_atoms, m_atoms.data() + m_atoms.size() };
    }

    auto Version::atom_text(const Atom& atom) const -> std::string_view
    {
        return std::string_view(m_buffer).substr(
          static_cast<std::size_t>(atom.payload >> 32),
          static_cast<std::size_t>(atom.payload & 0xFFFFFFFFU));
    }

    auto Version::epoch() const -> std::optional<std::uint64_t>
    {
        const Atom& atom = m_atoms[0];
        if (atom.kind == AtomKind::number)
        {
            return atom.payload;
        }
        return std::nullopt;
    }

    auto Version::compare_atoms(const Version& a, const Atom& x, const Version& b, const Atom& y)
      -> int
    {
        if (x.kind == AtomKind::number && y.kind == AtomKind::number)
        {
            return x.payload < y.payload ? -1 : x.payload > y.payload ? 1 : 0;
        }
        // text < numbers < post
        const auto rank = [](AtomKind kind) {
            return kind == AtomKind::text ? 0 : kind == AtomKind::post ? 2 : 1;
        };
        const int rx = rank(x.kind);
        const int ry = rank(y.kind);
        if (rx != ry)
        {
            return rx < ry ? -1 : 1;
        }
        switch (x.kind)
        {
            case AtomKind::text:
            {
                const int c = a.atom_text(x).compare(b.atom_text(y));
                return c < 0 ? -1 : c > 0 ? 1 : 0;
            }
            case AtomKind::post:
                return 0;
            case AtomKind::number:
                return -1; // y is a big number
            case AtomKind::big_number:
            {
                if (y.kind == AtomKind::number)
                {
                    return 1;
                }
                const std::string_view dx = a.atom_text(x);
                const std::string_view dy = b.atom_text(y);
                if (dx.size() != dy.size())
                {
                    return dx.size() < dy.size() ? -1 : 1;
                }
                const int c = dx.compare(dy);
                return c < 0 ? -1 : c > 0 ? 1 : 0;
            }
        }
        return 0;
    }

    namespace
    {
        template<class Atom>
        auto segment_end(const Atom* begin, const Atom* end) -> const Atom*
        {
            if (begin == end)
            {
                return end;
            }
            ++begin;
            while (begin != end && !begin->starts_segment)
            {
                ++begin;
            }
            return begin;
        }
    }

    auto Version::compare_parts(const Version& a, Range x, const Version& b, Range y) -> int
    {
        static const Atom fill{};
        const Atom* i = x.begin;
        const Atom* j = y.begin;
        while (i != x.end || j != y.end)
        {
            const Atom* ie = segment_end(i, x.end);
            const Atom* je = segment_end(j, y.end);
            const Atom* p = i;
            const Atom* q = j;
            while (p != ie || q != je)
            {
                const Atom& u = p != ie ? *p : fill;
                const Atom& v = q != je ? *q : fill;
                if (const int c = compare_atoms(a, u, b, v); c != 0)
                {
                    return c;
                }
                if (p != ie)
                {
                    ++p;
                }
                if (q != je)
                {
                    ++q;
                }
            }
            i = ie;
            j = je;
        }
        return 0;
    }

    auto Version::compare(const Version& a, const Version& b) -> int
    {
        if (const int c = compare_parts(a, a.main_part(), b, b.main_part()); c != 0)
        {
            return c;
        }
        return compare_parts(a, a.local_part(), b, b.local_part());
    }

    auto operator==(const Version& a, const Version& b) -> bool
    {
        return Version::compare(a, b) == 0;
    }

    auto operator<=>(const Version& a, const Version& b) -> std::weak_ordering
    {
        const int c = Version::compare(a, b);
        return c < 0   ? std::weak_ordering::less
               : c > 0 ? std::weak_ordering::greater
                       : std::weak_ordering::equivalent;
    }

    auto Version::starts_with(const Version& prefix) const -> bool
    {
        Range mine = main_part();
        Range theirs = prefix.main_part();
        if (prefix.has_local())
        {
            if (compare_parts(*this, main_part(), prefix, prefix.main_part()) != 0)
            {
                return false;
            }
            mine = local_part();
            theirs = prefix.local_part();
        }
        // The last segment of the prefix, and the segment at the same index here.
        const Atom* last_segment = theirs.begin;
        std::size_t segments = 0;
        for (const Atom* it = theirs.begin; it != theirs.end; it = segment_end(it, theirs.end))
        {
            last_segment = it;
            ++segments;
        }
        const Atom* same_index = mine.begin;
        for (std::size_t k = 0; k + 1 < segments && same_index != mine.end; ++k)
        {
            same_index = segment_end(same_index, mine.end);
        }
        if (compare_parts(*this, { mine.begin, same_index }, prefix,
                          { theirs.begin, last_segment }) != 0)
        {
            return false;
        }
        const Atom* own_end = segment_end(same_index, mine.end);
        const auto own_size = static_cast<std::size_t>(own_end - same_index);
        const auto their_size = static_cast<std::size_t>(theirs.end - last_segment);
        static const Atom fill{};
        for (std::size_t k = 0; k + 1 < their_size; ++k)
        {
            const Atom& u = k < own_size ? same_index[k] : fill;
            if (compare_atoms(*this, u, prefix, last_segment[k]) != 0)
            {
                return false;
            }
        }
        const Atom& c1 = their_size - 1 < own_size ? same_index[their_size - 1] : fill;
        const Atom& c2 = last_segment[their_size - 1];
        if (c2.kind == AtomKind::text)
        {
            return c1.kind == AtomKind::text && atom_text(c1).starts_with(prefix.atom_text(c2));
        }
        return compare_atoms(*this, c1, prefix, c2) == 0;
    }

    auto Version::compatible_prefix() const -> std::optional<Version>
    {
        std::string norm = util::to_lower(normalized_text());
        const auto dot = norm.rfind('.');
        if (dot == std::string::npos || dot == 0)
        {
            return std::nullopt;
        }
        norm.resize(dot);
        auto parsed = parse(norm);
        if (!parsed)
        {
            return std::nullopt;
        }
        return std::move(parsed).value();
    }

    auto Version::compatible_with(const Version& base) const -> bool
    {
        const auto prefix = base.compatible_prefix();
        return prefix && *this >= base && starts_with(*prefix);
    }

    auto Version::ends_with_number() const -> bool
    {
        if (has_local())
        {
            return false;
        }
        const AtomKind kind = m_atoms[m_main_atoms - 1].kind;
        const std::string_view written = text();
        return (kind == AtomKind::number || kind == AtomKind::big_number) && !written.empty() &&
               chars::is_digit(written.back());
    }

    auto Version::next_prefix_bound() const -> std::optional<Version>
    {
        if (!ends_with_number())
        {
            return std::nullopt;
        }
        std::string bumped(text());
        std::size_t i = bumped.size();
        while (i > 0 && chars::is_digit(bumped[i - 1]))
        {
            --i;
            if (bumped[i] != '9')
            {
                ++bumped[i];
                break;
            }
            bumped[i] = '0';
            if (i == 0 || !chars::is_digit(bumped[i - 1]))
            {
                bumped.insert(i, 1, '1');
                break;
            }
        }
        bumped += '*';
        auto parsed = parse(bumped);
        if (!parsed)
        {
            return std::nullopt;
        }
        return std::move(parsed).value();
    }

    auto Version::prefix_floor() const -> std::optional<Version>
    {
        if (!ends_with_number())
        {
            return std::nullopt;
        }
        auto parsed = parse(std::string(text()) + "*");
        if (!parsed)
        {
            return std::nullopt;
        }
        return std::move(parsed).value();
    }
}
