// The version of this envcheck (CMake's project version), as locks and exports record it.
#ifndef ENVCHECK_APP_VERSION_HPP
#define ENVCHECK_APP_VERSION_HPP

#include <string_view>

namespace envcheck::app
{
    [[nodiscard]] auto envcheck_version() -> std::string_view;
}

#endif
