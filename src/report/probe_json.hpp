// `envcheck probe --format json` (schemas/probe.schema.json): the whole model::MachineFacts,
// snake_case keys, numbers as numbers, null for what could not be learnt, and a summary (the
// driver, the CUDA version it supports, the GPUs) for tools that need only that.
#ifndef ENVCHECK_REPORT_PROBE_JSON_HPP
#define ENVCHECK_REPORT_PROBE_JSON_HPP

#include <string>

#include <nlohmann/json.hpp>

#include "model/machine.hpp"

namespace envcheck::report
{
    inline constexpr int probe_schema_version = 1;

    [[nodiscard]] auto probe_json(const model::MachineFacts& facts) -> nlohmann::ordered_json;
    // Pretty-printed (two spaces), with a final newline.
    [[nodiscard]] auto render_probe_json(const model::MachineFacts& facts) -> std::string;
    // One library as the probe report shows it (also used by the doctor's JSON).
    [[nodiscard]] auto library_json(const model::LibraryFile& library) -> nlohmann::ordered_json;
}

#endif
