#include "report/lock_summary.hpp"

namespace envcheck::report
{
    auto describe_lock(const model::Lock& lock) -> std::string
    {
        std::size_t conda = 0;
        for (const auto& package : lock.packages)
        {
            conda += package.manager == model::Manager::conda ? 1 : 0;
        }
        std::string text = std::to_string(lock.packages.size()) + " packages (" +
                           std::to_string(conda) + " conda, " +
                           std::to_string(lock.packages.size() - conda) + " pip)";
        text += ", platform " + lock.machine.platform.value_or("unknown");
        text += ", driver " + lock.machine.driver_version.value_or("unknown");
        if (lock.machine.gpus)
        {
            text += ", " + std::to_string(lock.machine.gpus->size()) + " GPU(s)";
        }
        text += lock.performance
                  ? ", " + std::to_string(lock.performance->size()) + " performance baseline(s)"
                  : ", no performance baselines";
        return text;
    }
}
