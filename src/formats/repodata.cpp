#include "formats/repodata.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/json_escape.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        // The bytes that change nesting outside strings: quotes and brackets.
        constexpr auto structural_table = []
        {
            std::array<bool, 256> table{};
            for (const unsigned char c : { '"', '{', '}', '[', ']' })
            {
                table[c] = true;
            }
            return table;
        }();

        auto is_json_space(char c) -> bool
        {
            return c == ' ' || c == '\n' || c == '\r' || c == '\t';
        }

        // prefix + text + suffix, built by appending (g++ 12 warns falsely about operator+ here).
        auto concat(std::string_view prefix, std::string_view text, std::string_view suffix)
          -> std::string
        {
            std::string out;
            out.reserve(prefix.size() + text.size() + suffix.size());
            out.append(prefix).append(text).append(suffix);
            return out;
        }

    }

    auto package_name_of_filename(std::string_view filename) -> std::string_view
    {
        std::string_view stem = filename;
        if (stem.ends_with(".conda"))
        {
            stem.remove_suffix(6);
        }
        else if (stem.ends_with(".tar.bz2"))
        {
            stem.remove_suffix(8);
        }
        const auto build_dash = stem.rfind('-');
        if (build_dash == std::string_view::npos || build_dash == 0)
        {
            return {};
        }
        const auto version_dash = stem.rfind('-', build_dash - 1);
        if (version_dash == std::string_view::npos || version_dash == 0)
        {
            return {};
        }
        return stem.substr(0, version_dash);
    }

    // One pass over repodata.json text; see repodata.hpp for what it reads and what it skips.
    class RepodataScanner
    {
    public:
        RepodataScanner(std::string_view text, std::span<const std::string> names,
                        RepodataIndex& index)
          : m_begin(text.data())
          , m_p(text.data())
          , m_end(text.data() + text.size())
          , m_all(names.empty())
          , m_index(index)
        {
            m_wanted.reserve(names.size() * 2);
            for (const auto& name : names)
            {
                m_wanted.insert(name);
            }
        }

        auto run() -> bool
        {
            skip_space();
            if (!expect('{', "a repodata file must be a JSON object"))
            {
                return false;
            }
            if (!for_each_member([this](std::string_view key) { return top_level_member(key); }))
            {
                return false;
            }
            skip_space();
            if (m_p != m_end)
            {
                return fail("unexpected text after the repodata object");
            }
            return true;
        }

        [[nodiscard]] auto error_offset() const -> std::size_t { return m_error_offset; }
        [[nodiscard]] auto error_message() const -> const std::string& { return m_error; }

    private:
        auto fail(std::string message) -> bool
        {
            if (m_error.empty())
            {
                m_error = std::move(message);
                m_error_offset = static_cast<std::size_t>(std::min(m_p, m_end) - m_begin);
            }
            return false;
        }

        void skip_space()
        {
            while (m_p < m_end && is_json_space(*m_p))
            {
                ++m_p;
            }
        }

        auto expect(char c, const char* message) -> bool
        {
            if (m_p >= m_end || *m_p != c)
            {
                return fail(message);
            }
            ++m_p;
            return true;
        }

        // m_p at the opening quote; on success m_p is past the closing one and `raw` holds the
        // undecoded content.
        auto scan_string(std::string_view& raw) -> bool
        {
            const char* start = m_p + 1;
            const char* p = start;
            while (true)
            {
                p = find_quote_or_backslash(p);
                if (p >= m_end)
                {
                    return fail("unterminated string");
                }
                if (*p == '"')
                {
                    raw = std::string_view(start, static_cast<std::size_t>(p - start));
                    m_p = p + 1;
                    return true;
                }
                // An escape: the byte after the backslash never ends the string.
                p = m_end - p > 2 ? p + 2 : m_end;
            }
        }

        // The first '"' or '\\' at or after p, or m_end.
        auto find_quote_or_backslash(const char* p) const -> const char*
        {
#if defined(__SSE2__)
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i backslash = _mm_set1_epi8('\\');
            while (m_end - p >= 16)
            {
                const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
                const int mask = _mm_movemask_epi8(
                  _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
                if (mask != 0)
                {
                    return p + __builtin_ctz(static_cast<unsigned>(mask));
                }
                p += 16;
            }
#endif
            while (p < m_end && *p != '"' && *p != '\\')
            {
                ++p;
            }
            return p;
        }

        auto decode(std::string_view raw, std::string& out) -> bool
        {
            out.clear();
            if (raw.find('\\') == std::string_view::npos)
            {
                out.assign(raw);
                return true;
            }
            out.reserve(raw.size());
            for (std::size_t i = 0; i < raw.size(); ++i)
            {
                const char c = raw[i];
                if (c != '\\')
                {
                    out += c;
                    continue;
                }
                const auto escape = decode_json_escape(raw, i, out);
                if (!escape.error.empty())
                {
                    return fail(std::string(escape.error));
                }
                i = escape.end - 1;
            }
            return true;
        }

        auto read_string(std::string& out, const char* what) -> bool
        {
            if (m_p >= m_end || *m_p != '"')
            {
                return fail(concat(what, " must be a string", ""));
            }
            std::string_view raw;
            return scan_string(raw) && decode(raw, out);
        }

        auto read_integer(long long& out, const char* what) -> bool
        {
            const auto [end, error] = std::from_chars(m_p, m_end, out);
            if (error != std::errc() ||
                (end < m_end && (*end == '.' || *end == 'e' || *end == 'E')))
            {
                return fail(concat(what, " must be an integer", ""));
            }
            m_p = end;
            return true;
        }

        // Advances m_p to the next quote or bracket (or the end). Most of a skipped record is
        // string content and indentation, so 16 bytes are tested at a time where SSE2 exists.
        void skip_to_structural()
        {
#if defined(__SSE2__)
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i open = _mm_set1_epi8('{');
            const __m128i close = _mm_set1_epi8('}');
            // '[' | 0x20 == '{' and ']' | 0x20 == '}', and no other byte maps onto those two.
            const __m128i case_bit = _mm_set1_epi8(0x20);
            while (m_end - m_p >= 16)
            {
                const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_p));
                const __m128i folded = _mm_or_si128(chunk, case_bit);
                const __m128i hits = _mm_or_si128(
                  _mm_cmpeq_epi8(chunk, quote),
                  _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
                const int mask = _mm_movemask_epi8(hits);
                if (mask != 0)
                {
                    m_p += __builtin_ctz(static_cast<unsigned>(mask));
                    return;
                }
                m_p += 16;
            }
#endif
            while (m_p < m_end && !structural_table[static_cast<unsigned char>(*m_p)])
            {
                ++m_p;
            }
        }

        // m_p at '{' or '['; skips to just past the matching bracket.
        auto skip_container() -> bool
        {
            std::size_t depth = 0;
            while (true)
            {
                skip_to_structural();
                if (m_p >= m_end)
                {
                    return fail("unterminated object or array");
                }
                const char c = *m_p;
                if (c == '"')
                {
                    std::string_view ignored;
                    if (!scan_string(ignored))
                    {
                        return false;
                    }
                    continue;
                }
                ++m_p;
                if (c == '{' || c == '[')
                {
                    ++depth;
                }
                else if (--depth == 0)
                {
                    return true;
                }
            }
        }

        auto skip_value() -> bool
        {
            if (m_p >= m_end)
            {
                return fail("expected a value");
            }
            const char c = *m_p;
            if (c == '"')
            {
                std::string_view ignored;
                return scan_string(ignored);
            }
            if (c == '{' || c == '[')
            {
                return skip_container();
            }
            const char* start = m_p;
            while (m_p < m_end &&
                   (util::is_alnum(*m_p) || *m_p == '-' || *m_p == '+' || *m_p == '.'))
            {
                ++m_p;
            }
            return m_p != start || fail("expected a value");
        }

        // m_p just past '{': calls on_member(key) with m_p at each member's value, which must
        // consume it; stops past the closing '}'.
        template<class OnMember>
        auto for_each_member(OnMember&& on_member) -> bool
        {
            skip_space();
            if (m_p < m_end && *m_p == '}')
            {
                ++m_p;
                return true;
            }
            std::string decoded_key;
            while (true)
            {
                skip_space();
                if (m_p >= m_end || *m_p != '"')
                {
                    return fail("expected a string key");
                }
                std::string_view key;
                if (!scan_string(key))
                {
                    return false;
                }
                if (key.find('\\') != std::string_view::npos)
                {
                    if (!decode(key, decoded_key))
                    {
                        return false;
                    }
                    key = decoded_key;
                }
                skip_space();
                if (!expect(':', "expected ':' after a key"))
                {
                    return false;
                }
                skip_space();
                if (!on_member(key))
                {
                    return false;
                }
                skip_space();
                if (m_p < m_end && *m_p == ',')
                {
                    ++m_p;
                    continue;
                }
                return expect('}', "expected ',' or '}'");
            }
        }

        auto top_level_member(std::string_view key) -> bool
        {
            if (key == "info")
            {
                if (m_p >= m_end || *m_p != '{')
                {
                    return fail("\"info\" must be an object");
                }
                ++m_p;
                return for_each_member(
                  [this](std::string_view field) {
                      return field == "subdir" ? read_string(m_index.m_subdir, "info.subdir")
                                               : skip_value();
                  });
            }
            if (key == "packages" || key == "packages.conda")
            {
                if (m_p >= m_end || *m_p != '{')
                {
                    return fail(concat("\"", key, "\" must be an object"));
                }
                ++m_p;
                return for_each_member([this](std::string_view filename)
                                       { return entry(filename); });
            }
            return skip_value();
        }

        auto wanted(std::string_view name) const -> bool
        {
            return m_all || m_wanted.contains(name);
        }

        void note_name(std::string_view name)
        {
            // Entries are sorted by file name in practice, so one comparison drops most repeats.
            if (!name.empty() && name != m_last_name)
            {
                m_index.m_package_names.emplace_back(name);
                m_last_name = m_index.m_package_names.back();
            }
        }

        auto entry(std::string_view filename) -> bool
        {
            if (m_p >= m_end || *m_p != '{')
            {
                return fail(concat("package entry '", filename, "' must be an object"));
            }
            ++m_index.m_entry_count;
            const std::string_view from_filename = package_name_of_filename(filename);
            note_name(from_filename);
            // A file name that does not follow <name>-<version>-<build> is read to learn its name.
            if (!from_filename.empty() && !wanted(from_filename))
            {
                return skip_container();
            }
            ++m_p;
            RepodataRecord record;
            record.fn = std::string(filename);
            const bool read = for_each_member(
              [this, &record](std::string_view field)
              {
                  if (field == "name")
                  {
                      return read_string(record.name, "name");
                  }
                  if (field == "version")
                  {
                      return read_string(record.version, "version");
                  }
                  if (field == "build")
                  {
                      return read_string(record.build, "build");
                  }
                  if (field == "build_number")
                  {
                      return read_integer(record.build_number, "build_number");
                  }
                  if (field == "subdir")
                  {
                      return read_string(record.subdir, "subdir");
                  }
                  return skip_value();
              });
            if (!read)
            {
                return false;
            }
            if (record.name.empty())
            {
                record.name = std::string(from_filename);
            }
            if (record.name.empty())
            {
                return fail(concat("package entry '", filename, "' has no name"));
            }
            if (from_filename.empty())
            {
                note_name(record.name);
            }
            if (wanted(record.name))
            {
                m_index.m_records[record.name].push_back(std::move(record));
            }
            return true;
        }

        const char* m_begin;
        const char* m_p;
        const char* m_end;
        bool m_all;
        RepodataIndex& m_index;
        std::unordered_set<std::string_view> m_wanted;
        std::string m_last_name;
        std::string m_error;
        std::size_t m_error_offset = 0;
    };

    auto RepodataIndex::build(std::string_view json, std::span<const std::string> names)
      -> util::Result<RepodataIndex>
    {
        RepodataIndex index;
        RepodataScanner scanner(json, names, index);
        if (!scanner.run())
        {
            const auto position = util::line_column_at(json, scanner.error_offset());
            return util::unexpected(util::make_error(
              util::ErrorKind::parse, "invalid repodata: " + scanner.error_message(),
              util::SourceLocation{ {}, position.line, position.column }));
        }
        for (auto& [name, records] : index.m_records)
        {
            for (auto& record : records)
            {
                if (record.subdir.empty())
                {
                    record.subdir = index.m_subdir;
                }
            }
        }
        auto& package_names = index.m_package_names;
        std::sort(package_names.begin(), package_names.end());
        package_names.erase(std::unique(package_names.begin(), package_names.end()),
                            package_names.end());
        return index;
    }

    auto to_package_record(const RepodataRecord& record, std::string_view channel)
      -> util::Result<specs::PackageRecord, util::ParseError>
    {
        auto version = specs::Version::parse(record.version);
        if (!version)
        {
            return util::unexpected(version.error());
        }
        specs::PackageRecord out;
        out.name = record.name;
        out.version = std::move(*version);
        out.build = record.build;
        out.build_number =
          record.build_number < 0 ? 0 : static_cast<std::uint64_t>(record.build_number);
        out.channel = std::string(channel);
        out.subdir = record.subdir;
        out.fn = record.fn;
        return out;
    }

    auto RepodataIndex::records(std::string_view name) const -> std::span<const RepodataRecord>
    {
        const auto found = m_records.find(name);
        if (found == m_records.end())
        {
            return {};
        }
        return found->second;
    }

    auto RepodataIndex::has_package(std::string_view name) const -> bool
    {
        return std::binary_search(m_package_names.begin(), m_package_names.end(), name);
    }

    auto RepodataIndex::indexed_count() const -> std::size_t
    {
        std::size_t count = 0;
        for (const auto& [name, records] : m_records)
        {
            count += records.size();
        }
        return count;
    }
}
