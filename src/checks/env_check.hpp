// "Does the installed environment satisfy its environment file?": every conda MatchSpec of an
// environment.yml against the installed conda records, every pip line against the installed
// Python distributions (including those conda installed, which pip sees too). Pure.
//
// - Entries with a platform selector (`# [linux]`, `sel(win): ...`) that does not apply to the
//   platform are left out.
// - pip requirements whose environment marker is false for the environment's python and
//   platform are left out; pip option lines are not requirements; `-r file` is not followed
//   (a note says so).
// - URL, VCS, path and editable lines are checked by project name, and by version or commit
//   when the line pins one.
#ifndef ENVCHECK_CHECKS_ENV_CHECK_HPP
#define ENVCHECK_CHECKS_ENV_CHECK_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "model/environment.hpp"
#include "specs/package_record.hpp"
#include "util/result.hpp"

namespace envcheck::checks
{
    struct EnvironmentFileCheck
    {
        std::vector<model::PackageFinding>
          packages;                     // in file order; status ok, unsatisfied or missing
        std::vector<std::string> notes; // what was not checked, and why
    };

    // Fails (ErrorKind::parse, with the spec's file:line:column) when a dependency is not a valid
    // MatchSpec or pip line: the file cannot say what it requires.
    [[nodiscard]] auto check_environment_file(const formats::EnvironmentFile& file,
                                              std::string_view file_name,
                                              const model::InstalledEnvironment& installed,
                                              std::string_view platform,
                                              std::string_view state = "installed")
      -> util::Result<EnvironmentFileCheck>;

    // An installed conda package as the record a MatchSpec is matched against (the fields a
    // MatchSpec reads; not its depends); nullopt when its version is not a conda version.
    [[nodiscard]] auto package_record_of(const model::Package& package)
      -> std::optional<specs::PackageRecord>;
    // A conda package's build number as a record has it (0 when unknown or negative).
    [[nodiscard]] auto conda_build_number(const model::Package& package) -> std::uint64_t;

    // Whether a selector (`linux`, `osx`, `win`, `unix`, `linux64`, `not win`, ...) applies to a
    // conda platform; nullopt when the selector is not understood.
    [[nodiscard]] auto selector_applies(std::string_view selector, std::string_view platform)
      -> std::optional<bool>;
}

#endif
