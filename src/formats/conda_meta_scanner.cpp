#include "formats/conda_meta_scanner.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ENVCHECK_SCAN_AVX2 1
#endif

#include "formats/json_escape.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        auto is_json_space(char c) -> bool
        {
            return c == ' ' || c == '\n' || c == '\r' || c == '\t';
        }

        // The end of the JSON whitespace from `pos`. Most often there is none, or the one space
        // after a colon: two compares. Indented JSON (records, envcheck's lock) puts a newline
        // and a few to a dozen spaces before every key and value: those spaces are crossed 8
        // bytes at a time (4 M fewer instructions of a 5,000-record check, mostly the lock's;
        // 16-byte SSE2 blocks cost more than they saved on runs this short; callgrind, issue 19).
        inline auto space_end(std::string_view text, std::size_t pos) -> std::size_t
        {
            if (pos >= text.size() || !is_json_space(text[pos]) || ++pos >= text.size() ||
                !is_json_space(text[pos]))
            {
                return pos;
            }
            ++pos;
            while (true)
            {
                if constexpr (std::endian::native == std::endian::little)
                {
                    constexpr std::uint64_t spaces = 0x2020202020202020ULL;
                    while (pos + 8 <= text.size())
                    {
                        std::uint64_t word = 0;
                        std::memcpy(&word, text.data() + pos, sizeof word);
                        // The lowest set bit is in the first byte that is not a space.
                        if (const std::uint64_t other = word ^ spaces; other != 0)
                        {
                            pos += static_cast<std::size_t>(std::countr_zero(other)) / 8;
                            break;
                        }
                        pos += 8;
                    }
                }
                if (pos < text.size() && is_json_space(text[pos]))
                {
                    ++pos; // a newline, tab or carriage return, or a space near the end
                    continue;
                }
                return pos;
            }
        }

        // The end of a run of plain string characters from `pos`: the first quote, backslash or
        // control character, or the end of the text; `ascii` turns false when the run holds a
        // byte of 0x80 or more. 16 bytes at a time with SSE2: a character loop was most of
        // reading a record's short strings (bench_check_scaling, RESULTS.md "check: scaling").
        auto string_run_end(std::string_view text, std::size_t pos, bool& ascii) -> std::size_t
        {
#if defined(__SSE2__)
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i backslash = _mm_set1_epi8('\\');
            const __m128i last_control = _mm_set1_epi8(0x1F);
            while (pos + 16 <= text.size())
            {
                const __m128i bytes =
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + pos));
                // max(b, 0x1F) == 0x1F exactly when b <= 0x1F, unsigned.
                const __m128i control =
                  _mm_cmpeq_epi8(_mm_max_epu8(bytes, last_control), last_control);
                const __m128i stops = _mm_or_si128(
                  _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
                  control);
                const auto stop = static_cast<std::uint32_t>(_mm_movemask_epi8(stops));
                const auto high = static_cast<std::uint32_t>(_mm_movemask_epi8(bytes));
                if (stop != 0)
                {
                    const int at = std::countr_zero(stop);
                    ascii = ascii && (high & ((1u << at) - 1u)) == 0;
                    return pos + static_cast<std::size_t>(at);
                }
                ascii = ascii && high == 0;
                pos += 16;
            }
#endif
            for (; pos < text.size(); ++pos)
            {
                const auto c = static_cast<unsigned char>(text[pos]);
                if (c == '"' || c == '\\' || c < 0x20)
                {
                    break;
                }
                ascii = ascii && c < 0x80;
            }
            return pos;
        }

        // Bit i of each mask is set when block[i] is that character (64 bytes); `info` when
        // "-info" starts at block[i] (4 bytes past the block are read).
        struct BlockMasks
        {
            std::uint64_t quotes = 0;
            std::uint64_t backslashes = 0;
            std::uint64_t brackets = 0; // [ ] { }
            std::uint64_t info = 0;
        };

        auto classify_portable(const char* block, bool with_info) -> BlockMasks
        {
            BlockMasks masks;
#if defined(__SSE2__)
            const auto bits = [](__m128i compared)
            {
                return static_cast<std::uint64_t>(
                  static_cast<std::uint32_t>(_mm_movemask_epi8(compared)) & 0xFFFFu);
            };
            const auto equal_at = [block](int offset, char c)
            {
                return _mm_cmpeq_epi8(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + offset)),
                  _mm_set1_epi8(c));
            };
            for (int at = 0; at < 64; at += 16)
            {
                const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + at));
                const auto equal = [&bytes](char c)
                { return _mm_cmpeq_epi8(bytes, _mm_set1_epi8(c)); };
                masks.quotes |= bits(equal('"')) << at;
                masks.backslashes |= bits(equal('\\')) << at;
                masks.brackets |= bits(_mm_or_si128(_mm_or_si128(equal('['), equal(']')),
                                                    _mm_or_si128(equal('{'), equal('}'))))
                                  << at;
                if (with_info)
                {
                    const __m128i info = _mm_and_si128(
                      _mm_and_si128(_mm_and_si128(equal('-'), equal_at(at + 1, 'i')),
                                    _mm_and_si128(equal_at(at + 2, 'n'), equal_at(at + 3, 'f'))),
                      equal_at(at + 4, 'o'));
                    masks.info |= bits(info) << at;
                }
            }
#else
            for (int i = 0; i < 64; ++i)
            {
                const char c = block[i];
                masks.quotes |= static_cast<std::uint64_t>(c == '"') << i;
                masks.backslashes |= static_cast<std::uint64_t>(c == '\\') << i;
                masks.brackets |=
                  static_cast<std::uint64_t>(c == '[' || c == ']' || c == '{' || c == '}') << i;
                if (with_info)
                {
                    masks.info |=
                      static_cast<std::uint64_t>(std::memcmp(block + i, "-info", 5) == 0) << i;
                }
            }
#endif
            return masks;
        }

#if defined(ENVCHECK_SCAN_AVX2)
        // The same with 32-byte registers, on CPUs that have AVX2 (chosen at run time).
        __attribute__((target("avx2"))) inline auto avx2_bits(__m256i compared) -> std::uint64_t
        {
            return static_cast<std::uint64_t>(
              static_cast<std::uint32_t>(_mm256_movemask_epi8(compared)));
        }

        __attribute__((target("avx2"))) auto classify_avx2(const char* block, bool with_info)
          -> BlockMasks
        {
            BlockMasks masks;
            // Lambdas do not inherit the target attribute, so the helpers are functions.
            const auto bits = avx2_bits;
            for (int at = 0; at < 64; at += 32)
            {
                const __m256i bytes =
                  _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + at));
                const __m256i quote = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('"'));
                const __m256i backslash = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\\'));
                const __m256i brackets =
                  _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('[')),
                                                  _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(']'))),
                                  _mm256_or_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('{')),
                                                  _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('}'))));
                masks.quotes |= bits(quote) << at;
                masks.backslashes |= bits(backslash) << at;
                masks.brackets |= bits(brackets) << at;
                if (with_info)
                {
                    __m256i info = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('-'));
                    int offset = 1;
                    for (const char c : { 'i', 'n', 'f', 'o' })
                    {
                        const __m256i shifted =
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + at + offset));
                        info =
                          _mm256_and_si256(info, _mm256_cmpeq_epi8(shifted, _mm256_set1_epi8(c)));
                        ++offset;
                    }
                    masks.info |= bits(info) << at;
                }
            }
            return masks;
        }

        const bool cpu_has_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif

        auto classify(const char* block, bool with_info) -> BlockMasks
        {
#if defined(ENVCHECK_SCAN_AVX2)
            if (cpu_has_avx2)
            {
                return classify_avx2(block, with_info);
            }
#endif
            return classify_portable(block, with_info);
        }

        // Bit i set when an odd number of set bits of x lie at or below i: the inside of quotes.
        auto prefix_xor(std::uint64_t x) -> std::uint64_t
        {
            x ^= x << 1;
            x ^= x << 2;
            x ^= x << 4;
            x ^= x << 8;
            x ^= x << 16;
            x ^= x << 32;
            return x;
        }

    }

    auto describe_character(std::string_view text, std::size_t offset) -> std::string
    {
        if (offset >= text.size())
        {
            return "end of file";
        }
        const auto byte = static_cast<unsigned char>(text[offset]);
        if (byte >= 0x20 && byte < 0x7F)
        {
            return std::string("'") + text[offset] + "'";
        }
        static constexpr char digits[] = "0123456789abcdef";
        return std::string("byte 0x") + digits[byte >> 4] + digits[byte & 0xF];
    }

    auto JsonScanner::fail(std::string message) -> bool
    {
        return fail_at(m_pos, std::move(message));
    }

    auto JsonScanner::fail_at(std::size_t offset, std::string message) -> bool
    {
        if (m_error.empty())
        {
            m_error = std::move(message);
            m_error_offset = offset;
        }
        return false;
    }

    void JsonScanner::skip_whitespace()
    {
        m_pos = space_end(m_text, m_pos);
    }

    auto JsonScanner::peek() -> char
    {
        skip_whitespace();
        return m_pos < m_text.size() ? m_text[m_pos] : '\0';
    }

    auto JsonScanner::expect(char c) -> bool
    {
        if (peek() == c && m_pos < m_text.size())
        {
            ++m_pos;
            return true;
        }
        return fail(std::string("expected '") + c + "' but found " +
                    describe_character(m_text, m_pos));
    }

    auto JsonScanner::consume(char c) -> bool
    {
        if (peek() == c && m_pos < m_text.size())
        {
            ++m_pos;
            return true;
        }
        return false;
    }

    auto JsonScanner::at_end_of_document() -> bool
    {
        skip_whitespace();
        return m_pos >= m_text.size();
    }

    auto JsonScanner::skip_string() -> bool
    {
        const std::size_t start = m_pos;
        ++m_pos; // the opening quote
        const char* const base = m_text.data();
        while (m_pos < m_text.size())
        {
            const void* found = std::memchr(base + m_pos, '"', m_text.size() - m_pos);
            if (found == nullptr)
            {
                break;
            }
            const auto quote = static_cast<std::size_t>(static_cast<const char*>(found) - base);
            // The quote ends the string unless an odd run of backslashes escapes it.
            std::size_t backslashes = 0;
            while (quote - backslashes > start + 1 && base[quote - backslashes - 1] == '\\')
            {
                ++backslashes;
            }
            m_pos = quote + 1;
            if (backslashes % 2 == 0)
            {
                return true;
            }
        }
        return fail_at(start, "unterminated string");
    }

    auto JsonScanner::read_string(std::string& out) -> bool
    {
        out.clear();
        if (peek() != '"')
        {
            return fail("expected a string but found " + describe_character(m_text, m_pos));
        }
        const std::size_t start = m_pos;
        ++m_pos;
        bool ascii = true; // then it is valid UTF-8 without a check
        while (m_pos < m_text.size())
        {
            // Copy the run up to the next quote or backslash in one piece.
            const std::size_t run_end = string_run_end(m_text, m_pos, ascii);
            if (run_end < m_text.size() && static_cast<unsigned char>(m_text[run_end]) < 0x20)
            {
                return fail_at(run_end, "control character in a string (it must be escaped)");
            }
            out.append(m_text.data() + m_pos, run_end - m_pos);
            m_pos = run_end;
            if (m_pos >= m_text.size())
            {
                break;
            }
            if (m_text[m_pos] == '"')
            {
                ++m_pos;
                if (const auto bad = ascii ? std::nullopt : util::find_invalid_utf8(out))
                {
                    return fail_at(start, "string is not valid UTF-8 (byte " +
                                            std::to_string(*bad) + " of the string)");
                }
                return true;
            }
            // A backslash escape (\\u may decode to any code point).
            ascii = false;
            const auto escape = decode_json_escape(m_text, m_pos, out);
            if (!escape.error.empty())
            {
                return fail_at(m_pos, std::string(escape.error));
            }
            m_pos = escape.end;
        }
        return fail_at(start, "unterminated string");
    }

    auto JsonScanner::read_key(std::string& scratch) -> std::optional<std::string_view>
    {
        if (peek() != '"')
        {
            fail("expected a key (a string in double quotes) but found " +
                 describe_character(m_text, m_pos));
            return std::nullopt;
        }
        // Keys without escapes are returned in place (whatever their bytes: a key is only
        // compared with the ones a reader knows).
        const std::size_t begin = m_pos + 1;
        bool ascii = true;
        const std::size_t end = string_run_end(m_text, begin, ascii);
        if (end < m_text.size() && m_text[end] == '"')
        {
            m_pos = end + 1;
            return m_text.substr(begin, end - begin);
        }
        if (!read_string(scratch))
        {
            return std::nullopt;
        }
        return std::string_view(scratch);
    }

    auto JsonScanner::read_integer(long long& out) -> bool
    {
        skip_whitespace();
        const std::size_t start = m_pos;
        if (!skip_number())
        {
            return false;
        }
        const std::string_view text = m_text.substr(start, m_pos - start);
        if (const auto value = util::parse_int(text))
        {
            out = *value;
            return true;
        }
        return fail_at(start, "expected an integer but found " + std::string(text));
    }

    auto JsonScanner::skip_number() -> bool
    {
        const std::size_t start = m_pos;
        const auto digits = [this]
        {
            const std::size_t begin = m_pos;
            while (m_pos < m_text.size() && util::is_digit(m_text[m_pos]))
            {
                ++m_pos;
            }
            return m_pos > begin;
        };
        if (m_pos < m_text.size() && m_text[m_pos] == '-')
        {
            ++m_pos;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '0')
        {
            ++m_pos; // no leading zeros
        }
        else if (!digits())
        {
            return fail_at(start, "invalid number");
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.')
        {
            ++m_pos;
            if (!digits())
            {
                return fail_at(start, "invalid number: digits must follow the decimal point");
            }
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E'))
        {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
            {
                ++m_pos;
            }
            if (!digits())
            {
                return fail_at(start, "invalid number: digits must follow the exponent");
            }
        }
        return true;
    }

    auto JsonScanner::skip_literal() -> bool
    {
        for (const std::string_view literal :
             { std::string_view("true"), std::string_view("false"), std::string_view("null") })
        {
            if (m_text.substr(m_pos, literal.size()) == literal)
            {
                m_pos += literal.size();
                return true;
            }
        }
        return fail("expected a value but found " + describe_character(m_text, m_pos));
    }

    auto JsonScanner::skip_value() -> bool
    {
        // The hot loop of reading conda-meta records: `files` and `paths_data` are arrays of
        // thousands of short strings and small objects. Pointers and inline character tests
        // keep the work per element to a few instructions; strings are crossed with memchr.
        // Containers open on a stack; after each value, a comma or the closing bracket of the
        // innermost container must follow, and in an object a key and ':' follow a comma.
        constexpr std::size_t inline_depth = 64;
        std::array<char, inline_depth> stack{};
        std::vector<char> deep_stack;
        std::size_t depth = 0;
        const auto push = [&](char closing)
        {
            if (depth < inline_depth)
            {
                stack[depth] = closing;
            }
            else
            {
                deep_stack.push_back(closing);
            }
            ++depth;
        };
        const auto top = [&]
        { return depth <= inline_depth ? stack[depth - 1] : deep_stack.back(); };
        const auto pop = [&]
        {
            if (depth > inline_depth)
            {
                deep_stack.pop_back();
            }
            --depth;
        };
        const char* const begin = m_text.data();
        const char* const end = begin + m_text.size();
        const char* p = begin + m_pos;
        const auto skip_space = [&]
        { p = begin + space_end(m_text, static_cast<std::size_t>(p - begin)); };
        // Crosses the string whose opening quote is at p.
        const auto cross_string = [&]() -> bool
        {
            const char* const open = p;
            const char* from = p + 1;
            while (from < end)
            {
                const auto* quote = static_cast<const char*>(
                  std::memchr(from, '"', static_cast<std::size_t>(end - from)));
                if (quote == nullptr)
                {
                    break;
                }
                const char* back = quote;
                while (back > open + 1 && back[-1] == '\\')
                {
                    --back;
                }
                from = quote + 1;
                if ((quote - back) % 2 == 0)
                {
                    p = from;
                    return true;
                }
            }
            return fail_at(static_cast<std::size_t>(open - begin), "unterminated string");
        };
        const auto key_and_colon = [&]() -> bool
        {
            skip_space();
            if (p >= end || *p != '"')
            {
                return fail_at(static_cast<std::size_t>(p - begin),
                               "expected a key (a string in double quotes) but found " +
                                 describe_character(m_text, static_cast<std::size_t>(p - begin)));
            }
            if (!cross_string())
            {
                return false;
            }
            skip_space();
            if (p >= end || *p != ':')
            {
                return fail_at(static_cast<std::size_t>(p - begin),
                               "expected ':' but found " +
                                 describe_character(m_text, static_cast<std::size_t>(p - begin)));
            }
            ++p;
            return true;
        };
        skip_whitespace();
        m_value_begin = m_pos;
        while (true)
        {
            // A value starts here.
            skip_space();
            if (p >= end)
            {
                m_pos = static_cast<std::size_t>(p - begin);
                return fail("expected a value but found end of file");
            }
            const char c = *p;
            if (c == '"')
            {
                if (!cross_string())
                {
                    return false;
                }
            }
            else if (c == '{' || c == '[')
            {
                ++p;
                skip_space();
                if (p < end && *p == (c == '{' ? '}' : ']'))
                {
                    ++p;
                }
                else
                {
                    push(c == '{' ? '}' : ']');
                    if (c == '{' && !key_and_colon())
                    {
                        return false;
                    }
                    continue;
                }
            }
            else
            {
                m_pos = static_cast<std::size_t>(p - begin);
                const bool scalar =
                  (c == '-' || (c >= '0' && c <= '9')) ? skip_number()
                  : (c == 't' || c == 'f' || c == 'n')
                    ? skip_literal()
                    : fail("expected a value but found " + describe_character(m_text, m_pos));
                if (!scalar)
                {
                    return false;
                }
                p = begin + m_pos;
            }
            // A value ended: close containers until one continues with a comma.
            while (true)
            {
                if (depth == 0)
                {
                    m_pos = static_cast<std::size_t>(p - begin);
                    return true;
                }
                skip_space();
                const char closing = top();
                if (p < end && *p == closing)
                {
                    ++p;
                    pop();
                    continue;
                }
                if (p >= end || *p != ',')
                {
                    m_pos = static_cast<std::size_t>(p - begin);
                    return fail(std::string("expected ',' or '") + closing + "' but found " +
                                describe_character(m_text, m_pos));
                }
                ++p;
                if (closing == '}' && !key_and_colon())
                {
                    return false;
                }
                break;
            }
        }
    }

    auto JsonScanner::skip_container(std::vector<std::size_t>* info_hits) -> bool
    {
        skip_whitespace();
        m_value_begin = m_pos;
        if (m_pos >= m_text.size() || (m_text[m_pos] != '[' && m_text[m_pos] != '{'))
        {
            return skip_value();
        }
        std::vector<char> open; // the closing bracket each open container expects
        bool in_string = false;
        bool escaped = false; // the previous character was an unescaped backslash in a string
        // 64 bytes and the 4 that the "-info" mask reads past them.
        std::array<char, 64 + 4> padded{};
        for (std::size_t block_start = m_pos; block_start < m_text.size(); block_start += 64)
        {
            const std::size_t length = std::min<std::size_t>(64, m_text.size() - block_start);
            const char* block = m_text.data() + block_start;
            if (m_text.size() - block_start < padded.size())
            {
                padded.fill(' ');
                std::memcpy(padded.data(), block, m_text.size() - block_start);
                block = padded.data();
            }
            const BlockMasks masks = classify(block, info_hits != nullptr);
            if (info_hits != nullptr)
            {
                std::uint64_t hits = masks.info;
                if (length < 64)
                {
                    hits &= (std::uint64_t{ 1 } << length) - 1;
                }
                for (; hits != 0; hits &= hits - 1)
                {
                    info_hits->push_back(block_start +
                                         static_cast<std::size_t>(std::countr_zero(hits)));
                }
            }
            const auto bracket = [&](std::size_t index) -> int
            {
                // 1: the container is closed at `index`; -1: a mismatched bracket; 0: go on.
                const char c = block[index];
                if (c == '[' || c == '{')
                {
                    open.push_back(c == '[' ? ']' : '}');
                    return 0;
                }
                if (open.empty() || open.back() != c)
                {
                    return -1;
                }
                open.pop_back();
                return open.empty() ? 1 : 0;
            };
            const auto finish = [&](std::size_t index, int verdict) -> bool
            {
                if (verdict < 0)
                {
                    return fail_at(block_start + index,
                                   std::string("'") + block[index] + "' closes " +
                                     (open.empty() ? std::string("nothing")
                                                   : std::string("a container expecting '") +
                                                       open.back() + "'"));
                }
                m_pos = block_start + index + 1;
                return true;
            };
            if (masks.backslashes != 0 || escaped)
            {
                // Rare: escapes. Follow this block character by character.
                for (std::size_t i = 0; i < length; ++i)
                {
                    const char c = block[i];
                    if (in_string)
                    {
                        if (escaped)
                        {
                            escaped = false;
                        }
                        else if (c == '\\')
                        {
                            escaped = true;
                        }
                        else if (c == '"')
                        {
                            in_string = false;
                        }
                        continue;
                    }
                    if (c == '"')
                    {
                        in_string = true;
                    }
                    else if (c == '[' || c == '{' || c == ']' || c == '}')
                    {
                        if (const int verdict = bracket(i); verdict != 0)
                        {
                            return finish(i, verdict);
                        }
                    }
                }
                continue;
            }
            // No backslash: every quote delimits a string.
            const std::uint64_t inside =
              prefix_xor(masks.quotes) ^ (in_string ? ~std::uint64_t{ 0 } : 0);
            in_string = (inside >> 63) != 0;
            std::uint64_t structural = masks.brackets & ~inside;
            if (length < 64)
            {
                structural &= (std::uint64_t{ 1 } << length) - 1;
            }
            while (structural != 0)
            {
                const auto index = static_cast<std::size_t>(std::countr_zero(structural));
                structural &= structural - 1;
                if (const int verdict = bracket(index); verdict != 0)
                {
                    return finish(index, verdict);
                }
            }
        }
        return fail_at(m_value_begin, in_string
                                        ? "unterminated string"
                                        : "unterminated container: the text ends inside it");
    }
}
