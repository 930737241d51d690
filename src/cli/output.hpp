// Where a command's report goes: stdout, or a file written atomically (--output).
#ifndef ENVCHECK_CLI_OUTPUT_HPP
#define ENVCHECK_CLI_OUTPUT_HPP

#include <string>
#include <string_view>

namespace envcheck::cli
{
    // Writes `content` to stdout when `path` is empty or "-", else atomically to `path`.
    // Returns 0, or the exit code of the error it reported.
    [[nodiscard]] auto emit(std::string_view content, const std::string& path) -> int;
}

#endif
