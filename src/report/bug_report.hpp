// `envcheck report`: what a bug report about a GPU Python environment needs, in PyTorch's
// collect_env convention (one fenced code block of "key: value" lines under headings, pasted
// into a GitHub issue as is) and as JSON (schemas/bug-report.schema.json). Every value that could
// not be learnt is written "could not collect: <why>", never guessed. The view arrives with
// secrets already redacted (app/report.cpp); the renderers only lay it out.
#ifndef ENVCHECK_REPORT_BUG_REPORT_HPP
#define ENVCHECK_REPORT_BUG_REPORT_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/machine.hpp"

namespace envcheck::report
{
    inline constexpr int bug_report_schema_version = 1;

    // A value, or why it is unknown.
    struct Collected
    {
        std::optional<std::string> value;
        std::string why_not; // when value is nullopt

        [[nodiscard]] static auto known(std::string value) -> Collected;
        [[nodiscard]] static auto unknown(std::string why) -> Collected;
        // The value, or "could not collect: <why>".
        [[nodiscard]] auto text() const -> std::string;
    };

    struct BugReportGpu
    {
        int index = 0;
        std::string name;
        Collected memory;             // "141 GiB"
        Collected compute_capability; // "9.0"
        std::string pci_bus_id;
    };

    struct BugReportFramework
    {
        std::string name;            // "torch"
        std::string package;         // "torch", "pytorch", "cupy-cuda12x"
        std::string manager;         // "conda", "pip"
        std::string version;         // "2.7.0+cu128"
        Collected cuda_build;        // "12.8", "cpu"
        std::string cuda_build_from; // "torch/version.py", "local version tag +cu128", ...
    };

    // One file the loader asks for (libcudnn.so.9): the copy it would load and the copies it
    // passes over. `environment_shadowed`: the loaded copy is not the environment's although
    // the environment has one (LD_LIBRARY_PATH or the system wins: pytorch#80637).
    struct BugReportLibrary
    {
        std::string library; // "libcudnn"
        std::string file;    // "libcudnn.so.9"; empty when no copy was found
        std::optional<model::LoadableLibrary> loaded;
        std::vector<model::LoadableLibrary> passed_over; // same file name, later in the order
        bool environment_shadowed = false;
    };

    struct BugReportSmokeMetric
    {
        std::string name; // "bandwidth.h2d_pinned_gbps"
        double value = 0.0;
        std::string unit;
    };

    struct BugReportSmokeDevice
    {
        int index = 0;
        std::string name;
        std::vector<BugReportSmokeMetric> metrics;
    };

    struct BugReportView
    {
        std::string envcheck_version;
        // system
        Collected os;
        Collected kernel;
        Collected glibc;
        Collected architecture;
        std::string container; // "no", or its markers
        // machine
        Collected cpu;
        Collected cpu_count;
        Collected memory;
        // driver and GPUs
        Collected driver_version;
        Collected cuda_driver_version; // the newest CUDA the driver runs
        std::vector<BugReportGpu> gpus;
        std::string gpus_why_none; // when gpus is empty
        // the environment
        Collected environment;  // its prefix
        std::string located_by; // "--prefix", "$CONDA_PREFIX", ...
        std::string kind;       // "conda", "venv"
        Collected python;
        std::size_t conda_packages = 0;
        std::size_t pip_packages = 0;
        std::size_t unreadable_records = 0;
        std::vector<std::string> channels; // the conda packages' channels, credentials redacted
        std::vector<BugReportFramework> frameworks;
        std::vector<BugReportLibrary> libraries;
        // the doctor
        Collected doctor_verdict;   // "CUDA usable", "fail at <id>"
        std::string doctor_message; // the first broken link's message
        std::string doctor_fix;     // and its fix
        // smoke figures (the lock's baselines)
        Collected smoke_source; // "lock.json, recorded 2026-11-30T20:02:00Z (3 days ago)"
        std::vector<BugReportSmokeDevice> smoke;
        std::vector<model::EnvironmentVariable> variables; // the reported ones, redacted
    };

    // The markdown block: "```text" ... "```" with the sections inside.
    [[nodiscard]] auto render_bug_report_markdown(const BugReportView& view) -> std::string;
    [[nodiscard]] auto bug_report_json(const BugReportView& view) -> nlohmann::ordered_json;
    [[nodiscard]] auto render_bug_report_json(const BugReportView& view) -> std::string;

    // "3 days", "5 hours", "12 minutes", "40 seconds" (the largest whole unit).
    [[nodiscard]] auto format_age(std::int64_t seconds) -> std::string;
}

#endif
