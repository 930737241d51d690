// envcheck report: one block for a bug report, the collect_env of environments. Composed from
// the other use cases and ports, never a copy of their logic: the doctor (its machine probe and
// its verdict), the installed environment (Prefixes), where the loader would find the NVIDIA
// libraries a framework loads (Machine::find_libraries) and a lock's performance baselines
// (the smoke figures). Nothing in it runs Python or loads a library.
#ifndef ENVCHECK_APP_REPORT_HPP
#define ENVCHECK_APP_REPORT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "config/config.hpp"
#include "model/environment.hpp"
#include "report/bug_report.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct ReportRequest
    {
        std::string root = "/";        // another root: files only, nothing is loaded or run
        PrefixSelection selection;     // --prefix, -n; empty: $VIRTUAL_ENV, then $CONDA_PREFIX
        std::string lock_file;         // its performance baselines are the smoke figures
        double timeout_seconds = 20.0; // NVML and cuInit, each
        bool framework_check = false;  // the doctor's framework.runtime-check (runs python)
        double framework_timeout_seconds = 180.0;
        std::vector<config::Setting<std::string>> skip; // the configuration's doctor.skip
    };

    struct ReportOutcome
    {
        report::BugReportView view;

        // A report that could be written is clean: it describes, it does not judge (the doctor's
        // verdict is inside it).
        [[nodiscard]] auto verdict() const -> Verdict { return Verdict::clean; }
    };

    // Fails when a --prefix, -n or --lock given cannot be read, or --root is not a directory;
    // anything else it cannot learn is "could not collect: <why>" in the report.
    [[nodiscard]] auto run_report(const ReportRequest& request, Ports& ports)
      -> util::Result<ReportOutcome>;

    // The CUDA build of a framework package, from what its metadata says (never by importing
    // it): a pip local version tag (+cu128 -> 12.8, +cpu), a package name (cupy-cuda12x -> 12.x,
    // jax-cuda12-plugin -> 12), a conda build string (cuda126_..., py3.11_cuda12.1_cudnn8.9.2_0,
    // cpu_...). `from` says which. nullopt when none of them says.
    struct CudaBuild
    {
        std::string cuda; // "12.8", or "none (CPU build)"
        std::string from;
    };
    [[nodiscard]] auto cuda_build_of(const model::Package& package) -> std::optional<CudaBuild>;
    // torch/version.py's `cuda = '12.8'` (or `cuda: Optional[str] = '12.8'`, or None).
    [[nodiscard]] auto cuda_build_from_torch_version_py(std::string_view text)
      -> std::optional<CudaBuild>;
}

#endif
