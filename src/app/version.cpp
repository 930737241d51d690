#include "app/version.hpp"

namespace envcheck::app
{
    auto envcheck_version() -> std::string_view
    {
        return ENVCHECK_VERSION;
    }
}
