// envcheck diff OLD NEW: the semantic difference between two environment files, or two locks
// (any format envcheck reads): packages added, removed and re-pinned, channel changes, and the
// risky changes. Equal sets are clean, different ones a finding (like diff(1)).
#ifndef ENVCHECK_APP_DIFF_HPP
#define ENVCHECK_APP_DIFF_HPP

#include <string>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "report/diff_report.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct DiffRequest
    {
        std::string old_path; // a path, "-", /dev/fd/N or a URL
        std::string new_path;
        std::string platform; // locks: of a multi-platform lock; empty: this machine's
        std::string environment = "default"; // pixi.lock: the environment
        std::vector<std::string> categories; // conda-lock: the categories to read; empty: all
        // uv.lock, pylock.toml: the python whose markers select packages (app/marker_python.hpp);
        // empty: the python3 on PATH.
        std::string python;
    };

    struct DiffOutcome
    {
        report::DiffReport report;

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_diff(const DiffRequest& request, Ports& ports)
      -> util::Result<DiffOutcome>;
}

#endif
