// `envcheck smoke --format json` (schemas/smoke-report.schema.json), and the JSON form of a
// performance baseline that `envcheck lock` stores and `envcheck check` reads back.
#ifndef ENVCHECK_REPORT_SMOKE_JSON_HPP
#define ENVCHECK_REPORT_SMOKE_JSON_HPP

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/smoke.hpp"
#include "util/result.hpp"

namespace envcheck::report
{
    inline constexpr int smoke_schema_version = 1;

    // Keys in a reading order (schema_version first, devices before the summary).
    [[nodiscard]] auto smoke_report_json(const model::SmokeReport& report)
      -> nlohmann::ordered_json;
    // Pretty-printed (two spaces), with a final newline.
    [[nodiscard]] auto render_smoke_json(const model::SmokeReport& report) -> std::string;
}

#endif
