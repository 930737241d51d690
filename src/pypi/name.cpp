#include "pypi/name.hpp"

#include "pypi/text.hpp"

namespace envcheck::pypi
{
    namespace
    {
        constexpr auto is_name_separator(char c) -> bool
        {
            return c == '-' || c == '_' || c == '.';
        }
    }

    auto normalize_name(std::string_view name) -> std::string
    {
        std::string out;
        out.reserve(name.size());
        bool in_separator_run = false;
        for (const char c : name)
        {
            if (is_name_separator(c))
            {
                if (!in_separator_run)
                {
                    out += '-';
                }
                in_separator_run = true;
            }
            else
            {
                out += detail::to_lower(c);
                in_separator_run = false;
            }
        }
        return out;
    }

    auto is_valid_name(std::string_view name) -> bool
    {
        if (name.empty() || !detail::is_alnum(name.front()) || !detail::is_alnum(name.back()))
        {
            return false;
        }
        for (const char c : name)
        {
            if (!detail::is_alnum(c) && !is_name_separator(c))
            {
                return false;
            }
        }
        return true;
    }

    auto is_normalized_name(std::string_view name) -> bool
    {
        return is_valid_name(name) && normalize_name(name) == name;
    }
}
