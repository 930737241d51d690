// The functions behind the rows of lint's rule table (lint.cpp), one per rule id.
#ifndef ENVCHECK_CHECKS_LINT_RULES_HPP
#define ENVCHECK_CHECKS_LINT_RULES_HPP

#include <string_view>
#include <vector>

#include "checks/lint.hpp"
#include "checks/lint_input.hpp"

namespace envcheck::checks::rules
{
    void matchspec_syntax(const LintInput& input, Findings& findings);
    void matchspec_lenient(const LintInput& input, Findings& findings);
    void pip_line_syntax(const LintInput& input, Findings& findings);
    void duplicate_package(const LintInput& input, Findings& findings);
    void unsatisfiable(const LintInput& input, Findings& findings);
    void conda_and_pip(const LintInput& input, Findings& findings);
    void unpinned(const LintInput& input, Findings& findings);
    void pip_url_unpinned(const LintInput& input, Findings& findings);
    void no_channels(const LintInput& input, Findings& findings);
    void defaults_mixed(const LintInput& input, Findings& findings);
    void nodefaults(const LintInput& input, Findings& findings);
    void cuda_version_mismatch(const LintInput& input, Findings& findings);
    void gpu_build_with_cpuonly(const LintInput& input, Findings& findings);
    void pytorch_cuda_needs_nvidia(const LintInput& input, Findings& findings);
    void pytorch_cuda_unpublished(const LintInput& input, Findings& findings);
    void pytorch_cuda_shadowed(const LintInput& input, Findings& findings);
    void python_build_mismatch(const LintInput& input, Findings& findings);
    void driver_too_old(const LintInput& input, Findings& findings);
    void driver_minor_compat(const LintInput& input, Findings& findings);

}

#endif
