#include "cli/output.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"
#include "util/control_chars.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::cli
{
    auto safe_output(std::string_view raw) -> std::string
    {
        return util::escape_control_characters(util::redact_urls(raw));
    }

    auto emit(std::string_view raw, const std::string& path, app::Files& files,
              app::Files::WriteMode mode) -> int
    {
        // Everything a command writes passes here: no credentials in URLs, no terminal commands
        // from package metadata.
        const std::string content = safe_output(raw);
        if (path.empty() || path == "-")
        {
            std::cout << content << std::flush;
            return code(Exit::ok);
        }
        std::cout.flush(); // /dev/stdout is written through, after what cout holds
        auto written = files.write_atomic(path, content, mode);
        if (!written)
        {
            return report_error(written.error());
        }
        return code(Exit::ok);
    }
}
