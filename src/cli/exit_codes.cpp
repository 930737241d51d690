#include "cli/exit_codes.hpp"

#include <iostream>

#include "util/control_chars.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::cli
{
    auto exit_for(const util::Error& error) -> Exit
    {
        switch (error.kind)
        {
            case util::ErrorKind::usage:
            case util::ErrorKind::io:
            case util::ErrorKind::parse:
            case util::ErrorKind::unsupported:
            case util::ErrorKind::network:
            case util::ErrorKind::timeout:
                return Exit::usage;
            case util::ErrorKind::internal:
                return Exit::internal;
        }
        return Exit::internal;
    }

    auto exit_for(app::Verdict verdict) -> Exit
    {
        switch (verdict)
        {
            case app::Verdict::clean:
                return Exit::ok;
            case app::Verdict::findings:
                return Exit::findings;
            case app::Verdict::usage:
                return Exit::usage;
        }
        return Exit::internal;
    }

    auto exit_for(report::NpdStatus status) -> Exit
    {
        switch (status)
        {
            case report::NpdStatus::ok:
                return Exit::ok;
            case report::NpdStatus::problem:
                return Exit::findings;
            case report::NpdStatus::unknown:
                return Exit::usage;
        }
        return Exit::internal;
    }

    void warn(std::string_view text)
    {
        std::cerr << util::escape_control_characters(
          util::redact_urls(text, util::redaction_marker));
    }

    auto report_error(const util::Error& error) -> int
    {
        warn("envcheck: error: " + error.to_string() + "\n");
        if (!error.hint.empty())
        {
            warn("  hint: " + error.hint + "\n");
        }
        return code(exit_for(error));
    }

    auto report_unreadable_records(const app::UnreadableRecords& unreadable,
                                   const std::string& message, const std::string& hint) -> int
    {
        for (const auto& problem : unreadable.problems)
        {
            static_cast<void>(report_error(problem));
        }
        return report_error(util::make_error(
          util::ErrorKind::parse, message, util::SourceLocation{ unreadable.prefix, 0, 0 }, hint));
    }
}
