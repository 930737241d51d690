// pyproject.toml as an environment file with a pip section only (`check --env pyproject.toml`):
// `[project] dependencies`, then every `[project.optional-dependencies]` group and every
// `[dependency-groups]` group (PEP 735; `{include-group = ...}` entries are followed by the
// group they name, not repeated). Each requirement keeps its line and column. Pure.
#ifndef ENVCHECK_FORMATS_PYPROJECT_HPP
#define ENVCHECK_FORMATS_PYPROJECT_HPP

#include <string_view>

#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    // Fails (ErrorKind::parse, file, line and column) on TOML that does not parse, or on a
    // `dependencies` that is not an array of strings. A pyproject.toml without [project] has
    // no requirements (an empty pip section).
    [[nodiscard]] auto parse_pyproject(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>;

    [[nodiscard]] auto is_pyproject_file_name(std::string_view file_name) -> bool;
}

#endif
