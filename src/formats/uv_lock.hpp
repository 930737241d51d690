// uv.lock (uv's universal lock, `version = 1`, revisions up to 5) as text -> the packages that
// apply to one environment. Pure.
//
// A uv.lock is universal: it holds every package any platform and python may need, and marks
// the dependency edges, not the packages, with markers (`{ name = "x", marker =
// "sys_platform == 'win32'" }`; a python-version fork adds one entry per version, selected by
// the edges' markers). So the packages that apply are found by walking the dependency graph
// from the workspace members (`[manifest] members`, else the `virtual`/`editable` "." project)
// through the edges whose markers hold for LockSelection's platform and python:
//   required  the members' dependencies and their `dev` group (what `uv sync` installs)
//   optional  reached only through an extra or another group: Lock::optional_packages
//   left out  reached through no true edge: named, with the marker that excluded them, in a note
// A `virtual` source is not installed and is never a package.
//
// Each package keeps its source: a registry's index (an http index becomes a pip option, a
// local find-links directory a --find-links option), a direct URL (archive sha256), a git URL
// and commit, or a path (editable for `editable`); its sha256 and URL are those of one artifact
// (python_lock::representative). Errors (file, line, column): TOML that does not parse, a
// `version` other than 1, a package without name or version, a source of an unknown kind, a
// dependency on a package that is not in the lock, a marker that does not parse. A revision
// newer than 5 is read, with a note (revisions only add fields).
#ifndef ENVCHECK_FORMATS_UV_LOCK_HPP
#define ENVCHECK_FORMATS_UV_LOCK_HPP

#include <cstddef>
#include <string_view>

#include "formats/conda_lock.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    inline constexpr long long uv_lock_version = 1;
    inline constexpr long long uv_lock_newest_revision = 5;

    [[nodiscard]] auto parse_uv_lock(std::string_view text, std::string_view file_name,
                                     const LockSelection& selection) -> util::Result<model::Lock>;

    // How many [[package]] entries the lock holds (for lint's outline); the file must parse as
    // parse_uv_lock reads it.
    [[nodiscard]] auto count_uv_lock_entries(std::string_view text, std::string_view file_name)
      -> util::Result<std::size_t>;
}

#endif
