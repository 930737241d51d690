// GitHub Actions workflow-command escaping (actions/toolkit, command.ts), shared by the lint
// annotations and the fleet formats' github output.
#ifndef ENVCHECK_REPORT_GITHUB_COMMANDS_HPP
#define ENVCHECK_REPORT_GITHUB_COMMANDS_HPP

#include <string>
#include <string_view>

namespace envcheck::report
{
    // The message of a command: '%', CR and LF escaped.
    [[nodiscard]] auto github_data(std::string_view text) -> std::string;
    // A property value (file=, title=, line=): as data, and ':' and ',' too.
    [[nodiscard]] auto github_property(std::string_view text) -> std::string;
}

#endif
