#include "specs/build_number_spec.hpp"

#include "specs/chars.hpp"
#include "util/strings.hpp"

namespace envcheck::specs
{
    auto BuildNumberSpec::parse(std::string_view text)
      -> util::Result<BuildNumberSpec, util::ParseError>
    {
        auto fail = [&](std::size_t offset, std::string message) {
            return util::unexpected(
              util::ParseError{ std::string(text), offset, std::move(message) });
        };

        BuildNumberSpec spec;
        const auto first = text.find_first_not_of(util::whitespace);
        if (first == std::string_view::npos)
        {
            return spec;
        }
        const std::string_view trimmed = util::trim(text);
        if (trimmed == "*" || trimmed == "=*")
        {
            return spec;
        }
        if (trimmed.front() == '^' && trimmed.back() == '$' && trimmed.size() > 1)
        {
            auto regex = Regex::compile(trimmed);
            if (!regex)
            {
                return fail(first + regex.error().offset, regex.error().message);
            }
            spec.m_op = Operator::regex;
            spec.m_regex = std::make_shared<const Regex>(std::move(regex).value());
            return spec;
        }
        static constexpr std::pair<std::string_view, Operator> operators[] = {
            { "==", Operator::equal },      { "!=", Operator::not_equal },
            { "<=", Operator::less_equal }, { ">=", Operator::greater_equal },
            { "<", Operator::less },        { ">", Operator::greater },
            { "=", Operator::equal },
        };
        std::size_t at = 0;
        spec.m_op = Operator::equal;
        for (const auto& [token, op] : operators)
        {
            if (trimmed.substr(0, token.size()) == token)
            {
                spec.m_op = op;
                at = token.size();
                break;
            }
        }
        while (at < trimmed.size() && chars::is_space(trimmed[at]))
        {
            ++at;
        }
        const std::string_view digits = trimmed.substr(at);
        const auto value = util::parse_uint(digits);
        if (!value)
        {
            const std::size_t offset = first + at;
            if (digits.empty())
            {
                return fail(offset, "expected a build number after '" +
                                      std::string(trimmed.substr(0, at)) + "'");
            }
            return fail(offset, "expected a build number (a non-negative integer), found '" +
                                  std::string(digits) + "'");
        }
        spec.m_value = *value;
        return spec;
    }

    auto BuildNumberSpec::contains(std::uint64_t build_number) const -> bool
    {
        switch (m_op)
        {
            case Operator::any:
                return true;
            case Operator::equal:
                return build_number == m_value;
            case Operator::not_equal:
                return build_number != m_value;
            case Operator::less:
                return build_number < m_value;
            case Operator::less_equal:
                return build_number <= m_value;
            case Operator::greater:
                return build_number > m_value;
            case Operator::greater_equal:
                return build_number >= m_value;
            case Operator::regex:
                return m_regex->matches(std::to_string(build_number));
        }
        return false;
    }

    auto BuildNumberSpec::to_string() const -> std::string
    {
        const std::string value = std::to_string(m_value);
        switch (m_op)
        {
            case Operator::any:
                return "*";
            case Operator::equal:
                return value;
            case Operator::not_equal:
                return "!=" + value;
            case Operator::less:
                return "<" + value;
            case Operator::less_equal:
                return "<=" + value;
            case Operator::greater:
                return ">" + value;
            case Operator::greater_equal:
                return ">=" + value;
            case Operator::regex:
                return m_regex->pattern();
        }
        return "*";
    }

    auto operator==(const BuildNumberSpec& a, const BuildNumberSpec& b) -> bool
    {
        if (a.m_op != b.m_op)
        {
            return false;
        }
        if (a.m_op == BuildNumberSpec::Operator::regex)
        {
            return a.m_regex->pattern() == b.m_regex->pattern();
        }
        return a.m_op == BuildNumberSpec::Operator::any || a.m_value == b.m_value;
    }
}
