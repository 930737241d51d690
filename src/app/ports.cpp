#include "app/ports.hpp"

namespace envcheck::app
{
    auto variable(const Environment& environment, const std::string& name) -> std::string
    {
        const auto found = environment.find(name);
        return found == environment.end() ? std::string{} : found->second;
    }
}
