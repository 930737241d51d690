// The report formats every checking command (lint, check, doctor, smoke) shares for fleet
// tooling: junit, prometheus (node_exporter textfile), nfd (Node Feature Discovery feature
// file), markdown, and github (annotations, plus the markdown job summary appended to
// $GITHUB_STEP_SUMMARY). Each command turns its result into model::CheckRun; the renderers
// are in report/fleet_formats.hpp.
#ifndef ENVCHECK_CLI_FLEET_OUTPUT_HPP
#define ENVCHECK_CLI_FLEET_OUTPUT_HPP

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_result.hpp"
#include "model/machine.hpp"
#include "report/fleet_formats.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    struct ReportFormatChoice
    {
        std::string name = "text";
        std::int64_t expiry_seconds = 3600; // nfd: how long nfd-worker keeps the features
    };

    // Adds --format (the command's own formats, then the fleet formats) and --expiry.
    void add_report_format_options(CLI::App& app, ReportFormatChoice& choice,
                                   const std::vector<std::string>& own_formats);

    [[nodiscard]] auto is_fleet_format(std::string_view name) -> bool;

    // Measures a run's wall time and stamps it into the CheckRun when the run ends.
    class RunClock
    {
    public:
        RunClock()
          : m_started(std::chrono::steady_clock::now())
        {
        }
        void stamp(model::CheckRun& run) const;

    private:
        std::chrono::steady_clock::time_point m_started;
    };

    // What a node advertises (driver, CUDA, compute capability, GPUs) from the probe.
    [[nodiscard]] auto node_features_from(const model::MachineFacts& facts) -> report::NodeFeatures;

    // Appends the markdown summary of `runs` to the file $GITHUB_STEP_SUMMARY names, when it is
    // set (GitHub Actions shows it on the run's page).
    void append_github_job_summary(const std::vector<model::CheckRun>& runs);

    // The report in a fleet format. For github, the markdown summary is also appended to the
    // file $GITHUB_STEP_SUMMARY names, when it is set.
    [[nodiscard]] auto render_fleet_report(std::string_view format,
                                           const std::vector<model::CheckRun>& runs,
                                           const report::NodeFeatures& features,
                                           std::int64_t expiry_seconds) -> std::string;
}

#endif
