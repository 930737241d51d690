#include "report/registry_list.hpp"

#include <algorithm>

namespace envcheck::report
{
    auto render_doctor_check_list(const std::vector<RegistryRow>& checks) -> std::string
    {
        std::size_t width = 0;
        for (const auto& check : checks)
        {
            width = std::max(width, check.id.size());
        }
        std::string out;
        for (const auto& check : checks)
        {
            out +=
              check.id + std::string(width - check.id.size() + 2, ' ') + check.description + '\n';
        }
        return out;
    }

    auto render_probe_list(const std::vector<RegistryRow>& probes) -> std::string
    {
        std::string out;
        for (const auto& probe : probes)
        {
            out += probe.id + std::string(16 - std::min<std::size_t>(probe.id.size(), 15), ' ') +
                   probe.description;
            if (!probe.requirement.empty())
            {
                out += " (requires " + probe.requirement + ")";
            }
            out += '\n';
        }
        return out;
    }
}
