// `envcheck probe` as compact text: one labelled line per area, one line per GPU.
#ifndef ENVCHECK_REPORT_PROBE_TEXT_HPP
#define ENVCHECK_REPORT_PROBE_TEXT_HPP

#include <cstdint>
#include <string>

#include "model/machine.hpp"
#include "report/numbers.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto render_probe_text(const model::MachineFacts& facts) -> std::string;

}

#endif
