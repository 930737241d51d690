// Report formats for fleet tooling, shared by every checking command (lint, check, doctor,
// smoke): each renders a list of model::CheckRun. Pure: the time comes in as a value.
//
//   junit       one <testcase> per check; fail -> <failure>, error -> <error>, skip -> <skipped>
//   prometheus  node_exporter textfile-collector format; no sample timestamps (the collector
//               skips files that carry any)
//   nfd         a Node Feature Discovery local feature file (features.d/), with expiry
//   markdown    a table per run (also the GitHub job summary)
//   github      workflow annotations (::error / ::warning) for failing and warning checks
//   npd         one line for a Node Problem Detector custom plugin: the failed check ids first
#ifndef ENVCHECK_REPORT_FLEET_FORMATS_HPP
#define ENVCHECK_REPORT_FLEET_FORMATS_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_result.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto render_junit(const std::vector<model::CheckRun>& runs) -> std::string;

    [[nodiscard]] auto render_prometheus(const std::vector<model::CheckRun>& runs) -> std::string;

    // What a node advertises to Kubernetes besides the per-check results; unknown facts are
    // left out rather than guessed.
    struct NodeFeatures
    {
        std::optional<bool> cuda_usable;
        std::optional<std::string> driver_version;      // "580.95.05"
        std::optional<std::string> cuda_driver_version; // "13.0": the newest CUDA the driver runs
        std::optional<std::string> compute_capability;  // lowest over the GPUs, "9.0"
        std::optional<std::string> gpu_model;           // "NVIDIA H200"
        std::optional<int> gpu_count;
        std::optional<bool> lock_matches;
        std::optional<bool> smoke_passed;
    };

    struct NfdOptions
    {
        std::string prefix = "envcheck.io";
        std::int64_t now_unix_seconds = 0;
        std::int64_t expiry_seconds = 3600; // nfd-worker drops the features after this
    };

    [[nodiscard]] auto render_nfd(const std::vector<model::CheckRun>& runs,
                                  const NodeFeatures& features, const NfdOptions& options)
      -> std::string;

    [[nodiscard]] auto render_markdown(const std::vector<model::CheckRun>& runs) -> std::string;

    [[nodiscard]] auto render_github_annotations(const std::vector<model::CheckRun>& runs)
      -> std::string;

    // The Node Problem Detector custom-plugin protocol: the plugin's exit status says OK (0),
    // NonOK (1) or Unknown (anything else), its stdout is the condition's message, cut by NPD
    // at max_output_length bytes (80 by default).
    enum class NpdStatus
    {
        ok,      // no check failed (warnings and skips included)
        problem, // a check failed: the node is at fault
        unknown, // no check failed but one could not run (status error), or nothing ran
    };

    [[nodiscard]] auto npd_status(const std::vector<model::CheckRun>& runs) -> NpdStatus;

    inline constexpr std::size_t npd_default_max_length = 80;

    // One line (and a newline) of at most `max_length` bytes, cut on a UTF-8 boundary with
    // "..." so that what NPD cuts is nothing: "OK: doctor 23 passed, 4 skipped", or the ids of
    // the failed checks first, then the first one's message ("cuda.init (+1 more): cuInit
    // returned ..."), or for unknown the checks that could not run ("framework.runtime-check
    // could not run: timed out ..."). URLs lose their credentials; control characters become
    // spaces.
    [[nodiscard]] auto render_npd(const std::vector<model::CheckRun>& runs,
                                  std::size_t max_length = npd_default_max_length) -> std::string;

    // The fleet formats as a registry: a command picks one by name (--format) and renders its
    // runs and features with it. What is not a run (the time, the limits) comes as options.
    struct FleetFormatOptions
    {
        std::int64_t now_unix_seconds = 0;                   // nfd
        std::int64_t expiry_seconds = 3600;                  // nfd
        std::size_t npd_max_length = npd_default_max_length; // npd
    };

    struct FleetFormat
    {
        std::string_view name;
        std::string_view description; // what it is for (--help); empty when the name says it
        std::string (*render)(const std::vector<model::CheckRun>& runs,
                              const NodeFeatures& features, const FleetFormatOptions& options);
    };

    // junit, prometheus, nfd, markdown, github, npd: in the order --help lists them.
    [[nodiscard]] auto fleet_formats() -> std::span<const FleetFormat>;
    // The row named `name`; nullptr when there is none.
    [[nodiscard]] auto find_fleet_format(std::string_view name) -> const FleetFormat*;

    // A Kubernetes label value: at most 63 characters of [A-Za-z0-9-_.], starting and ending
    // alphanumeric; other characters become '-'. Empty when nothing valid is left.
    [[nodiscard]] auto to_label_value(std::string_view text) -> std::string;
}

#endif
