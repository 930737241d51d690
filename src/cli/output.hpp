// Where a command's report goes: stdout, or a file written atomically (--output); and the end
// that most commands share.
#ifndef ENVCHECK_CLI_OUTPUT_HPP
#define ENVCHECK_CLI_OUTPUT_HPP

#include <string>
#include <string_view>

#include "app/ports.hpp"
#include "cli/exit_codes.hpp"
#include "util/result.hpp"

namespace envcheck::cli
{
    // What emit writes for `raw`: URLs without credentials, control characters escaped.
    [[nodiscard]] auto safe_output(std::string_view raw) -> std::string;

    // Writes safe_output(content) to stdout when `path` is empty or "-", else atomically to
    // `path` (through the files port). Returns 0, or the exit code of the error it reported.
    [[nodiscard]] auto emit(std::string_view content, const std::string& path, app::Files& files,
                            app::Files::WriteMode mode = app::Files::WriteMode::replace) -> int;

    // A use case's result: an error is reported (exit 2, or 3 for a bug); an outcome is
    // rendered, written to `path` and its verdict mapped to the exit code.
    template<class Outcome, class Render>
    [[nodiscard]] auto conclude(const util::Result<Outcome>& result, const Render& render,
                                const std::string& path, app::Files& files) -> int
    {
        if (!result)
        {
            return report_error(result.error());
        }
        if (const int status = emit(render(*result), path, files); status != code(Exit::ok))
        {
            return status;
        }
        return code(exit_for(result->verdict()));
    }
}

#endif
