// `envcheck check --env FILE --lock LOCK` with no installed environment: does the lock still
// satisfy the environment file? Every spec against the locked packages of each platform of the
// lock, without installing anything (conda-lock#479, pixi#2253): fast enough for pre-commit.
#ifndef ENVCHECK_APP_SPEC_AGAINST_LOCK_HPP
#define ENVCHECK_APP_SPEC_AGAINST_LOCK_HPP

#include <string>
#include <vector>

#include "app/environment_file.hpp"
#include "model/environment.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct SpecAgainstLockRequest
    {
        std::string lock_path;
        std::string environment = "default"; // pixi.lock
        std::vector<std::string> categories; // conda-lock; empty: all
        std::string platform;                // empty: every platform of the lock
        // This machine's platform: what a universal lock (uv.lock, pylock.toml), which names
        // no platform, is read for when `platform` is empty.
        std::string machine_platform{};
        // The python a uv.lock or pylock.toml is read for, and where it came from
        // (app/marker_python.hpp); empty: none known.
        std::string python_version{};
        std::string python_source{};
    };

    // Fills check.packages (one finding per spec and platform; a multi-platform lock names the
    // platform in each finding) and check.notes. A lock or a spec that cannot be read is an
    // error; a spec the lock does not satisfy is a finding.
    [[nodiscard]] auto check_specs_against_lock(const LoadedEnvironmentFile& environment_file,
                                                const std::string& lock_text,
                                                const SpecAgainstLockRequest& request,
                                                model::EnvironmentCheck& check)
      -> util::Result<void>;
}

#endif
