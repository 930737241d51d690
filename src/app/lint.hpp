// envcheck lint FILE...: the CI gate for environment.yml files. The rules are pure
// (checks/lint.hpp); with channels.enabled, the channels' repodata is asked too (channels.hpp).
// A file that cannot be read is an error; an error-severity finding is a finding. A finding an
// inline `# envcheck: ignore[rule]` comment or the configuration suppresses stays in the report,
// marked, and counts for nothing.
#ifndef ENVCHECK_APP_LINT_HPP
#define ENVCHECK_APP_LINT_HPP

#include <string>
#include <vector>

#include "app/channels.hpp"
#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "config/config.hpp"
#include "report/lint_report.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct LintRequest
    {
        std::vector<std::string> files; // paths, "-" or URLs
        bool strict = false;            // repro.unpinned is an error
        std::string target_driver;      // the fleet's NVIDIA driver, "535.104.05"
        std::string target_cuda;        // or the CUDA version its driver reports, "12.2"
        ChannelCheckRequest channels;
        // The configuration's [lint] (severities, ignores, per-file ignores) and its file, whose
        // directory the per-file globs are relative to.
        config::LintConfig config;
        std::string config_file;
    };

    struct LintOutcome
    {
        report::LintReport report;
        FleetView fleet; // one run, "lint"

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_lint(const LintRequest& request, Ports& ports)
      -> util::Result<LintOutcome>;

    // Every rule lint can report (loader rules first), as --list-rules prints them.
    [[nodiscard]] auto lint_rule_catalog() -> std::vector<report::LintRuleInfo>;

    // The ids an ignore comment or the configuration may name: the catalog's, and
    // channel-availability (--check-channels).
    [[nodiscard]] auto suppressible_rule_ids() -> std::vector<std::string>;
}

#endif
