#include "model/package.hpp"

#include "pypi/name.hpp"
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
        // conda names compare case-insensitively; pip names by PEP 503 normalization.
        return manager == Manager::conda ? "conda:" + util::to_lower(name)
                                         : "pip:" + pypi::normalize_name(name);
    }

    auto package_key(const Package& package) -> std::string
    {
        return package_key(package.manager, package.name);
    }

    auto package_key_less(const Package& a, const Package& b) -> bool
    {
        // "conda:" sorts before "pip:", and every key of one manager shares its prefix.
        const bool a_pip = a.manager != Manager::conda;
        const bool b_pip = b.manager != Manager::conda;
        if (a_pip != b_pip)
        {
            return b_pip;
        }
        return (a_pip ? pypi::compare_normalized(a.name, b.name)
                      : util::compare_lowercase(a.name, b.name)) < 0;
    }
}
