// envcheck export: a lock or an installed environment as an @EXPLICIT file, a fully pinned
// environment.yml or a requirements.txt (formats/export.hpp). A conda package that cannot be
// expressed (no URL, in an explicit file) is left out and named: a finding. An environment with
// a record that cannot be read is not exported.
#ifndef ENVCHECK_APP_EXPORT_HPP
#define ENVCHECK_APP_EXPORT_HPP

#include <optional>
#include <string>
#include <vector>

#include "app/lock.hpp"
#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "formats/export.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct ExportRequest
    {
        PrefixSelection selection;           // the environment, when no lock is given
        std::string lock;                    // export this lock instead
        std::string environment = "default"; // pixi.lock: the environment
        std::vector<std::string> categories; // conda-lock: the categories to read; empty: all
        std::string platform;                // of a multi-platform lock; empty: this machine's
        // uv.lock, pylock.toml: the python whose markers select packages (app/marker_python.hpp);
        // empty: the python3 on PATH.
        std::string python;
        // Also the packages only extras, non-default groups or unselected categories reach
        // (Lock::optional_packages); else they are left out, and a note says so.
        bool with_optional = false;
        formats::ExportFormat format = formats::ExportFormat::explicit_;
        formats::ExportHash hash = formats::ExportHash::sha256;
        std::string name; // of an exported environment.yml; empty: the prefix's directory name
        // Write the export to this file (atomically); empty or "-": the text is for stdout. It
        // may not be the input lock; an existing file that differs is replaced only with force.
        std::string output;
        bool force = false;
    };

    struct ExportOutcome
    {
        formats::ExportResult exported;
        std::optional<UnreadableRecords> unreadable; // refused: nothing exported
        std::vector<std::string> notes;              // how the lock was read, and what it left out

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_export(const ExportRequest& request, Ports& ports)
      -> util::Result<ExportOutcome>;
}

#endif
