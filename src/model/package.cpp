#include "model/package.hpp"

#include "util/strings.hpp"

namespace envcheck::model
{
    auto to_string(Manager manager) -> std::string_view
    {
        return manager == Manager::conda ? "conda" : "pip";
    }

    auto parse_manager(std::string_view text) -> std::optional<Manager>
    {
        if (text == "conda")
        {
            return Manager::conda;
        }
        if (text == "pip" || text == "pypi")
        {
            return Manager::pip;
        }
        return std::nullopt;
    }

    auto package_key(Manager manager, std::string_view name) -> std::string
    {
        std::string key;
        key.reserve(name.size() + 6);
        key += manager == Manager::conda ? "conda:" : "pip:";
        if (manager == Manager::conda)
        {
            key += util::to_lower(name);
            return key;
        }
        bool in_separator_run = false;
        for (const char c : name)
        {
            if (c == '-' || c == '_' || c == '.')
            {
                if (!in_separator_run)
                {
                    key += '-';
                }
                in_separator_run = true;
                continue;
            }
            in_separator_run = false;
            key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        }
        return key;
    }

    auto package_key(const Package& package) -> std::string
    {
        return package_key(package.manager, package.name);
    }
}
