#include "pypi/marker.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "pypi/lexer.hpp"
#include "pypi/name.hpp"
#include "pypi/specifier.hpp"
#include "pypi/text.hpp"

namespace envcheck::pypi
{
    namespace
    {
        struct VariableSpelling
        {
            std::string_view text;
            MarkerVariable variable;
        };
        // Every spelling packaging's VARIABLE token accepts; the first of each is canonical.
        constexpr std::array<VariableSpelling, 20> variable_spellings = { {
          { "implementation_name", MarkerVariable::implementation_name },
          { "implementation_version", MarkerVariable::implementation_version },
          { "os_name", MarkerVariable::os_name },
          { "platform_machine", MarkerVariable::platform_machine },
          { "platform_python_implementation", MarkerVariable::platform_python_implementation },
          { "platform_release", MarkerVariable::platform_release },
          { "platform_system", MarkerVariable::platform_system },
          { "platform_version", MarkerVariable::platform_version },
          { "python_full_version", MarkerVariable::python_full_version },
          { "python_version", MarkerVariable::python_version },
          { "sys_platform", MarkerVariable::sys_platform },
          { "extra", MarkerVariable::extra },
          { "extras", MarkerVariable::extras },
          { "dependency_groups", MarkerVariable::dependency_groups },
          { "os.name", MarkerVariable::os_name },
          { "sys.platform", MarkerVariable::sys_platform },
          { "platform.version", MarkerVariable::platform_version },
          { "platform.machine", MarkerVariable::platform_machine },
          { "platform.python_implementation", MarkerVariable::platform_python_implementation },
          { "python_implementation", MarkerVariable::platform_python_implementation },
        } };

        struct OperatorSpelling
        {
            std::string_view text;
            MarkerOperator op;
        };
        constexpr std::array<OperatorSpelling, 10> operator_spellings = { {
          { "===", MarkerOperator::arbitrary_equal },
          { "==", MarkerOperator::equal },
          { "~=", MarkerOperator::compatible },
          { "!=", MarkerOperator::not_equal },
          { "<=", MarkerOperator::less_equal },
          { ">=", MarkerOperator::greater_equal },
          { "<", MarkerOperator::less },
          { ">", MarkerOperator::greater },
          { "in", MarkerOperator::in },
          { "not in", MarkerOperator::not_in },
        } };

        constexpr std::size_t max_nesting = 200; // packaging's (and CPython's) limit

        auto is_version_variable(MarkerVariable variable) -> bool
        {
            return variable == MarkerVariable::implementation_version ||
                   variable == MarkerVariable::platform_release ||
                   variable == MarkerVariable::python_full_version ||
                   variable == MarkerVariable::python_version;
        }

        auto is_set_variable(MarkerVariable variable) -> bool
        {
            return variable == MarkerVariable::extras ||
                   variable == MarkerVariable::dependency_groups;
        }

        class MarkerParser
        {
        public:
            explicit MarkerParser(detail::Lexer& lexer)
              : m_lexer(lexer)
            {
            }

            auto expression(std::size_t depth) -> util::Result<MarkerExpression, util::ParseError>
            {
                if (depth > max_nesting)
                {
                    return util::unexpected(m_lexer.error("markers nested too deeply"));
                }
                MarkerExpression expr;
                auto first = term(depth);
                if (!first)
                {
                    return util::unexpected(first.error());
                }
                expr.terms.push_back(std::move(*first));
                while (true)
                {
                    MarkerJoin join = MarkerJoin::and_;
                    if (m_lexer.take_word("and"))
                    {
                        join = MarkerJoin::and_;
                    }
                    else if (m_lexer.take_word("or"))
                    {
                        join = MarkerJoin::or_;
                    }
                    else
                    {
                        break;
                    }
                    auto next = term(depth);
                    if (!next)
                    {
                        return util::unexpected(next.error());
                    }
                    expr.joins.push_back(join);
                    expr.terms.push_back(std::move(*next));
                }
                return expr;
            }

        private:
            detail::Lexer& m_lexer;

            auto term(std::size_t depth) -> util::Result<MarkerTerm, util::ParseError>
            {
                m_lexer.skip_ws();
                MarkerTerm result;
                if (m_lexer.peek() == '(')
                {
                    const std::size_t open = m_lexer.pos();
                    m_lexer.take('(');
                    m_lexer.skip_ws();
                    auto inner = expression(depth + 1);
                    if (!inner)
                    {
                        return util::unexpected(inner.error());
                    }
                    m_lexer.skip_ws();
                    if (!m_lexer.take(')'))
                    {
                        return util::unexpected(m_lexer.error(
                          "expected ')' to close the '(' at column " + std::to_string(open + 1)));
                    }
                    result.value = std::move(*inner);
                }
                else
                {
                    auto item = comparison();
                    if (!item)
                    {
                        return util::unexpected(item.error());
                    }
                    result.value = std::move(*item);
                }
                m_lexer.skip_ws();
                return result;
            }

            auto comparison() -> util::Result<MarkerComparison, util::ParseError>
            {
                MarkerComparison item;
                item.offset = m_lexer.pos();
                auto lhs = operand();
                if (!lhs)
                {
                    return util::unexpected(lhs.error());
                }
                m_lexer.skip_ws();
                auto op = marker_operator();
                if (!op)
                {
                    return util::unexpected(op.error());
                }
                m_lexer.skip_ws();
                auto rhs = operand();
                if (!rhs)
                {
                    return util::unexpected(rhs.error());
                }
                item.lhs = std::move(*lhs);
                item.op = *op;
                item.rhs = std::move(*rhs);
                // PEP 685: extra names compare normalized.
                if (item.lhs.variable == MarkerVariable::extra && !item.rhs.is_variable())
                {
                    item.rhs.literal = normalize_name(item.rhs.literal);
                }
                else if (item.rhs.variable == MarkerVariable::extra && !item.lhs.is_variable())
                {
                    item.lhs.literal = normalize_name(item.lhs.literal);
                }
                return item;
            }

            auto operand() -> util::Result<MarkerOperand, util::ParseError>
            {
                for (const auto& spelling : variable_spellings)
                {
                    if (m_lexer.take_word(spelling.text))
                    {
                        return MarkerOperand{ spelling.variable, {} };
                    }
                }
                const char c = m_lexer.peek();
                if (c == '\'' || c == '"')
                {
                    const std::size_t start = m_lexer.pos();
                    if (const auto quoted = m_lexer.take_quoted())
                    {
                        return MarkerOperand{ std::nullopt, std::string(*quoted) };
                    }
                    return util::unexpected(m_lexer.error_at(start, "unterminated quoted string"));
                }
                return util::unexpected(m_lexer.error("expected a marker variable (python_version, "
                                                      "sys_platform, ...) or a quoted string"));
            }

            auto marker_operator() -> util::Result<MarkerOperator, util::ParseError>
            {
                if (m_lexer.take_word("in"))
                {
                    return MarkerOperator::in;
                }
                if (m_lexer.take_word("not"))
                {
                    if (!m_lexer.skip_ws())
                    {
                        return util::unexpected(m_lexer.error("expected whitespace after 'not'"));
                    }
                    if (!m_lexer.take_word("in"))
                    {
                        return util::unexpected(m_lexer.error("expected 'in' after 'not'"));
                    }
                    return MarkerOperator::not_in;
                }
                for (const auto& spelling : operator_spellings)
                {
                    if (spelling.op == MarkerOperator::in || spelling.op == MarkerOperator::not_in)
                    {
                        continue;
                    }
                    if (m_lexer.text().substr(m_lexer.pos(), spelling.text.size()) == spelling.text)
                    {
                        m_lexer.reset(m_lexer.pos() + spelling.text.size());
                        return spelling.op;
                    }
                }
                return util::unexpected(m_lexer.error(
                  "expected a marker operator: one of <=, <, !=, ==, >=, >, ~=, ===, in, not in"));
            }
        };

        void rebase_offsets(MarkerExpression& expr, std::size_t start)
        {
            for (auto& t : expr.terms)
            {
                if (auto* item = std::get_if<MarkerComparison>(&t.value))
                {
                    item->offset -= start;
                }
                else
                {
                    rebase_offsets(std::get<MarkerExpression>(t.value), start);
                }
            }
        }

        auto format_operand(const MarkerOperand& operand) -> std::string
        {
            if (operand.variable)
            {
                return std::string(to_string(*operand.variable));
            }
            const char quote = operand.literal.find('"') == std::string::npos ? '"' : '\'';
            return quote + operand.literal + quote;
        }

        auto format_expression(const MarkerExpression& expr, bool top) -> std::string;

        auto format_term(const MarkerTerm& t, bool top) -> std::string
        {
            if (const auto* item = std::get_if<MarkerComparison>(&t.value))
            {
                return format_operand(item->lhs) + " " + std::string(to_string(item->op)) + " " +
                       format_operand(item->rhs);
            }
            return format_expression(std::get<MarkerExpression>(t.value), top);
        }

        // Parentheses only where a group joins two or more terms; redundant ones are dropped.
        auto format_expression(const MarkerExpression& expr, bool top) -> std::string
        {
            if (expr.terms.size() == 1)
            {
                return format_term(expr.terms.front(), top);
            }
            std::string out;
            for (std::size_t i = 0; i < expr.terms.size(); ++i)
            {
                if (i != 0)
                {
                    out += expr.joins[i - 1] == MarkerJoin::and_ ? " and " : " or ";
                }
                out += format_term(expr.terms[i], false);
            }
            return top ? out : "(" + out + ")";
        }

        // What an operand stands for during evaluation.
        struct Resolved
        {
            std::string text;
            std::vector<std::string> set;
            bool is_set = false;
        };

        class Evaluator
        {
        public:
            Evaluator(const MarkerEnvironment& environment, const std::string& marker_text)
              : m_env(environment)
              , m_text(marker_text)
            {
            }

            auto expression(const MarkerExpression& expr) -> util::Result<bool, util::ParseError>
            {
                // Every term is evaluated (no short circuit), so that an undefined comparison is
                // reported wherever it is, as packaging does.
                bool any_group = false;
                bool group = true;
                for (std::size_t i = 0; i < expr.terms.size(); ++i)
                {
                    if (i != 0 && expr.joins[i - 1] == MarkerJoin::or_)
                    {
                        any_group = any_group || group;
                        group = true;
                    }
                    auto value = term(expr.terms[i]);
                    if (!value)
                    {
                        return util::unexpected(value.error());
                    }
                    group = group && *value;
                }
                return any_group || group;
            }

        private:
            const MarkerEnvironment& m_env;
            const std::string& m_text;

            auto error(const MarkerComparison& item, std::string message) const
              -> util::Unexpected<util::ParseError>
            {
                return util::unexpected(
                  util::ParseError{ m_text, item.offset, std::move(message) });
            }

            auto term(const MarkerTerm& t) -> util::Result<bool, util::ParseError>
            {
                if (const auto* item = std::get_if<MarkerComparison>(&t.value))
                {
                    return compare(*item);
                }
                return expression(std::get<MarkerExpression>(t.value));
            }

            auto lookup(MarkerVariable variable) const -> Resolved
            {
                Resolved out;
                if (is_set_variable(variable))
                {
                    const auto& values =
                      variable == MarkerVariable::extras ? m_env.extras : m_env.dependency_groups;
                    out.is_set = true;
                    for (const auto& v : values)
                    {
                        out.set.push_back(normalize_name(v));
                    }
                    return out;
                }
                out.text = std::string(m_env.value(variable));
                return out;
            }

            auto compare(const MarkerComparison& item) -> util::Result<bool, util::ParseError>
            {
                // The variable's side is looked up; packaging reads the other side as written.
                MarkerVariable key{};
                std::string lhs;
                Resolved rhs;
                if (item.lhs.variable)
                {
                    key = *item.lhs.variable;
                    if (is_set_variable(key))
                    {
                        return error(item, std::string(to_string(key)) +
                                             " is a set: use it on the right of 'in' or 'not in'");
                    }
                    lhs = lookup(key).text;
                    rhs.text = item.rhs.variable ? std::string(to_string(*item.rhs.variable))
                                                 : item.rhs.literal;
                }
                else
                {
                    lhs = item.lhs.literal;
                    std::optional<MarkerVariable> rhs_key = item.rhs.variable;
                    if (!rhs_key)
                    {
                        rhs_key = parse_marker_variable(item.rhs.literal);
                        if (!rhs_key || to_string(*rhs_key) != item.rhs.literal)
                        {
                            return error(item, "'" + item.rhs.literal +
                                                 "' is not a marker variable: one side of a "
                                                 "comparison must be a variable");
                        }
                    }
                    key = *rhs_key;
                    rhs = lookup(key);
                }
                if (rhs.is_set)
                {
                    const std::string needle = normalize_name(lhs);
                    const bool member =
                      std::find(rhs.set.begin(), rhs.set.end(), needle) != rhs.set.end();
                    return set_compare(item, member);
                }
                if (is_version_variable(key))
                {
                    const std::string spec_text = std::string(to_string(item.op)) + rhs.text;
                    if (item.op != MarkerOperator::in && item.op != MarkerOperator::not_in)
                    {
                        if (auto spec = Specifier::parse(spec_text))
                        {
                            return spec->contains(std::string_view(lhs), true);
                        }
                    }
                }
                return string_compare(item, lhs, rhs.text);
            }

            auto set_compare(const MarkerComparison& item, bool member)
              -> util::Result<bool, util::ParseError>
            {
                switch (item.op)
                {
                    case MarkerOperator::in:
                        return member;
                    case MarkerOperator::not_in:
                        return !member;
                    case MarkerOperator::not_equal:
                        return true; // a string never equals a set
                    case MarkerOperator::compatible:
                    case MarkerOperator::arbitrary_equal:
                        return error(item, "undefined comparison '" +
                                             std::string(to_string(item.op)) +
                                             "' between a string and a set");
                    default:
                        return false;
                }
            }

            auto string_compare(const MarkerComparison& item, const std::string& lhs,
                                const std::string& rhs) -> util::Result<bool, util::ParseError>
            {
                switch (item.op)
                {
                    case MarkerOperator::in:
                        return rhs.find(lhs) != std::string::npos;
                    case MarkerOperator::not_in:
                        return rhs.find(lhs) == std::string::npos;
                    case MarkerOperator::equal:
                    case MarkerOperator::less_equal:
                    case MarkerOperator::greater_equal:
                        return lhs == rhs;
                    case MarkerOperator::not_equal:
                        return lhs != rhs;
                    case MarkerOperator::less:
                    case MarkerOperator::greater:
                        return false;
                    case MarkerOperator::compatible:
                    case MarkerOperator::arbitrary_equal:
                        break;
                }
                return error(item, "undefined comparison '" + std::string(to_string(item.op)) +
                                     "' on '" + lhs + "' and '" + rhs + "': not versions");
            }
        };
    }

    auto to_string(MarkerVariable variable) -> std::string_view
    {
        for (const auto& spelling : variable_spellings)
        {
            if (spelling.variable == variable)
            {
                return spelling.text;
            }
        }
        return "python_version";
    }

    auto parse_marker_variable(std::string_view text) -> std::optional<MarkerVariable>
    {
        for (const auto& spelling : variable_spellings)
        {
            if (spelling.text == text)
            {
                return spelling.variable;
            }
        }
        return std::nullopt;
    }

    auto to_string(MarkerOperator op) -> std::string_view
    {
        for (const auto& spelling : operator_spellings)
        {
            if (spelling.op == op)
            {
                return spelling.text;
            }
        }
        return "==";
    }

    auto MarkerEnvironment::value(MarkerVariable variable) const -> std::string_view
    {
        switch (variable)
        {
            case MarkerVariable::implementation_name:
                return implementation_name;
            case MarkerVariable::implementation_version:
                return implementation_version;
            case MarkerVariable::os_name:
                return os_name;
            case MarkerVariable::platform_machine:
                return platform_machine;
            case MarkerVariable::platform_python_implementation:
                return platform_python_implementation;
            case MarkerVariable::platform_release:
                return platform_release;
            case MarkerVariable::platform_system:
                return platform_system;
            case MarkerVariable::platform_version:
                return platform_version;
            case MarkerVariable::python_full_version:
                return python_full_version;
            case MarkerVariable::python_version:
                return python_version;
            case MarkerVariable::sys_platform:
                return sys_platform;
            case MarkerVariable::extra:
                return extra;
            case MarkerVariable::extras:
            case MarkerVariable::dependency_groups:
                break;
        }
        return {};
    }

    auto marker_environment_for(std::string_view conda_subdir, std::string_view python_version)
      -> std::optional<MarkerEnvironment>
    {
        struct Platform
        {
            std::string_view subdir;
            std::string_view machine;
        };
        static constexpr std::array<Platform, 11> platforms = { {
          { "linux-64", "x86_64" },
          { "linux-aarch64", "aarch64" },
          { "linux-ppc64le", "ppc64le" },
          { "linux-s390x", "s390x" },
          { "linux-armv7l", "armv7l" },
          { "linux-32", "i686" },
          { "osx-64", "x86_64" },
          { "osx-arm64", "arm64" },
          { "win-64", "AMD64" },
          { "win-32", "x86" },
          { "win-arm64", "ARM64" },
        } };
        const auto* found =
          std::find_if(platforms.begin(), platforms.end(),
                       [&](const Platform& p) { return p.subdir == conda_subdir; });
        if (found == platforms.end())
        {
            return std::nullopt;
        }
        MarkerEnvironment env;
        const std::string_view os = conda_subdir.substr(0, conda_subdir.find('-'));
        if (os == "linux")
        {
            env.os_name = "posix";
            env.sys_platform = "linux";
            env.platform_system = "Linux";
        }
        else if (os == "osx")
        {
            env.os_name = "posix";
            env.sys_platform = "darwin";
            env.platform_system = "Darwin";
        }
        else
        {
            env.os_name = "nt";
            env.sys_platform = "win32";
            env.platform_system = "Windows";
        }
        env.platform_machine = std::string(found->machine);
        env.implementation_name = "cpython";
        env.platform_python_implementation = "CPython";
        env.python_full_version = std::string(python_version);
        env.implementation_version = std::string(python_version);
        const std::size_t first_dot = python_version.find('.');
        const std::size_t second_dot =
          first_dot == std::string_view::npos ? first_dot : python_version.find('.', first_dot + 1);
        env.python_version = std::string(python_version.substr(0, second_dot));
        return env;
    }

    auto parse_marker_at(std::string_view text, std::size_t& pos)
      -> util::Result<Marker, util::ParseError>
    {
        detail::Lexer lexer(text, pos);
        MarkerParser parser(lexer);
        auto expr = parser.expression(0);
        if (!expr)
        {
            return util::unexpected(expr.error());
        }
        const std::size_t start = pos;
        pos = lexer.pos();
        Marker marker;
        marker.m_expression = std::move(*expr);
        marker.m_text = std::string(text.substr(start, pos - start));
        rebase_offsets(marker.m_expression, start);
        return marker;
    }

    auto Marker::parse(std::string_view text) -> util::Result<Marker, util::ParseError>
    {
        std::size_t pos = 0;
        auto marker = parse_marker_at(text, pos);
        if (!marker)
        {
            return marker;
        }
        if (pos != text.size())
        {
            return util::unexpected(util::ParseError{
              std::string(text), pos, "expected 'and', 'or' or the end of the marker" });
        }
        return marker;
    }

    auto Marker::evaluate(const MarkerEnvironment& environment) const
      -> util::Result<bool, util::ParseError>
    {
        MarkerEnvironment env = environment;
        env.extra = env.extra.empty() ? std::string() : normalize_name(env.extra);
        // platform.python_version() of an untagged build ends in '+', which is not PEP 440.
        if (!env.python_full_version.empty() && env.python_full_version.back() == '+')
        {
            env.python_full_version += "local";
        }
        Evaluator evaluator(env, m_text);
        return evaluator.expression(m_expression);
    }

    auto Marker::to_string() const -> std::string
    {
        return format_expression(m_expression, true);
    }
}
