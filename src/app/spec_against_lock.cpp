#include "app/spec_against_lock.hpp"

#include <algorithm>
#include <utility>

#include "checks/env_check.hpp"
#include "formats/lock.hpp"
#include "model/lock.hpp"

namespace envcheck::app
{
    namespace
    {
        // The locked packages of one platform, as an installed environment would hold them.
        // A lock without a conda python (uv.lock, pylock.toml) holds what `python` would run:
        // its markers are evaluated for it.
        auto as_installed(model::Lock lock, const std::string& python)
          -> model::InstalledEnvironment
        {
            model::InstalledEnvironment installed;
            installed.packages = std::move(lock.packages);
            // What only extras or other groups reach is locked too: the optional-dependencies
            // of a pyproject.toml are satisfied by it.
            installed.packages.insert(installed.packages.end(), lock.optional_packages.begin(),
                                      lock.optional_packages.end());
            model::sort_packages(installed.packages);
            const auto found = std::find_if(installed.packages.begin(), installed.packages.end(),
                                            [](const model::Package& package) {
                                                return package.manager == model::Manager::conda &&
                                                       package.name == "python";
                                            });
            if (found != installed.packages.end())
            {
                installed.python_version = found->version;
            }
            else if (!python.empty())
            {
                installed.python_version = python;
            }
            return installed;
        }

        auto platforms_to_check(const std::string& lock_text, const SpecAgainstLockRequest& request)
          -> util::Result<std::vector<std::string>>
        {
            if (!request.platform.empty())
            {
                return std::vector<std::string>{ request.platform };
            }
            auto outline = formats::outline_lock(lock_text, request.lock_path);
            if (!outline)
            {
                return util::unexpected(outline.error());
            }
            const bool universal = outline->format == model::LockFormat::uv ||
                                   outline->format == model::LockFormat::pylock;
            if (outline->platforms.empty() && universal && !request.machine_platform.empty())
            {
                return std::vector<std::string>{ request.machine_platform };
            }
            if (outline->platforms.empty())
            {
                return util::unexpected(
                  util::make_error(util::ErrorKind::usage, request.lock_path + " names no platform",
                                   {}, "pass --platform SUBDIR (linux-64, osx-arm64, ...)"));
            }
            return std::move(outline->platforms);
        }
    }

    auto check_specs_against_lock(const LoadedEnvironmentFile& environment_file,
                                  const std::string& lock_text,
                                  const SpecAgainstLockRequest& request,
                                  model::EnvironmentCheck& check) -> util::Result<void>
    {
        const auto platforms = platforms_to_check(lock_text, request);
        if (!platforms)
        {
            return util::unexpected(platforms.error());
        }
        const bool several = platforms->size() > 1;
        for (const auto& platform : *platforms)
        {
            auto lock = formats::parse_any_lock(lock_text, request.lock_path,
                                                { platform, request.environment, request.categories,
                                                  request.python_version, request.python_source });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            if (check.lock_format.value_or("").empty())
            {
                check.lock_format = std::string(model::to_string(lock->format));
            }
            for (auto& note : lock->notes)
            {
                check.notes.push_back(std::move(note));
            }
            const auto installed = as_installed(std::move(*lock), request.python_version);
            auto result = checks::check_environment_file(
              environment_file.file, environment_file.path, installed, platform, "locked");
            if (!result)
            {
                return util::unexpected(result.error());
            }
            for (auto& finding : result->packages)
            {
                if (several)
                {
                    finding.notes.insert(finding.notes.begin(), "platform " + platform);
                    if (!finding.reason.empty())
                    {
                        finding.reason.insert(0, platform + ": ");
                    }
                }
                check.packages.push_back(std::move(finding));
            }
            for (auto& note : result->notes)
            {
                if (several)
                {
                    note.insert(0, platform + ": ");
                }
                check.notes.push_back(std::move(note));
            }
        }
        return {};
    }
}
