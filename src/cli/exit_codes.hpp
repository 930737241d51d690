// The one place where outcomes become exit codes. Documented in README.md ("Exit codes").
#ifndef ENVCHECK_CLI_EXIT_CODES_HPP
#define ENVCHECK_CLI_EXIT_CODES_HPP

#include "app/outcome.hpp"
#include "report/fleet_formats.hpp"
#include "util/error.hpp"

namespace envcheck::cli
{
    enum class Exit : int
    {
        ok = 0,       // clean: no error findings, environment matches, CUDA usable
        findings = 1, // the check ran and found a problem (lint error, drift, failed check)
        usage = 2,    // bad command line, or an input that cannot be read or parsed
        internal = 3, // a bug in envcheck
    };

    [[nodiscard]] constexpr auto code(Exit exit) -> int
    {
        return static_cast<int>(exit);
    }

    [[nodiscard]] auto exit_for(const util::Error& error) -> Exit;
    [[nodiscard]] auto exit_for(app::Verdict verdict) -> Exit;
    // --format npd (Node Problem Detector: 0 OK, 1 NonOK, anything else Unknown): a problem is
    // 1; a check that could not run, or none that ran, is 2, which NPD reads as Unknown, as it
    // reads usage (2) and internal (3) errors.
    [[nodiscard]] auto exit_for(report::NpdStatus status) -> Exit;

    // Every message envcheck prints on stderr: URLs without credentials, control characters
    // escaped (a name from package metadata can hold a terminal's commands).
    void warn(std::string_view text);

    // Prints "envcheck: error: <where>: <message>" and the hint on stderr; returns its exit code.
    auto report_error(const util::Error& error) -> int;

    // Prints each record that cannot be read ("envcheck: error: ..."), then the refusal (an
    // ErrorKind::parse error at the prefix, with `message` and `hint`); returns exit 2.
    auto report_unreadable_records(const app::UnreadableRecords& unreadable,
                                   const std::string& message, const std::string& hint) -> int;
}

#endif
