#include <string_view>

#include "model/severity.hpp"
#include "tests/catch.hpp"

using namespace envcheck::model;

namespace
{
    TEST_CASE("Severity: its text and the status a finding gives a check run", "[model][severity]")
    {
        struct Row
        {
            Severity severity;
            std::string_view text;
            Status status;
        };
        const Row rows[] = {
            { Severity::error, "error", Status::fail },
            { Severity::warning, "warning", Status::warn },
            { Severity::info, "info", Status::pass },
        };
        for (const auto& row : rows)
        {
            CAPTURE(row.text);
            CHECK(to_string(row.severity) == row.text);
            CHECK(parse_severity(row.text) == row.severity);
            CHECK(status_of(row.severity) == row.status);
        }
        CHECK_FALSE(parse_severity("fatal"));
        CHECK_FALSE(parse_severity("Error"));
        CHECK_FALSE(parse_severity(""));
    }
}
