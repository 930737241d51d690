// pylock.toml (PEP 751, `lock-version = "1.0"`; any 1.x is read, a newer minor with a note) as
// text -> the packages that apply to one environment. Pure.
//
// Every [[packages]] entry may carry a `marker`; it is evaluated (PEP 508, with the lock's
// `default-groups` as dependency_groups and no extras) for LockSelection's platform and python:
//   true                          a package (Lock::packages)
//   false, but true with every    an optional package (Lock::optional_packages): checked when
//   extra and group of the lock   installed, never missing
//   false                         left out, named with its marker in a note
// A lock whose `environments` markers all fail for the target is refused (PEP 751: a lock that
// cannot be used for the environment is an error).
//
// A package's source is exactly one of `vcs` (URL and commit-id), `directory` (path, editable),
// `archive` (URL or path, hashes), or `sdist`/`wheels` from `index` (sha256 and URL of one
// artifact, python_lock::representative). Errors (file, line, column): TOML that does not parse,
// no lock-version or a major version other than 1, a package without name, without version
// when it comes from an index or an archive, without a source or with two, a marker that does
// not parse.
#ifndef ENVCHECK_FORMATS_PYLOCK_HPP
#define ENVCHECK_FORMATS_PYLOCK_HPP

#include <cstddef>
#include <string_view>

#include "formats/conda_lock.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    inline constexpr int pylock_major_version = 1;
    inline constexpr int pylock_newest_minor_version = 0;

    [[nodiscard]] auto parse_pylock(std::string_view text, std::string_view file_name,
                                    const LockSelection& selection) -> util::Result<model::Lock>;

    // How many [[packages]] entries the lock holds (for lint's outline); its lock-version and
    // TOML are checked, not its entries.
    [[nodiscard]] auto count_pylock_entries(std::string_view text, std::string_view file_name)
      -> util::Result<std::size_t>;
}

#endif
