// framework.runtime-check's adapter: runs the environment's own python (never through a shell,
// under a deadline) and asks torch, jax or tensorflow whether it sees the GPU and can run one
// small operation on it. The answer is one line of JSON after a marker, so whatever the
// frameworks print on import does not disturb it.
#ifndef ENVCHECK_SYSTEM_FRAMEWORK_CHECK_HPP
#define ENVCHECK_SYSTEM_FRAMEWORK_CHECK_HPP

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "model/machine.hpp"
#include "system/environment.hpp"
#include "util/result.hpp"

namespace envcheck::system
{
    inline constexpr std::array<std::string_view, 3> frameworks{ "torch", "jax", "tensorflow" };
    inline constexpr std::chrono::milliseconds default_framework_timeout{ 180000 };
    inline constexpr std::string_view framework_marker = "ENVCHECK_FRAMEWORK_RESULT ";

    // The interpreter of an environment: <prefix>/bin/python, then python3; empty when neither.
    [[nodiscard]] auto find_python(const std::string& prefix) -> std::string;

    // The version ("3.12.3") of the python3 that PATH (in `environment`) names, asked under a
    // deadline; nullopt when there is none, or it fails or does not answer in time.
    [[nodiscard]] auto path_python_version(const Environment& environment,
                                           std::chrono::milliseconds timeout)
      -> std::optional<std::string>;

    // Runs `python` on the check script for `framework`. Always returns facts: a python that
    // cannot start, crashes or times out is recorded in error / timed_out.
    [[nodiscard]] auto run_framework_check(
      const std::string& python, std::string_view framework, const Environment& environment,
      std::chrono::milliseconds timeout = default_framework_timeout) -> model::FrameworkFacts;

    // The script's answer (the marker line of its output) as facts; exposed for tests.
    [[nodiscard]] auto parse_framework_output(std::string_view output)
      -> util::Result<model::FrameworkFacts>;

    // The python source that run_framework_check runs (argv[1] names the framework).
    [[nodiscard]] auto framework_script() -> std::string_view;
}

#endif
