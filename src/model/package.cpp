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
}
