// `envcheck probe` as compact text: one labelled line per area, one line per GPU.
#ifndef ENVCHECK_REPORT_PROBE_TEXT_HPP
#define ENVCHECK_REPORT_PROBE_TEXT_HPP

#include <cstdint>
#include <string>

#include "model/machine.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto render_probe_text(const model::MachineFacts& facts) -> std::string;

    // "141.0 GiB", "60 MiB", "48 KiB", "512 B": binary units, one decimal from GiB on.
    [[nodiscard]] auto format_bytes(std::uint64_t bytes) -> std::string;
}

#endif
