// The common shape of every checking command's outcome (lint, check, doctor, smoke), so that
// the fleet report formats (junit, prometheus, nfd, github, markdown) render any of them.
#ifndef ENVCHECK_MODEL_CHECK_RESULT_HPP
#define ENVCHECK_MODEL_CHECK_RESULT_HPP

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::model
{
    enum class Status
    {
        pass,
        warn,
        fail,
        skip,
        error, // the check itself could not run (a crash, a timeout, an unreadable input)
    };

    [[nodiscard]] auto to_string(Status status) -> std::string_view;
    [[nodiscard]] auto parse_status(std::string_view text) -> std::optional<Status>;
    // fail and error fail a run; pass, warn and skip do not.
    [[nodiscard]] auto is_failure(Status status) -> bool;

    struct CheckOutcome
    {
        std::string id; // stable: fleet tooling routes alerts by it
        Status status = Status::skip;
        std::string message;                       // what was seen
        std::string fix;                           // what to do; empty when nothing is to be done
        std::map<std::string, double> metrics;     // measured values, in the units their names say
        std::map<std::string, std::string> labels; // e.g. {"gpu": "0", "file": "environment.yml"}
    };

    struct CheckRun
    {
        std::string command; // "lint", "check", "doctor", "smoke"
        std::vector<CheckOutcome> outcomes;
        double duration_seconds = 0.0;
        double finished_unix_seconds = 0.0; // set from the run's clock (app/outcome.hpp)

        [[nodiscard]] auto passed() const -> bool;
    };
}

#endif
