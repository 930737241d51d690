#include "specs/string_matcher.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace envcheck::specs
{
    auto to_string(StringMatcher::Kind kind) -> std::string_view
    {
        switch (kind)
        {
            case StringMatcher::Kind::any:
                return "any";
            case StringMatcher::Kind::exact:
                return "exact";
            case StringMatcher::Kind::glob:
                return "glob";
            case StringMatcher::Kind::regex:
                return "regex";
        }
        return "any";
    }

    auto StringMatcher::parse(std::string_view pattern)
      -> util::Result<StringMatcher, util::ParseError>
    {
        if (pattern.empty())
        {
            return util::unexpected(
              util::ParseError{ std::string(pattern), 0, "expected a value" });
        }
        StringMatcher matcher;
        matcher.m_text = std::string(pattern);
        if (pattern.front() == '^' && pattern.back() == '$')
        {
            auto regex = Regex::compile(pattern, /*case_insensitive=*/true);
            if (!regex)
            {
                return util::unexpected(std::move(regex).error());
            }
            matcher.m_kind = Kind::regex;
            matcher.m_regex = std::make_shared<const Regex>(std::move(regex).value());
        }
        else if (std::all_of(pattern.begin(), pattern.end(), [](char c) { return c == '*'; }))
        {
            matcher.m_kind = Kind::any;
            matcher.m_text.assign(1, '*');
        }
        else if (pattern.find('*') != std::string_view::npos)
        {
            matcher.m_kind = Kind::glob;
        }
        else
        {
            matcher.m_kind = Kind::exact;
        }
        return matcher;
    }

    auto StringMatcher::matches(std::string_view value) const -> bool
    {
        switch (m_kind)
        {
            case Kind::any:
                return true;
            case Kind::exact:
                return util::iequals(m_text, value);
            case Kind::glob:
                return util::glob_match(m_text, value, /*case_insensitive=*/true);
            case Kind::regex:
                return m_regex->matches(value);
        }
        return false;
    }

    auto operator==(const StringMatcher& a, const StringMatcher& b) -> bool
    {
        return a.m_kind == b.m_kind && util::iequals(a.m_text, b.m_text);
    }
}
