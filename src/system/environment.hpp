// Environment variables: read once, by the cli (read_environment), and passed around as a map,
// so that tests can give their own. What a report shows is a selection of the variables that
// matter for GPUs and Python environments, with secrets redacted: variables whose names look
// like tokens, keys, passwords or secrets, and credentials inside URLs
// ("https://user:pass@host" -> "https://<redacted>@host").
#ifndef ENVCHECK_SYSTEM_ENVIRONMENT_HPP
#define ENVCHECK_SYSTEM_ENVIRONMENT_HPP

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/machine.hpp"

namespace envcheck::system
{
    using Environment = std::map<std::string, std::string>;

    inline constexpr std::string_view redacted_text = "<redacted>";

    // The process environment (the one place envcheck reads it).
    [[nodiscard]] auto read_environment() -> Environment;

    // Whether a variable's name says it holds a secret (TOKEN, SECRET, PASSWORD, KEY, ...).
    [[nodiscard]] auto is_secret_name(std::string_view name) -> bool;
    // Replaces the user-info part of every URL in `value` with <redacted>.
    [[nodiscard]] auto redact_url_credentials(std::string_view value) -> std::string;
    // Whether a report shows this variable (CUDA_*, NVIDIA_*, LD_LIBRARY_PATH, CONDA_*, ...).
    [[nodiscard]] auto is_reported(std::string_view name) -> bool;

    // The reported variables, sorted by name, secrets redacted.
    [[nodiscard]] auto report_environment(const Environment& environment)
      -> std::vector<model::EnvironmentVariable>;
}

#endif
