#include "specs/regex.hpp"

#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace envcheck::specs
{
    namespace
    {
        constexpr std::uint32_t unbounded = std::numeric_limits<std::uint32_t>::max();
        constexpr std::uint32_t max_repeat_count = 1000;

        auto lower(unsigned char c) -> unsigned char
        {
            return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
        }

        auto upper(unsigned char c) -> unsigned char
        {
            return (c >= 'a' && c <= 'z') ? static_cast<unsigned char>(c - 'a' + 'A') : c;
        }

        auto is_digit(char c) -> bool
        {
            return c >= '0' && c <= '9';
        }

        auto is_alpha(char c) -> bool
        {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }
    }

    // Parses the pattern into a small syntax tree, then emits Pike VM instructions from it.
    class RegexCompiler
    {
    public:
        RegexCompiler(std::string_view pattern, bool case_insensitive)
          : m_pattern(pattern)
          , m_case_insensitive(case_insensitive)
        {
        }

        auto run() -> util::Result<Regex, util::ParseError>
        {
            const auto root = parse_alternation(0);
            if (m_error)
            {
                return util::unexpected(std::move(*m_error));
            }
            if (m_pos < m_pattern.size())
            {
                // parse_alternation stops only at the end or at a ')' without a '('.
                return util::unexpected(error_at(m_pos, "unbalanced ')' in regular expression"));
            }
            Regex regex;
            regex.m_pattern = std::string(m_pattern);
            regex.m_case_insensitive = m_case_insensitive;
            m_out = &regex;
            emit(root);
            push(Regex::OpCode::match, 0);
            if (m_too_large)
            {
                return util::unexpected(
                  error_at(0, "regular expression is too complex (more than " +
                                std::to_string(Regex::max_program_size) +
                                " instructions once repetitions are expanded)"));
            }
            return regex;
        }

    private:
        enum class Kind : std::uint8_t
        {
            empty,
            byte,
            any,
            byte_class,
            line_begin,
            line_end,
            concat,
            alternate,
            repeat,
        };

        struct Node
        {
            explicit Node(Kind node_kind = Kind::empty)
              : kind(node_kind)
            {
            }

            Kind kind = Kind::empty;
            unsigned char byte = 0;
            std::uint32_t byte_class = 0;
            std::uint32_t min = 0;
            std::uint32_t max = 0;
            std::vector<std::size_t> children;
        };

        auto error_at(std::size_t offset, std::string message) const -> util::ParseError
        {
            return util::ParseError{ std::string(m_pattern), offset, std::move(message) };
        }

        void fail(std::size_t offset, std::string message)
        {
            if (!m_error)
            {
                m_error = error_at(offset, std::move(message));
            }
        }

        auto add_node(Node node) -> std::size_t
        {
            m_nodes.push_back(std::move(node));
            return m_nodes.size() - 1;
        }

        auto at_end() const -> bool { return m_pos >= m_pattern.size(); }
        auto peek() const -> char { return m_pattern[m_pos]; }

        auto parse_alternation(std::size_t depth) -> std::size_t
        {
            if (depth > Regex::max_nesting)
            {
                fail(m_pos, "regular expression nests groups too deeply");
                return add_node(Node{});
            }
            Node alternatives(Kind::alternate);
            alternatives.children.push_back(parse_concat(depth));
            while (!m_error && !at_end() && peek() == '|')
            {
                ++m_pos;
                alternatives.children.push_back(parse_concat(depth));
            }
            if (alternatives.children.size() == 1)
            {
                return alternatives.children.front();
            }
            return add_node(std::move(alternatives));
        }

        auto parse_concat(std::size_t depth) -> std::size_t
        {
            Node sequence(Kind::concat);
            while (!m_error && !at_end() && peek() != '|' && peek() != ')')
            {
                sequence.children.push_back(parse_repeat(depth));
            }
            if (sequence.children.empty())
            {
                return add_node(Node{});
            }
            if (sequence.children.size() == 1)
            {
                return sequence.children.front();
            }
            return add_node(std::move(sequence));
        }

        // `{n}`, `{n,}`, `{n,m}` at m_pos; nullopt when the text there is not one (Python then
        // reads the '{' as a literal).
        auto parse_braces() -> std::optional<std::pair<std::uint32_t, std::uint32_t>>
        {
            std::size_t p = m_pos + 1;
            auto read_number = [&](std::uint32_t& value) -> bool
            {
                const std::size_t start = p;
                value = 0;
                while (p < m_pattern.size() && is_digit(m_pattern[p]))
                {
                    value = value > max_repeat_count
                              ? value
                              : value * 10 + static_cast<std::uint32_t>(m_pattern[p] - '0');
                    ++p;
                }
                return p > start;
            };
            std::uint32_t min = 0;
            std::uint32_t max = 0;
            if (!read_number(min))
            {
                return std::nullopt;
            }
            if (p < m_pattern.size() && m_pattern[p] == '}')
            {
                m_pos = p + 1;
                return std::pair{ min, min };
            }
            if (p >= m_pattern.size() || m_pattern[p] != ',')
            {
                return std::nullopt;
            }
            ++p;
            if (p < m_pattern.size() && m_pattern[p] == '}')
            {
                m_pos = p + 1;
                return std::pair{ min, unbounded };
            }
            if (!read_number(max) || p >= m_pattern.size() || m_pattern[p] != '}')
            {
                return std::nullopt;
            }
            m_pos = p + 1;
            return std::pair{ min, max };
        }

        auto parse_repeat(std::size_t depth) -> std::size_t
        {
            const std::size_t atom_start = m_pos;
            std::size_t atom = parse_atom(depth);
            bool repeated = false;
            while (!m_error && !at_end())
            {
                const std::size_t quantifier_start = m_pos;
                std::uint32_t min = 0;
                std::uint32_t max = 0;
                const char c = peek();
                if (c == '*' || c == '+' || c == '?')
                {
                    ++m_pos;
                    min = c == '+' ? 1 : 0;
                    max = c == '?' ? 1 : unbounded;
                }
                else if (c == '{')
                {
                    const auto braces = parse_braces();
                    if (!braces)
                    {
                        break;
                    }
                    std::tie(min, max) = *braces;
                    if (min > max_repeat_count || (max != unbounded && max > max_repeat_count))
                    {
                        fail(quantifier_start,
                             "repetition count above " + std::to_string(max_repeat_count));
                        break;
                    }
                    if (max < min)
                    {
                        fail(quantifier_start, "repetition range with min above max");
                        break;
                    }
                }
                else
                {
                    break;
                }
                if (repeated)
                {
                    fail(quantifier_start, "multiple repeat");
                    break;
                }
                const Kind kind = m_nodes[atom].kind;
                if (kind == Kind::line_begin || kind == Kind::line_end || kind == Kind::empty)
                {
                    fail(atom_start, "nothing to repeat");
                    break;
                }
                repeated = true;
                Node repeat(Kind::repeat);
                repeat.min = min;
                repeat.max = max;
                repeat.children.push_back(atom);
                atom = add_node(std::move(repeat));
                if (!at_end() && peek() == '?')
                {
                    ++m_pos; // lazy: the same strings match
                }
            }
            return atom;
        }

        auto new_class() -> std::uint32_t
        {
            m_classes.push_back(Regex::ByteSet{});
            return static_cast<std::uint32_t>(m_classes.size() - 1);
        }

        void set_byte(Regex::ByteSet& set, unsigned char c)
        {
            set[c / 64] |= std::uint64_t{ 1 } << (c % 64);
            if (m_case_insensitive)
            {
                const unsigned char other = c == lower(c) ? upper(c) : lower(c);
                set[other / 64] |= std::uint64_t{ 1 } << (other % 64);
            }
        }

        // \d \w \s and their negations into `set`; false when `letter` is not one of them.
        auto add_shorthand(Regex::ByteSet& set, char letter) -> bool
        {
            Regex::ByteSet members{};
            auto fill = [&](auto predicate)
            {
                for (unsigned c = 0; c < 256; ++c)
                {
                    if (predicate(static_cast<char>(c)))
                    {
                        members[c / 64] |= std::uint64_t{ 1 } << (c % 64);
                    }
                }
            };
            auto word = [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; };
            auto space = [](char c)
            { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
            switch (lower(static_cast<unsigned char>(letter)))
            {
                case 'd':
                    fill(is_digit);
                    break;
                case 'w':
                    fill(word);
                    break;
                case 's':
                    fill(space);
                    break;
                default:
                    return false;
            }
            const bool negated = letter >= 'A' && letter <= 'Z';
            for (std::size_t i = 0; i < set.size(); ++i)
            {
                set[i] |= negated ? ~members[i] : members[i];
            }
            return true;
        }

        // A single escaped byte (after the backslash at m_pos - 1); fails on escapes that are
        // not literals.
        auto escaped_byte(char c, std::size_t offset) -> std::optional<unsigned char>
        {
            switch (c)
            {
                case 'n':
                    return static_cast<unsigned char>('\n');
                case 't':
                    return static_cast<unsigned char>('\t');
                case 'r':
                    return static_cast<unsigned char>('\r');
                case 'f':
                    return static_cast<unsigned char>('\f');
                case 'v':
                    return static_cast<unsigned char>('\v');
                default:
                    break;
            }
            if (is_digit(c))
            {
                fail(offset, "backreferences are not supported in specs");
                return std::nullopt;
            }
            if (is_alpha(c))
            {
                fail(offset, std::string("unsupported escape '\\") + c + "'");
                return std::nullopt;
            }
            return static_cast<unsigned char>(c);
        }

        auto parse_class() -> std::size_t
        {
            const std::size_t open = m_pos;
            ++m_pos; // '['
            bool negated = false;
            if (!at_end() && peek() == '^')
            {
                negated = true;
                ++m_pos;
            }
            Regex::ByteSet set{};
            bool first = true;
            while (true)
            {
                if (at_end())
                {
                    fail(open, "unterminated character set");
                    return add_node(Node{});
                }
                char c = peek();
                if (c == ']' && !first)
                {
                    ++m_pos;
                    break;
                }
                first = false;
                const std::size_t item = m_pos;
                ++m_pos;
                unsigned char low = static_cast<unsigned char>(c);
                if (c == '\\')
                {
                    if (at_end())
                    {
                        fail(item, "trailing backslash");
                        return add_node(Node{});
                    }
                    c = peek();
                    ++m_pos;
                    if (add_shorthand(set, c))
                    {
                        continue;
                    }
                    const auto byte = escaped_byte(c, item);
                    if (!byte)
                    {
                        return add_node(Node{});
                    }
                    low = *byte;
                }
                unsigned char high = low;
                if (m_pos + 1 < m_pattern.size() && peek() == '-' && m_pattern[m_pos + 1] != ']')
                {
                    ++m_pos;
                    char h = peek();
                    ++m_pos;
                    if (h == '\\')
                    {
                        if (at_end())
                        {
                            fail(item, "trailing backslash");
                            return add_node(Node{});
                        }
                        h = peek();
                        ++m_pos;
                        const auto byte = escaped_byte(h, m_pos - 2);
                        if (!byte)
                        {
                            return add_node(Node{});
                        }
                        high = *byte;
                    }
                    else
                    {
                        high = static_cast<unsigned char>(h);
                    }
                    if (high < low)
                    {
                        fail(item, "bad character range");
                        return add_node(Node{});
                    }
                }
                for (unsigned b = low; b <= high; ++b)
                {
                    set_byte(set, static_cast<unsigned char>(b));
                }
            }
            if (negated)
            {
                for (auto& word : set)
                {
                    word = ~word;
                }
            }
            const std::uint32_t index = new_class();
            m_classes[index] = set;
            Node node(Kind::byte_class);
            node.byte_class = index;
            return add_node(std::move(node));
        }

        auto literal(unsigned char c) -> std::size_t
        {
            if (m_case_insensitive && lower(c) != upper(c))
            {
                const std::uint32_t index = new_class();
                set_byte(m_classes[index], c);
                Node node(Kind::byte_class);
                node.byte_class = index;
                return add_node(std::move(node));
            }
            Node node(Kind::byte);
            node.byte = c;
            return add_node(std::move(node));
        }

        auto parse_atom(std::size_t depth) -> std::size_t
        {
            const std::size_t start = m_pos;
            const char c = peek();
            ++m_pos;
            switch (c)
            {
                case '(':
                {
                    if (!at_end() && peek() == '?')
                    {
                        if (m_pos + 1 < m_pattern.size() && m_pattern[m_pos + 1] == ':')
                        {
                            m_pos += 2;
                        }
                        else
                        {
                            fail(start, "lookaround, named groups and inline flags are not "
                                        "supported in specs");
                            return add_node(Node{});
                        }
                    }
                    const std::size_t inner = parse_alternation(depth + 1);
                    if (m_error)
                    {
                        return inner;
                    }
                    if (at_end() || peek() != ')')
                    {
                        fail(start, "missing ')' in regular expression");
                        return inner;
                    }
                    ++m_pos;
                    return inner;
                }
                case '[':
                    --m_pos;
                    return parse_class();
                case '.':
                    return add_node(Node{ Kind::any });
                case '^':
                    return add_node(Node{ Kind::line_begin });
                case '$':
                    return add_node(Node{ Kind::line_end });
                case '*':
                case '+':
                case '?':
                    fail(start, "nothing to repeat");
                    return add_node(Node{});
                case '\\':
                {
                    if (at_end())
                    {
                        fail(start, "trailing backslash");
                        return add_node(Node{});
                    }
                    const char e = peek();
                    ++m_pos;
                    if (e == 'A')
                    {
                        return add_node(Node{ Kind::line_begin });
                    }
                    if (e == 'Z')
                    {
                        return add_node(Node{ Kind::line_end });
                    }
                    Regex::ByteSet set{};
                    if (add_shorthand(set, e))
                    {
                        const std::uint32_t index = new_class();
                        m_classes[index] = set;
                        Node node(Kind::byte_class);
                        node.byte_class = index;
                        return add_node(std::move(node));
                    }
                    const auto byte = escaped_byte(e, start);
                    return byte ? literal(*byte) : add_node(Node{});
                }
                default:
                    return literal(static_cast<unsigned char>(c));
            }
        }

        auto push(Regex::OpCode op, std::uint32_t arg) -> std::uint32_t
        {
            auto& program = m_out->m_program;
            if (program.size() >= Regex::max_program_size)
            {
                m_too_large = true;
                return static_cast<std::uint32_t>(program.size());
            }
            const auto pc = static_cast<std::uint32_t>(program.size());
            program.push_back({ op, arg, pc + 1 });
            return pc;
        }

        auto pc() const -> std::uint32_t
        {
            return static_cast<std::uint32_t>(m_out->m_program.size());
        }

        void patch_arg(std::uint32_t at, std::uint32_t target)
        {
            if (at < m_out->m_program.size())
            {
                m_out->m_program[at].arg = target;
            }
        }

        void patch_next(std::uint32_t at, std::uint32_t target)
        {
            if (at < m_out->m_program.size())
            {
                m_out->m_program[at].next = target;
            }
        }

        void emit(std::size_t index)
        {
            if (m_too_large)
            {
                return;
            }
            const Node& node = m_nodes[index];
            switch (node.kind)
            {
                case Kind::empty:
                    return;
                case Kind::byte:
                    push(Regex::OpCode::byte, node.byte);
                    return;
                case Kind::any:
                    push(Regex::OpCode::any, 0);
                    return;
                case Kind::byte_class:
                    push(Regex::OpCode::byte_class, node.byte_class);
                    return;
                case Kind::line_begin:
                    push(Regex::OpCode::line_begin, 0);
                    return;
                case Kind::line_end:
                    push(Regex::OpCode::line_end, 0);
                    return;
                case Kind::concat:
                    for (const auto child : node.children)
                    {
                        emit(child);
                    }
                    return;
                case Kind::alternate:
                {
                    std::vector<std::uint32_t> exits;
                    for (std::size_t i = 0; i < node.children.size(); ++i)
                    {
                        if (i + 1 == node.children.size())
                        {
                            emit(node.children[i]);
                            break;
                        }
                        const auto split = push(Regex::OpCode::split, 0);
                        emit(node.children[i]);
                        exits.push_back(push(Regex::OpCode::jump, 0));
                        patch_arg(split, pc());
                    }
                    for (const auto exit : exits)
                    {
                        patch_next(exit, pc());
                    }
                    return;
                }
                case Kind::repeat:
                {
                    const std::size_t child = node.children.front();
                    for (std::uint32_t i = 0; i < node.min && !m_too_large; ++i)
                    {
                        emit(child);
                    }
                    if (node.max == unbounded)
                    {
                        const auto loop = push(Regex::OpCode::split, 0);
                        emit(child);
                        const auto back = push(Regex::OpCode::jump, 0);
                        patch_next(back, loop);
                        patch_arg(loop, pc());
                        return;
                    }
                    std::vector<std::uint32_t> skips;
                    for (std::uint32_t i = node.min; i < node.max && !m_too_large; ++i)
                    {
                        skips.push_back(push(Regex::OpCode::split, 0));
                        emit(child);
                    }
                    for (const auto skip : skips)
                    {
                        patch_arg(skip, pc());
                    }
                    return;
                }
            }
        }

        std::string_view m_pattern;
        bool m_case_insensitive = false;
        std::size_t m_pos = 0;
        std::vector<Node> m_nodes;
        std::vector<Regex::ByteSet> m_classes;
        std::optional<util::ParseError> m_error;
        Regex* m_out = nullptr;
        bool m_too_large = false;

    public:
        auto take_classes() -> std::vector<Regex::ByteSet> { return std::move(m_classes); }
    };

    auto Regex::compile(std::string_view pattern, bool case_insensitive)
      -> util::Result<Regex, util::ParseError>
    {
        RegexCompiler compiler(pattern, case_insensitive);
        auto compiled = compiler.run();
        if (!compiled)
        {
            return compiled;
        }
        Regex regex = std::move(compiled).value();
        regex.m_classes = compiler.take_classes();
        return regex;
    }

    // One run of the Pike VM over `text`: m_current holds the threads (program counters) waiting
    // for the byte at the current position, m_next those that consumed it. m_seen holds, per
    // instruction, the last position it was added at, so none runs twice at one position and
    // matching stays linear in the text.
    class Regex::Matcher
    {
    public:
        Matcher(const Regex& regex, std::string_view text)
          : m_regex(regex)
          , m_text(text)
          , m_size(regex.m_program.size())
          , m_seen(m_size, std::numeric_limits<std::size_t>::max())
        {
            m_current.reserve(m_size);
            m_next.reserve(m_size);
        }

        auto run() -> bool
        {
            if (add_thread(m_current, 0, 0))
            {
                return true;
            }
            for (std::size_t pos = 0; pos < m_text.size() && !m_current.empty(); ++pos)
            {
                if (step(pos))
                {
                    return true;
                }
                m_current.swap(m_next);
            }
            return false;
        }

    private:
        // Moves every current thread over the byte at `pos` into m_next; true when one of them
        // reaches `match`.
        auto step(std::size_t pos) -> bool
        {
            const auto raw = static_cast<unsigned char>(m_text[pos]);
            const unsigned char folded = m_regex.m_case_insensitive ? lower(raw) : raw;
            m_next.clear();
            for (const std::uint32_t pc : m_current)
            {
                const Instruction& instruction = m_regex.m_program[pc];
                if (consumes(instruction, raw, folded) &&
                    add_thread(m_next, instruction.next, pos + 1))
                {
                    return true;
                }
            }
            return false;
        }

        // Whether a consuming instruction accepts the byte (`folded`: lowered when the regex is
        // case-insensitive; classes were already built with both cases).
        auto consumes(const Instruction& instruction, unsigned char raw, unsigned char folded) const
          -> bool
        {
            switch (instruction.op)
            {
                case OpCode::byte:
                    return folded == instruction.arg;
                case OpCode::any:
                    return raw != '\n';
                case OpCode::byte_class:
                    return (m_regex.m_classes[instruction.arg][raw / 64] >> (raw % 64)) & 1U;
                default:
                    return false;
            }
        }

        // Python's `$`: at the end, or before a final '\n'.
        auto at_line_end(std::size_t pos) const -> bool
        {
            return pos == m_text.size() || (pos + 1 == m_text.size() && m_text[pos] == '\n');
        }

        // Follows the non-consuming instructions from `start` at `pos`, adding the consuming ones
        // it reaches to `list`; true when `match` is reached. Always inlined: past GCC's size limit
        // its call in run() stays out of line, the whole Matcher then lives in memory and
        // matches() runs ~10% more instructions (callgrind).
        [[gnu::always_inline]] auto add_thread(std::vector<std::uint32_t>& list,
                                               std::uint32_t start, std::size_t pos) -> bool
        {
            m_stack.clear();
            m_stack.push_back(start);
            while (!m_stack.empty())
            {
                const std::uint32_t pc = m_stack.back();
                m_stack.pop_back();
                if (pc >= m_size || m_seen[pc] == pos)
                {
                    continue;
                }
                m_seen[pc] = pos;
                const Instruction& instruction = m_regex.m_program[pc];
                switch (instruction.op)
                {
                    case OpCode::match:
                        return true;
                    case OpCode::jump:
                        m_stack.push_back(instruction.next);
                        break;
                    case OpCode::split:
                        m_stack.push_back(instruction.arg);
                        m_stack.push_back(instruction.next);
                        break;
                    case OpCode::line_begin:
                        if (pos == 0)
                        {
                            m_stack.push_back(instruction.next);
                        }
                        break;
                    case OpCode::line_end:
                        if (at_line_end(pos))
                        {
                            m_stack.push_back(instruction.next);
                        }
                        break;
                    case OpCode::byte:
                    case OpCode::any:
                    case OpCode::byte_class:
                        list.push_back(pc);
                        break;
                }
            }
            return false;
        }

        const Regex& m_regex;
        std::string_view m_text;
        std::size_t m_size; // m_program.size(), taken once: add_thread checks every pc against it
        std::vector<std::uint32_t> m_current;
        std::vector<std::uint32_t> m_next;
        std::vector<std::uint32_t> m_stack;
        std::vector<std::size_t> m_seen;
    };

    auto Regex::matches(std::string_view text) const -> bool
    {
        return Matcher(*this, text).run();
    }
}
