// `envcheck doctor` as text (an aligned list: status, id, message, then "fix:" lines; the first
// broken link named at the end) and as JSON (schemas/doctor-report.schema.json):
//   {"schema_version": 1, "verdict": "pass|fail", "first_broken_link": id|null,
//    "environment": source|null, "checks": [{"id", "stage", "status", "message", "fix", ...}]}
// The outcomes arrive in walk order, so the first failure is the first broken link.
#ifndef ENVCHECK_REPORT_DOCTOR_REPORT_HPP
#define ENVCHECK_REPORT_DOCTOR_REPORT_HPP

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/check_result.hpp"

namespace envcheck::report
{
    inline constexpr int doctor_schema_version = 1;

    struct DoctorView
    {
        std::vector<model::CheckOutcome> outcomes; // walk order
        std::optional<std::string> environment;    // what the environment checks looked at
    };

    [[nodiscard]] auto first_broken_link(const DoctorView& view) -> const model::CheckOutcome*;

    [[nodiscard]] auto doctor_json(const DoctorView& view) -> nlohmann::ordered_json;
    [[nodiscard]] auto render_doctor_json(const DoctorView& view) -> std::string;
    [[nodiscard]] auto render_doctor_text(const DoctorView& view) -> std::string;
}

#endif
