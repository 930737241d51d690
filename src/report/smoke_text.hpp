// `envcheck smoke` for people: one line per device, one per probe (status, id, what was seen),
// the metrics under each probe when asked (--full shows them), a summary line; and when no probe
// could run, why.
#ifndef ENVCHECK_REPORT_SMOKE_TEXT_HPP
#define ENVCHECK_REPORT_SMOKE_TEXT_HPP

#include <string>

#include "model/smoke.hpp"

namespace envcheck::report
{
    struct SmokeTextOptions
    {
        bool metrics = false; // list every metric with its unit and spread under its probe
    };

    [[nodiscard]] auto render_smoke_text(const model::SmokeReport& report,
                                         const SmokeTextOptions& options) -> std::string;
}

#endif
