// pixi.lock (rattler_lock format versions 4 to 7) as text -> the lock of one environment and
// platform. Versions 1 to 3 have conda-lock's layout and are read by formats/conda_lock.hpp;
// newer versions are refused with a message naming the version.
//
// Every version lists, per environment and platform, references ({conda: URL}, {pypi: URL or
// path}) into a top-level `packages` list:
//   v4, v5  entries are tagged `kind: conda|pypi` and spell out name, version, build and subdir;
//           their location is `url:` or `path:`.
//   v6      entries are keyed by their location (`conda: URL`, `pypi: URL`) and omit name,
//           version, build and subdir when the URL implies them (build_number when the build
//           string's suffix does).
//   v7      adds a top-level `platforms` list ({name, subdir?}: environments are keyed by the
//           name, which may differ from the conda subdir) and source packages (`conda_source:
//           "name[hash] @ path"`, or `conda:` with a path or git URL and name/variants in the
//           reference), which have no artifact hash and are compared by name, version and build.
// An environment's PyPI `indexes` and `find-links` become Lock::pip_options. Lock's platform is
// always the conda subdir; LockSelection::platform may name either.
#ifndef ENVCHECK_FORMATS_PIXI_LOCK_HPP
#define ENVCHECK_FORMATS_PIXI_LOCK_HPP

#include <string_view>
#include <vector>

#include "formats/conda_lock.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    [[nodiscard]] auto parse_pixi_lock(std::string_view text, std::string_view file_name,
                                       const LockSelection& selection) -> util::Result<model::Lock>;

    // The same on a loaded document whose root is a mapping.
    [[nodiscard]] auto read_pixi_lock(const yaml::Node& root, std::string_view file_name,
                                      const LockSelection& selection) -> util::Result<model::Lock>;

    // Several selections of one document, its packages indexed once (outline_lock reads every
    // environment and platform).
    [[nodiscard]] auto read_pixi_locks(const yaml::Node& root, std::string_view file_name,
                                       const std::vector<LockSelection>& selections)
      -> std::vector<util::Result<model::Lock>>;
}

#endif
