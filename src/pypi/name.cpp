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

    auto compare_normalized(std::string_view a, std::string_view b) -> std::strong_ordering
    {
        // The next character normalize_name writes for `name` from `at`, or -1 at its end.
        const auto next = [](std::string_view name, std::size_t& at) -> int
        {
            if (at >= name.size())
            {
                return -1;
            }
            if (!is_name_separator(name[at]))
            {
                return static_cast<unsigned char>(detail::to_lower(name[at++]));
            }
            while (at < name.size() && is_name_separator(name[at]))
            {
                ++at;
            }
            return '-';
        };
        std::size_t in_a = 0;
        std::size_t in_b = 0;
        while (true)
        {
            const int x = next(a, in_a);
            const int y = next(b, in_b);
            if (x != y || x < 0)
            {
                return x <=> y;
            }
        }
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
