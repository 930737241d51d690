// How serious a finding about a file is: the one severity of envcheck. The environment.yml
// loader (formats), the lint rules (checks) and the lint renderers (report) all speak it; a
// checking command's outcome is a model::Status (check_result.hpp), which status_of() maps to.
#ifndef ENVCHECK_MODEL_SEVERITY_HPP
#define ENVCHECK_MODEL_SEVERITY_HPP

#include <optional>
#include <string_view>

#include "model/check_result.hpp"

namespace envcheck::model
{
    enum class Severity
    {
        error,   // the file is wrong: acting on it (lock, check) is refused
        warning, // probably a mistake
        info,    // worth knowing
    };

    // "error", "warning", "info".
    [[nodiscard]] auto to_string(Severity severity) -> std::string_view;
    [[nodiscard]] auto parse_severity(std::string_view text) -> std::optional<Severity>;
    // error -> fail, warning -> warn, info -> pass.
    [[nodiscard]] auto status_of(Severity severity) -> Status;
}

#endif
