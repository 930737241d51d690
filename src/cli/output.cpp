#include "cli/output.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"
#include "fsio/files.hpp"

namespace envcheck::cli
{
    auto emit(std::string_view content, const std::string& path) -> int
    {
        if (path.empty() || path == "-")
        {
            std::cout << content << std::flush;
            return code(Exit::ok);
        }
        auto written = fsio::write_file_atomic(path, content);
        if (!written)
        {
            return report_error(written.error());
        }
        return code(Exit::ok);
    }
}
