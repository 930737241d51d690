// The text of `envcheck --version`: the version, and what the binary carries for the GPU.
#ifndef ENVCHECK_REPORT_VERSION_TEXT_HPP
#define ENVCHECK_REPORT_VERSION_TEXT_HPP

#include <string>
#include <string_view>

#include "model/machine.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto render_version(std::string_view version,
                                      const model::EmbeddedRuntime& runtime) -> std::string;
}

#endif
