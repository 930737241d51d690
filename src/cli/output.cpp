#include "cli/output.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"

namespace envcheck::cli
{
    auto emit(std::string_view content, const std::string& path, app::Files& files) -> int
    {
        if (path.empty() || path == "-")
        {
            std::cout << content << std::flush;
            return code(Exit::ok);
        }
        auto written = files.write_atomic(path, content);
        if (!written)
        {
            return report_error(written.error());
        }
        return code(Exit::ok);
    }
}
