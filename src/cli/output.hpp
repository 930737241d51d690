// Where a command's report goes: stdout, or a file written atomically (--output).
#ifndef ENVCHECK_CLI_OUTPUT_HPP
#define ENVCHECK_CLI_OUTPUT_HPP

#include <string>
#include <string_view>

#include "fsio/files.hpp"

namespace envcheck::cli
{
    // Writes `content` to stdout when `path` is empty or "-", else atomically to `path`.
    // Returns 0, or the exit code of the error it reported.
    // What emit writes for `raw`: URLs without credentials, control characters escaped.
    [[nodiscard]] auto safe_output(std::string_view raw) -> std::string;

    [[nodiscard]] auto emit(std::string_view content, const std::string& path,
                            fsio::WriteMode mode = fsio::WriteMode::replace) -> int;
}

#endif
