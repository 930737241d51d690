#ifndef ENVCHECK_CLI_VERSION_HPP
#define ENVCHECK_CLI_VERSION_HPP

#include <string>

namespace envcheck::cli
{
    // The text of `envcheck --version`.
    [[nodiscard]] auto version_text() -> std::string;
}

#endif
