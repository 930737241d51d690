#include "specs/version_spec.hpp"

#include <algorithm>

#include "specs/chars.hpp"
#include "util/strings.hpp"

namespace envcheck::specs
{
    auto to_string(VersionOperator op) -> std::string_view
    {
        switch (op)
        {
            case VersionOperator::any:
                return "*";
            case VersionOperator::equal:
                return "==";
            case VersionOperator::not_equal:
                return "!=";
            case VersionOperator::less:
                return "<";
            case VersionOperator::less_equal:
                return "<=";
            case VersionOperator::greater:
                return ">";
            case VersionOperator::greater_equal:
                return ">=";
            case VersionOperator::starts_with:
                return "=";
            case VersionOperator::not_starts_with:
                return "!=.*";
            case VersionOperator::compatible:
                return "~=";
            case VersionOperator::glob:
                return "glob";
            case VersionOperator::regex:
                return "regex";
        }
        return "*";
    }

    auto to_string(Satisfiability satisfiability) -> std::string_view
    {
        switch (satisfiability)
        {
            case Satisfiability::unsatisfiable:
                return "unsatisfiable";
            case Satisfiability::satisfiable:
                return "satisfiable";
            case Satisfiability::unknown:
                return "unknown";
        }
        return "unknown";
    }

    // ---------------------------------------------------------------------------------------
    // Clauses
    // ---------------------------------------------------------------------------------------

    auto VersionConstraint::contains(const Version& candidate) const -> bool
    {
        switch (op)
        {
            case VersionOperator::any:
                return true;
            case VersionOperator::equal:
                return candidate == version;
            case VersionOperator::not_equal:
                return !(candidate == version);
            case VersionOperator::less:
                return candidate < version;
            case VersionOperator::less_equal:
                return candidate <= version;
            case VersionOperator::greater:
                return candidate > version;
            case VersionOperator::greater_equal:
                return candidate >= version;
            case VersionOperator::starts_with:
                return candidate.starts_with(version);
            case VersionOperator::not_starts_with:
                return !candidate.starts_with(version);
            case VersionOperator::compatible:
                return candidate >= version && candidate.starts_with(*prefix);
            case VersionOperator::glob:
                return util::glob_match(pattern, candidate.text());
            case VersionOperator::regex:
                return regex->matches(candidate.text());
        }
        return false;
    }

    namespace
    {
        auto ends_with(std::string_view text, std::string_view suffix) -> bool
        {
            return text.size() >= suffix.size() &&
                   text.substr(text.size() - suffix.size()) == suffix;
        }
    }

    auto VersionConstraint::to_string() const -> std::string
    {
        const std::string_view text = version.text();
        const bool has_star = text.find('*') != std::string_view::npos;
        // An operand ending in ".*" gets another ".*": the parser strips exactly one.
        const std::string operand =
          ends_with(text, ".*") ? std::string(text) + ".*" : std::string(text);
        switch (op)
        {
            case VersionOperator::any:
                return "*";
            case VersionOperator::equal:
                return written_with_operator || has_star ? "==" + operand : operand;
            case VersionOperator::not_equal:
                return "!=" + operand;
            case VersionOperator::less:
                return "<" + operand;
            case VersionOperator::less_equal:
                return "<=" + operand;
            case VersionOperator::greater:
                return ">" + operand;
            case VersionOperator::greater_equal:
                return ">=" + operand;
            case VersionOperator::starts_with:
                if (has_star && !written_with_operator)
                {
                    return std::string(text) + "*"; // `1.2**` starts with the version "1.2*"
                }
                if (has_star)
                {
                    return "=" + std::string(text) + ".*";
                }
                if (written_with_operator)
                {
                    return "=" + std::string(text) + (written_with_star ? ".*" : "");
                }
                return std::string(text) + ".*";
            case VersionOperator::not_starts_with:
                return "!=" + std::string(text) + ".*";
            case VersionOperator::compatible:
                return "~=" + operand;
            case VersionOperator::glob:
            case VersionOperator::regex:
                return pattern;
        }
        return "*";
    }

    auto operator==(const VersionConstraint& a, const VersionConstraint& b) -> bool
    {
        if (a.op != b.op)
        {
            return false;
        }
        switch (a.op)
        {
            case VersionOperator::any:
                return true;
            case VersionOperator::glob:
            case VersionOperator::regex:
                return a.pattern == b.pattern;
            default:
                return a.version == b.version;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Parser
    // ---------------------------------------------------------------------------------------

    namespace
    {
        auto is_glob_char(char c) -> bool
        {
            return chars::is_alnum(c) || c == '.' || c == '+' || c == '!' || c == '_' || c == '*' ||
                   c == '-';
        }

        auto is_operator_char(char c) -> bool
        {
            return c == '=' || c == '<' || c == '>' || c == '!' || c == '~';
        }
    }

    class VersionSpecParser
    {
    public:
        explicit VersionSpecParser(std::string_view input)
          : m_input(input)
        {
        }

        auto run() -> util::Result<VersionSpec, util::ParseError>
        {
            VersionSpec spec;
            if (util::trim(m_input).empty())
            {
                return spec; // the free spec
            }
            m_spec = &spec;
            const std::string_view trimmed = util::trim(m_input);
            if (trimmed.find_first_of("()|,") == std::string_view::npos && trimmed.front() != '^')
            {
                // One clause, the common case: no tree to build.
                const auto start = static_cast<std::size_t>(trimmed.data() - m_input.data());
                auto constraint = parse_clause(trimmed, start);
                if (m_error)
                {
                    return util::unexpected(std::move(*m_error));
                }
                spec.m_single = std::move(*constraint);
                spec.m_free = spec.compute_free(0);
                return spec;
            }
            auto tree = parse_any_of(0);
            if (!m_error)
            {
                skip_space();
                if (m_pos < m_input.size())
                {
                    fail(m_pos, "unbalanced ')': no '(' before it");
                }
            }
            if (m_error)
            {
                return util::unexpected(std::move(*m_error));
            }
            if (tree.kind != VersionSpec::NodeKind::leaf)
            {
                emit(tree);
            }
            else
            {
                // A single clause after all ("(1.2)"): no node table.
                spec.m_single = std::move(spec.m_leaves.front());
                spec.m_leaves.clear();
            }
            spec.m_free = spec.compute_free(0);
            return spec;
        }

    private:
        struct Tree
        {
            VersionSpec::NodeKind kind = VersionSpec::NodeKind::leaf;
            std::uint32_t leaf = 0;
            std::vector<Tree> children;
        };

        void fail(std::size_t offset, std::string message)
        {
            if (!m_error)
            {
                m_error = util::ParseError{ std::string(m_input), offset, std::move(message) };
            }
        }

        void skip_space()
        {
            while (m_pos < m_input.size() && chars::is_space(m_input[m_pos]))
            {
                ++m_pos;
            }
        }

        // Joins `children` under `kind`, flattening nested nodes of the same kind:
        // (a|b)|c is a|b|c.
        static auto join(VersionSpec::NodeKind kind, std::vector<Tree> children) -> Tree
        {
            if (children.size() == 1)
            {
                return std::move(children.front());
            }
            Tree joined{ kind, 0, {} };
            for (auto& child : children)
            {
                if (child.kind == kind)
                {
                    for (auto& grandchild : child.children)
                    {
                        joined.children.push_back(std::move(grandchild));
                    }
                }
                else
                {
                    joined.children.push_back(std::move(child));
                }
            }
            return joined;
        }

        auto parse_any_of(std::size_t depth) -> Tree
        {
            std::vector<Tree> children;
            children.push_back(parse_all_of(depth, '\0'));
            while (!m_error)
            {
                skip_space();
                if (m_pos >= m_input.size() || m_input[m_pos] != '|')
                {
                    break;
                }
                ++m_pos;
                children.push_back(parse_all_of(depth, '|'));
            }
            return join(VersionSpec::NodeKind::any_of, std::move(children));
        }

        auto parse_all_of(std::size_t depth, char after) -> Tree
        {
            std::vector<Tree> children;
            children.push_back(parse_primary(depth, after));
            while (!m_error)
            {
                skip_space();
                if (m_pos >= m_input.size() || m_input[m_pos] != ',')
                {
                    break;
                }
                ++m_pos;
                children.push_back(parse_primary(depth, ','));
            }
            return join(VersionSpec::NodeKind::all_of, std::move(children));
        }

        auto expected_after(char after) const -> std::string
        {
            if (after == '\0')
            {
                return "expected a version constraint";
            }
            return std::string("expected a version constraint after '") + after + "'";
        }

        auto parse_primary(std::size_t depth, char after) -> Tree
        {
            skip_space();
            if (m_pos >= m_input.size())
            {
                fail(m_pos, expected_after(after));
                return {};
            }
            const char c = m_input[m_pos];
            if (c == '(')
            {
                const std::size_t open = m_pos;
                if (depth + 1 > VersionSpec::max_nesting)
                {
                    fail(open, "parentheses nest more than " +
                                 std::to_string(VersionSpec::max_nesting) + " deep");
                    return {};
                }
                ++m_pos;
                Tree inner = parse_any_of(depth + 1);
                if (m_error)
                {
                    return inner;
                }
                skip_space();
                if (m_pos >= m_input.size() || m_input[m_pos] != ')')
                {
                    fail(m_pos,
                         "expected ')' to close the '(' at column " + std::to_string(open + 1));
                    return inner;
                }
                ++m_pos;
                return inner;
            }
            if (c == ')' || c == '|' || c == ',')
            {
                fail(m_pos, expected_after(after == '\0' ? '(' : after) + ", found '" + c + "'");
                return {};
            }
            if (c == '^')
            {
                const auto dollar = m_input.find('$', m_pos);
                if (dollar == std::string_view::npos)
                {
                    fail(m_pos, "a regular expression must end with '$'");
                    return {};
                }
                const std::size_t start = m_pos;
                m_pos = dollar + 1;
                return leaf(parse_regex(m_input.substr(start, dollar + 1 - start), start));
            }
            const std::size_t start = m_pos;
            while (m_pos < m_input.size() && m_input[m_pos] != '(' && m_input[m_pos] != ')' &&
                   m_input[m_pos] != '|' && m_input[m_pos] != ',')
            {
                ++m_pos;
            }
            const std::string_view clause = util::trim_right(m_input.substr(start, m_pos - start));
            return leaf(parse_clause(clause, start));
        }

        auto leaf(std::optional<VersionConstraint> constraint) -> Tree
        {
            if (!constraint)
            {
                return {};
            }
            m_spec->m_leaves.push_back(std::move(*constraint));
            return Tree{ VersionSpec::NodeKind::leaf,
                         static_cast<std::uint32_t>(m_spec->m_leaves.size() - 1),
                         {} };
        }

        auto parse_regex(std::string_view pattern, std::size_t offset)
          -> std::optional<VersionConstraint>
        {
            // Versions hold no quotes, and a spec with both kinds could not be written in brackets.
            if (const auto quote = pattern.find_first_of("'\""); quote != std::string_view::npos)
            {
                fail(offset + quote, "quotes are not allowed in a version regular expression");
                return std::nullopt;
            }
            auto regex = Regex::compile(pattern);
            if (!regex)
            {
                fail(offset + regex.error().offset, regex.error().message);
                return std::nullopt;
            }
            VersionConstraint constraint;
            constraint.op = VersionOperator::regex;
            constraint.pattern = std::string(pattern);
            constraint.regex = std::make_shared<const Regex>(std::move(regex).value());
            return constraint;
        }

        // A version operand at `offset`; errors point into the whole input.
        auto parse_version(std::string_view text, std::size_t offset) -> std::optional<Version>
        {
            auto version = Version::parse(text);
            if (!version)
            {
                fail(offset + version.error().offset, version.error().message);
                return std::nullopt;
            }
            return std::move(version).value();
        }

        auto parse_clause(std::string_view clause, std::size_t offset)
          -> std::optional<VersionConstraint>
        {
            if (clause.back() == '$')
            {
                fail(offset, "a regular expression must start with '^' and end with '$'");
                return std::nullopt;
            }
            if (clause == "*")
            {
                return VersionConstraint{};
            }
            if (is_operator_char(clause.front()))
            {
                return parse_operator_clause(clause, offset);
            }
            for (std::size_t i = 0; i < clause.size(); ++i)
            {
                if (chars::is_space(clause[i]))
                {
                    fail(offset + i, "unexpected whitespace in a version; versions are joined by "
                                     "',' (and) or '|' (or)");
                    return std::nullopt;
                }
            }
            const std::string_view without_trailing_stars =
              clause.substr(0, clause.find_last_not_of('*') + 1);
            VersionConstraint constraint;
            if (without_trailing_stars.find('*') != std::string_view::npos)
            {
                for (std::size_t i = 0; i < clause.size(); ++i)
                {
                    if (!is_glob_char(clause[i]))
                    {
                        fail(offset + i, std::string("invalid character '") + clause[i] +
                                           "' in a version pattern");
                        return std::nullopt;
                    }
                }
                constraint.op = VersionOperator::glob;
                constraint.pattern = std::string(clause);
                return constraint;
            }
            if (without_trailing_stars.size() != clause.size())
            {
                // conda: `V.*` (and `V.**`...) starts with V; otherwise one '*' is dropped, so
                // `1.2*` starts with 1.2 but `1.2**` with the version "1.2*" and `**` with "*".
                std::string_view stem = ends_with(clause, ".*")
                                          ? without_trailing_stars
                                          : clause.substr(0, clause.size() - 1);
                stem = stem.substr(0, stem.find_last_not_of('.') + 1);
                if (stem.empty())
                {
                    fail(offset, "expected a version before '*'");
                    return std::nullopt;
                }
                auto version = parse_version(stem, offset);
                if (!version)
                {
                    return std::nullopt;
                }
                constraint.op = VersionOperator::starts_with;
                constraint.written_with_star = true;
                constraint.version = std::move(*version);
                return constraint;
            }
            auto version = parse_version(clause, offset);
            if (!version)
            {
                return std::nullopt;
            }
            constraint.op = VersionOperator::equal;
            constraint.version = std::move(*version);
            return constraint;
        }

        // The version after an operator, and where it starts in the whole input.
        struct Operand
        {
            std::string_view text;
            std::size_t offset = 0;
        };

        auto parse_operator_clause(std::string_view clause, std::size_t offset)
          -> std::optional<VersionConstraint>
        {
            const std::string_view op = read_operator(clause);
            if (op.empty())
            {
                const auto end = clause.find_first_not_of("=<>!~");
                fail(offset, "invalid operator '" + std::string(clause.substr(0, end)) +
                               "'; expected one of ==, !=, <, <=, >, >=, =, ~=");
                return std::nullopt;
            }
            auto operand = read_operand(clause, op, offset);
            if (!operand)
            {
                return std::nullopt;
            }

            VersionConstraint constraint;
            constraint.written_with_operator = true;
            const bool star_suffix = ends_with(operand->text, ".*");
            if (op == "=")
            {
                if (operand->text == "*")
                {
                    return VersionConstraint{}; // "=*": any version
                }
                constraint.op = VersionOperator::starts_with;
                constraint.written_with_star = strip_starts_with_star(operand->text);
            }
            else if (op == "!=")
            {
                constraint.op = VersionOperator::not_equal;
                if (star_suffix)
                {
                    constraint.op = VersionOperator::not_starts_with;
                    operand->text.remove_suffix(2);
                }
            }
            else if (op == "~=")
            {
                constraint.op = VersionOperator::compatible;
                if (star_suffix)
                {
                    fail(operand->offset + operand->text.size() - 2,
                         "'~=' cannot be combined with '.*'");
                    return std::nullopt;
                }
            }
            else
            {
                constraint.op = comparison_operator(op);
                if (star_suffix)
                {
                    drop_ignored_star(op, *operand);
                }
            }
            if (operand->text.empty())
            {
                fail(operand->offset, "expected a version after '" + std::string(op) + "'");
                return std::nullopt;
            }
            auto version = parse_version(operand->text, operand->offset);
            if (!version)
            {
                return std::nullopt;
            }
            if (constraint.op == VersionOperator::compatible &&
                !set_compatible_prefix(constraint, *version, *operand, offset))
            {
                return std::nullopt;
            }
            constraint.version = std::move(*version);
            return constraint;
        }

        // The operator `clause` starts with; empty when it starts with none, or with more
        // operator characters than one operator (`=>`, `<<`, `===`).
        static auto read_operator(std::string_view clause) -> std::string_view
        {
            static constexpr std::string_view two_char[] = { "==", "!=", "<=", ">=", "~=" };
            std::string_view op;
            for (const auto candidate : two_char)
            {
                if (clause.substr(0, 2) == candidate)
                {
                    op = candidate;
                }
            }
            if (op.empty() &&
                (clause.front() == '<' || clause.front() == '>' || clause.front() == '='))
            {
                op = clause.substr(0, 1);
            }
            if (clause.size() > op.size() && is_operator_char(clause[op.size()]))
            {
                return {};
            }
            return op;
        }

        // The version after `op`: spaces may separate them, but a version holds none.
        auto read_operand(std::string_view clause, std::string_view op, std::size_t offset)
          -> std::optional<Operand>
        {
            std::size_t at = op.size();
            while (at < clause.size() && chars::is_space(clause[at]))
            {
                ++at;
            }
            const Operand operand{ clause.substr(at), offset + at };
            if (operand.text.empty())
            {
                fail(offset + op.size(), "expected a version after '" + std::string(op) + "'");
                return std::nullopt;
            }
            for (std::size_t i = 0; i < operand.text.size(); ++i)
            {
                if (chars::is_space(operand.text[i]))
                {
                    fail(operand.offset + i, "unexpected whitespace in a version; versions are "
                                             "joined by ',' (and) or '|' (or)");
                    return std::nullopt;
                }
            }
            return operand;
        }

        // `=V.*` and `=V*` start with V: strips the stars from the operand; true for `.*`.
        static auto strip_starts_with_star(std::string_view& operand) -> bool
        {
            if (ends_with(operand, ".*"))
            {
                operand.remove_suffix(2);
                return true;
            }
            if (operand.back() == '*' &&
                operand.substr(0, operand.find_last_not_of('*') + 1).find('*') ==
                  std::string_view::npos)
            {
                // As the bare `V*`: one '*' dropped (`=1.7*` is =1.7, `=1.7**` starts with
                // the version "1.7*", as conda's MatchSpec reads `pkg=1.7**`).
                operand.remove_suffix(1);
                operand = operand.substr(0, operand.find_last_not_of('.') + 1);
            }
            return false;
        }

        // ==, <, <=, > or >=.
        static auto comparison_operator(std::string_view op) -> VersionOperator
        {
            return op == "=="   ? VersionOperator::equal
                   : op == "<"  ? VersionOperator::less
                   : op == "<=" ? VersionOperator::less_equal
                   : op == ">"  ? VersionOperator::greater
                                : VersionOperator::greater_equal;
        }

        // A comparison compares whole versions, so a '.*' after its operand means nothing:
        // dropped, with a warning.
        void drop_ignored_star(std::string_view op, Operand& operand)
        {
            operand.text.remove_suffix(2);
            m_spec->m_warnings.push_back({ operand.offset + operand.text.size(), 2,
                                           "'.*' after '" + std::string(op) +
                                             "' is ignored: write '" + std::string(op) +
                                             std::string(operand.text) + "'" });
        }

        // `~=V` also needs V's prefix (`~=1.4` is >=1.4,1.*); false when it has none to give.
        auto set_compatible_prefix(VersionConstraint& constraint, const Version& version,
                                   const Operand& operand, std::size_t offset) -> bool
        {
            if (auto prefix = version.compatible_prefix())
            {
                constraint.prefix = std::make_shared<const Version>(std::move(*prefix));
                return true;
            }
            if (operand.text.find_first_not_of('*') == std::string_view::npos)
            {
                fail(operand.offset, "'~=' needs a version with at least two components, "
                                     "e.g. '~=1.4' (>=1.4,1.*)");
                return false;
            }
            // conda accepts `~=1` and fails when it compares (its prefix is empty); mamba,
            // behind conda's default solver, reads it as >=1. So do we.
            const std::string text(operand.text);
            m_spec->m_warnings.push_back(
              { offset, operand.offset + operand.text.size() - offset,
                "'~=" + text +
                  "' needs two components: conda's classic solver fails on it, mamba "
                  "(conda's default solver) reads it as '>=" +
                  text + "'; write '>=" + text + "'" });
            constraint.op = VersionOperator::greater_equal;
            return true;
        }

        void emit(const Tree& tree)
        {
            const std::size_t index = m_spec->m_nodes.size();
            m_spec->m_nodes.push_back({ tree.kind, 1, tree.leaf });
            for (const auto& child : tree.children)
            {
                emit(child);
            }
            m_spec->m_nodes[index].size =
              static_cast<std::uint32_t>(m_spec->m_nodes.size() - index);
        }

        std::string_view m_input;
        std::size_t m_pos = 0;
        VersionSpec* m_spec = nullptr;
        std::optional<util::ParseError> m_error;
    };

    // ---------------------------------------------------------------------------------------
    // VersionSpec
    // ---------------------------------------------------------------------------------------

    VersionSpec::VersionSpec() = default;

    auto VersionSpec::parse(std::string_view text) -> util::Result<VersionSpec, util::ParseError>
    {
        VersionSpecParser parser(text);
        return parser.run();
    }

    auto VersionSpec::evaluate(std::size_t node, const Version& version) const -> bool
    {
        const Node& current = m_nodes[node];
        if (current.kind == NodeKind::leaf)
        {
            return m_leaves[current.leaf].contains(version);
        }
        const bool all = current.kind == NodeKind::all_of;
        const std::size_t end = node + current.size;
        for (std::size_t child = node + 1; child < end; child += m_nodes[child].size)
        {
            if (evaluate(child, version) != all)
            {
                return !all;
            }
        }
        return all;
    }

    auto VersionSpec::contains(const Version& version) const -> bool
    {
        if (m_nodes.empty())
        {
            return !m_single || m_single->contains(version);
        }
        return evaluate(0, version);
    }

    auto VersionSpec::compute_free(std::size_t node) const -> bool
    {
        if (m_nodes.empty())
        {
            return !m_single || m_single->op == VersionOperator::any;
        }
        const Node& current = m_nodes[node];
        if (current.kind == NodeKind::leaf)
        {
            return m_leaves[current.leaf].op == VersionOperator::any;
        }
        const bool all = current.kind == NodeKind::all_of;
        const std::size_t end = node + current.size;
        for (std::size_t child = node + 1; child < end; child += m_nodes[child].size)
        {
            if (compute_free(child) != all)
            {
                return !all;
            }
        }
        return all;
    }

    auto VersionSpec::print(std::size_t node, bool inside_all_of) const -> std::string
    {
        if (m_nodes.empty())
        {
            return m_single ? m_single->to_string() : "*";
        }
        const Node& current = m_nodes[node];
        if (current.kind == NodeKind::leaf)
        {
            return m_leaves[current.leaf].to_string();
        }
        const bool all = current.kind == NodeKind::all_of;
        std::string out;
        const std::size_t end = node + current.size;
        for (std::size_t child = node + 1; child < end; child += m_nodes[child].size)
        {
            if (!out.empty())
            {
                out += all ? ',' : '|';
            }
            out += print(child, all);
        }
        return !all && inside_all_of ? "(" + out + ")" : out;
    }

    auto VersionSpec::to_string() const -> std::string
    {
        return print(0, false);
    }

    auto VersionSpec::exact_version() const -> const Version*
    {
        if (m_nodes.empty() && m_single && m_single->op == VersionOperator::equal)
        {
            return &m_single->version;
        }
        return nullptr;
    }

    auto operator==(const VersionSpec& a, const VersionSpec& b) -> bool
    {
        if (a.m_free || b.m_free)
        {
            return a.m_free == b.m_free; // `*`, `*,*` and `*|1.2` all match everything
        }
        if (a.m_nodes.size() != b.m_nodes.size() || a.m_leaves.size() != b.m_leaves.size() ||
            a.m_single.has_value() != b.m_single.has_value())
        {
            return false;
        }
        if (a.m_nodes.empty())
        {
            return *a.m_single == *b.m_single;
        }
        for (std::size_t i = 0; i < a.m_nodes.size(); ++i)
        {
            const auto& x = a.m_nodes[i];
            const auto& y = b.m_nodes[i];
            if (x.kind != y.kind || x.size != y.size)
            {
                return false;
            }
            if (x.kind == VersionSpec::NodeKind::leaf &&
                !(a.m_leaves[x.leaf] == b.m_leaves[y.leaf]))
            {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------
    // Satisfiability: each spec as a union of disjoint intervals of the CEP 33 order.
    // ---------------------------------------------------------------------------------------

    namespace
    {
        struct Bound
        {
            Version version;
            bool inclusive = true;
        };

        // nullopt bounds are -infinity (lower) and +infinity (upper).
        struct Interval
        {
            std::optional<Bound> lower;
            std::optional<Bound> upper;
        };

        struct VersionSet
        {
            std::vector<Interval> intervals; // sorted, disjoint, none empty
            bool exact = true;               // false: a superset of the true set
        };

        // Orders lower bounds: -infinity first; at the same version, inclusive first.
        auto lower_before(const std::optional<Bound>& a, const std::optional<Bound>& b) -> bool
        {
            if (!a || !b)
            {
                return !a && b;
            }
            const auto c = a->version <=> b->version;
            if (c != 0)
            {
                return c < 0;
            }
            return a->inclusive && !b->inclusive;
        }

        // Orders upper bounds: +infinity last; at the same version, exclusive first.
        auto upper_before(const std::optional<Bound>& a, const std::optional<Bound>& b) -> bool
        {
            if (!a || !b)
            {
                return a && !b;
            }
            const auto c = a->version <=> b->version;
            if (c != 0)
            {
                return c < 0;
            }
            return !a->inclusive && b->inclusive;
        }

        auto is_empty(const Interval& interval) -> bool
        {
            if (!interval.lower || !interval.upper)
            {
                return false;
            }
            const auto c = interval.lower->version <=> interval.upper->version;
            if (c != 0)
            {
                return c > 0;
            }
            return !(interval.lower->inclusive && interval.upper->inclusive);
        }

        void normalize(std::vector<Interval>& intervals)
        {
            std::sort(intervals.begin(), intervals.end(),
                      [](const Interval& a, const Interval& b)
                      { return lower_before(a.lower, b.lower); });
            std::vector<Interval> merged;
            for (auto& interval : intervals)
            {
                if (!merged.empty())
                {
                    Interval& last = merged.back();
                    bool joins = !last.upper || !interval.lower;
                    if (!joins)
                    {
                        const auto c = interval.lower->version <=> last.upper->version;
                        joins =
                          c < 0 || (c == 0 && (interval.lower->inclusive || last.upper->inclusive));
                    }
                    if (joins)
                    {
                        if (upper_before(last.upper, interval.upper))
                        {
                            last.upper = std::move(interval.upper);
                        }
                        continue;
                    }
                }
                merged.push_back(std::move(interval));
            }
            intervals = std::move(merged);
        }

        auto full(bool exact) -> VersionSet
        {
            return VersionSet{ { Interval{} }, exact };
        }

        auto intersect(const VersionSet& a, const VersionSet& b) -> VersionSet
        {
            VersionSet out;
            out.exact = a.exact && b.exact;
            for (const auto& x : a.intervals)
            {
                for (const auto& y : b.intervals)
                {
                    Interval both{ lower_before(x.lower, y.lower) ? y.lower : x.lower,
                                   upper_before(x.upper, y.upper) ? x.upper : y.upper };
                    if (!is_empty(both))
                    {
                        out.intervals.push_back(std::move(both));
                    }
                }
            }
            normalize(out.intervals);
            return out;
        }

        auto unite(const VersionSet& a, const VersionSet& b) -> VersionSet
        {
            VersionSet out;
            out.exact = a.exact && b.exact;
            out.intervals = a.intervals;
            out.intervals.insert(out.intervals.end(), b.intervals.begin(), b.intervals.end());
            normalize(out.intervals);
            return out;
        }

        auto below(const Version& v, bool inclusive) -> Interval
        {
            return Interval{ std::nullopt, Bound{ v, inclusive } };
        }

        auto above(const Version& v, bool inclusive) -> Interval
        {
            return Interval{ Bound{ v, inclusive }, std::nullopt };
        }

        // The versions starting with `prefix`: [prefix*, next*) when the prefix ends with a
        // number; otherwise nullopt.
        auto prefix_range(const Version& prefix) -> std::optional<std::pair<Version, Version>>
        {
            auto floor = prefix.prefix_floor();
            auto ceiling = prefix.next_prefix_bound();
            if (!floor || !ceiling)
            {
                return std::nullopt;
            }
            return std::pair{ std::move(*floor), std::move(*ceiling) };
        }

        auto constraint_set(const VersionConstraint& constraint) -> VersionSet
        {
            const Version& v = constraint.version;
            switch (constraint.op)
            {
                case VersionOperator::any:
                    return full(true);
                case VersionOperator::equal:
                    return VersionSet{ { Interval{ Bound{ v, true }, Bound{ v, true } } }, true };
                case VersionOperator::not_equal:
                    return VersionSet{ { below(v, false), above(v, false) }, true };
                case VersionOperator::less:
                    return VersionSet{ { below(v, false) }, true };
                case VersionOperator::less_equal:
                    return VersionSet{ { below(v, true) }, true };
                case VersionOperator::greater:
                    return VersionSet{ { above(v, false) }, true };
                case VersionOperator::greater_equal:
                    return VersionSet{ { above(v, true) }, true };
                case VersionOperator::starts_with:
                {
                    auto range = prefix_range(v);
                    if (!range)
                    {
                        return full(false);
                    }
                    return VersionSet{ { Interval{ Bound{ range->first, true },
                                                   Bound{ range->second, false } } },
                                       true };
                }
                case VersionOperator::not_starts_with:
                {
                    auto range = prefix_range(v);
                    if (!range)
                    {
                        return full(false);
                    }
                    return VersionSet{ { below(range->first, false), above(range->second, true) },
                                       true };
                }
                case VersionOperator::compatible:
                {
                    const VersionSet at_least{ { above(v, true) }, true };
                    auto range = prefix_range(*constraint.prefix);
                    if (!range)
                    {
                        return VersionSet{ at_least.intervals, false };
                    }
                    return intersect(at_least,
                                     VersionSet{ { Interval{ Bound{ range->first, true },
                                                             Bound{ range->second, false } } },
                                                 true });
                }
                case VersionOperator::glob:
                case VersionOperator::regex:
                    return full(false);
            }
            return full(false);
        }

        auto verdict(const VersionSet& set) -> Satisfiability
        {
            if (set.intervals.empty())
            {
                return Satisfiability::unsatisfiable;
            }
            return set.exact ? Satisfiability::satisfiable : Satisfiability::unknown;
        }
    }

    class VersionSetBuilder
    {
    public:
        static auto build(const VersionSpec& spec, std::size_t node) -> VersionSet
        {
            if (spec.m_nodes.empty())
            {
                return spec.m_single ? constraint_set(*spec.m_single) : full(true);
            }
            const auto& current = spec.m_nodes[node];
            if (current.kind == VersionSpec::NodeKind::leaf)
            {
                return constraint_set(spec.m_leaves[current.leaf]);
            }
            const bool all = current.kind == VersionSpec::NodeKind::all_of;
            std::optional<VersionSet> result;
            const std::size_t end = node + current.size;
            for (std::size_t child = node + 1; child < end; child += spec.m_nodes[child].size)
            {
                VersionSet set = build(spec, child);
                result = !result ? std::move(set)
                         : all   ? intersect(*result, set)
                                 : unite(*result, set);
            }
            return result ? std::move(*result) : full(true);
        }
    };

    auto VersionSpec::satisfiability() const -> Satisfiability
    {
        return verdict(VersionSetBuilder::build(*this, 0));
    }

    auto VersionSpec::intersects(const VersionSpec& other) const -> Satisfiability
    {
        return verdict(
          intersect(VersionSetBuilder::build(*this, 0), VersionSetBuilder::build(other, 0)));
    }

    auto satisfiability_of(std::span<const VersionSpec> specs) -> Satisfiability
    {
        VersionSet set = full(true);
        for (const auto& spec : specs)
        {
            set = intersect(set, VersionSetBuilder::build(spec, 0));
        }
        return verdict(set);
    }
}
