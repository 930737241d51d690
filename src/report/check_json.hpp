// `envcheck check --format json` (schemas/check-report.schema.json). Other tools rely on the
// shape: {"status": "pass|fail", "packages": [{"name", "manager", "spec", "expected",
// "installed", "status"}], ...} with the fixed package status words ok, unsatisfied, missing,
// changed, extra.
#ifndef ENVCHECK_REPORT_CHECK_JSON_HPP
#define ENVCHECK_REPORT_CHECK_JSON_HPP

#include <string>

#include <nlohmann/json.hpp>

#include "model/environment.hpp"

namespace envcheck::report
{
    inline constexpr int check_schema_version = 1;

    [[nodiscard]] auto check_report_json(const model::EnvironmentCheck& check)
      -> nlohmann::ordered_json;
    // Two-space indented, with a final newline.
    [[nodiscard]] auto render_check_json(const model::EnvironmentCheck& check) -> std::string;
}

#endif
