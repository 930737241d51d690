// `envcheck lint`: rules over a loaded environment file, as a registry of rows
// {id, severity, description, fix, run}. Pure: the file's text and the options come in as values.
//
// Rule ids are grouped and stable: syntax.*, duplicate.*, conflict.*, repro.*, cuda.*, python.*
// here, and yaml.* / env.* from the loader (formats/environment_yaml.hpp). --list-rules prints
// both tables (rule_catalog()); README.md documents every row.
#ifndef ENVCHECK_CHECKS_LINT_HPP
#define ENVCHECK_CHECKS_LINT_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checks/cuda_driver_table.hpp"
#include "formats/environment_yaml.hpp"
#include "model/cuda_version.hpp"

namespace envcheck::checks
{
    struct LintOptions
    {
        bool strict = false; // repro.unpinned becomes an error
        // A requirements file or pyproject.toml: a pip section without a conda side, so the
        // channel rules (repro.no-channels) do not apply.
        bool pip_only = false;
        // The fleet's driver, or the CUDA version its driver reports: cuda.driver-too-old and
        // cuda.driver-minor-compat compare the environment's CUDA runtime against it.
        std::optional<DriverVersion> target_driver;
        std::optional<model::CudaVersion> target_cuda;
    };

    struct LintInput; // the file with every spec parsed once (checks/lint_input.hpp)

    using Findings = std::vector<formats::EnvDiagnostic>;

    struct LintRule
    {
        std::string_view id;
        model::Severity severity; // the default; --strict raises repro.unpinned to error
        std::string_view description;
        std::string_view fix;
        void (*run)(const LintInput& input, Findings& findings);
    };

    [[nodiscard]] auto lint_rules() -> std::span<const LintRule>;

    // Every id lint can report, loader rules first: what --list-rules prints.
    [[nodiscard]] auto rule_catalog() -> std::vector<formats::LoaderRule>;

    // The loader's diagnostics and every rule's findings, sorted by position; severities
    // already adjusted for the options (--strict).
    [[nodiscard]] auto lint_environment(const formats::EnvironmentFile& file,
                                        const LintOptions& options)
      -> std::vector<formats::EnvDiagnostic>;

    // Loads `text` and lints it; a file that does not load gives the loader's one error.
    [[nodiscard]] auto lint_text(std::string_view text, const LintOptions& options)
      -> std::vector<formats::EnvDiagnostic>;
}

#endif
