// The regular expressions conda specs may contain (`^1\.7\.[0-9]+$` as a version spec, `^.*mkl$`
// as a build string), matched in linear time.
//
// Why our own: conda evaluates these with Python's `re`; std::regex backtracks recursively and
// overflows the stack or runs for minutes on inputs a fuzzer finds in seconds, and CEP 29 says
// lookaround and backreferences SHOULD NOT be allowed. This is a Thompson NFA (Pike VM) over the
// subset of Python syntax that specs use:
//   literals, `.`, classes `[a-z_]` `[^0-9]`, escapes `\d \D \w \W \s \S \. \\ ...`,
//   groups `( )` `(?: )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (a trailing `?`
//   for laziness is accepted: it cannot change whether a string matches), anchors `^ $`.
// Lookaround, backreferences, named groups and inline flags are rejected with a parse error.
//
// matches() follows Python's re.match, the function conda calls: the match is anchored at the
// start of the text (not at its end; patterns end with `$` for that).
#ifndef ENVCHECK_SPECS_REGEX_HPP
#define ENVCHECK_SPECS_REGEX_HPP

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    class Regex
    {
    public:
        // Nesting deeper than this, or a program larger than max_program_size instructions
        // (counted repetitions are expanded), is rejected as too complex.
        static constexpr std::size_t max_nesting = 64;
        static constexpr std::size_t max_program_size = 20000;

        [[nodiscard]] static auto compile(std::string_view pattern, bool case_insensitive = false)
          -> util::Result<Regex, util::ParseError>;

        // Python's re.match: anchored at the start of `text`.
        [[nodiscard]] auto matches(std::string_view text) const -> bool;

        [[nodiscard]] auto pattern() const -> const std::string& { return m_pattern; }
        [[nodiscard]] auto case_insensitive() const -> bool { return m_case_insensitive; }

        friend auto operator==(const Regex& a, const Regex& b) -> bool
        {
            return a.m_pattern == b.m_pattern && a.m_case_insensitive == b.m_case_insensitive;
        }

    private:
        enum class OpCode : std::uint8_t
        {
            byte,       // one byte equal to `arg`
            any,        // any byte but '\n'
            byte_class, // a byte in m_classes[arg]
            split,      // continue at `next` and at `arg`
            jump,       // continue at `next`
            line_begin, // `^`: only at offset 0
            line_end,   // `$`: only at the end, or before a final '\n' (as Python)
            match,
        };

        struct Instruction
        {
            OpCode op = OpCode::match;
            std::uint32_t arg = 0;
            std::uint32_t next = 0;
        };

        using ByteSet = std::array<std::uint64_t, 4>;

        // The state of one matches() call: the Pike VM's thread lists (defined in regex.cpp).
        class Matcher;

        friend class RegexCompiler;

        std::string m_pattern;
        bool m_case_insensitive = false;
        std::vector<Instruction> m_program;
        std::vector<ByteSet> m_classes;
    };
}

#endif
