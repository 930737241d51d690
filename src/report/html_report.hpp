// `--format html` of smoke, check and doctor: one self-contained page each (inline CSS, inline
// SVG, no script, no external resource; a Content-Security-Policy that forbids both), light or
// dark as the reader's system prefers. Every plot has a table beside it with the same numbers.
//   smoke:  per device, the bandwidth against transfer size for every copy kind (from the
//           `--full` sweep), and the probes with their verdicts and metrics
//   check:  each locked metric as measured against its baseline, with the tolerance band; the
//           machine, package, file and unreadable-record findings as tables
//   doctor: the chain of stages from hardware to framework, the first broken link marked, and
//           every check with its fix
// Every text from the environment (names, paths, messages) is escaped.
#ifndef ENVCHECK_REPORT_HTML_REPORT_HPP
#define ENVCHECK_REPORT_HTML_REPORT_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "model/environment.hpp"
#include "model/smoke.hpp"
#include "report/doctor_report.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto render_smoke_html(const model::SmokeReport& report) -> std::string;
    [[nodiscard]] auto render_check_html(const model::EnvironmentCheck& check) -> std::string;
    [[nodiscard]] auto render_doctor_html(const DoctorView& view) -> std::string;

    struct SweepPoint
    {
        std::uint64_t bytes = 0;
        double gbps = 0.0;
    };

    struct SweepSeries
    {
        std::string kind; // "h2d_pinned", "d2d_memcpy", ...
        std::vector<SweepPoint> points;
    };

    // The transfer-size sweep of a bandwidth probe, one series per copy kind in the probe's
    // order: its metrics named "<kind>_gbps_<size>" (size "64k", "256m": what `smoke --full`
    // reports; the quick mode's "<kind>_gbps" has no size and is no sweep).
    [[nodiscard]] auto bandwidth_sweep(const model::ProbeResult& probe) -> std::vector<SweepSeries>;
}

#endif
