// pixi.lock (rattler_lock format versions 6 and 7) as text -> the lock of one environment and
// platform. Older versions (1-5) and newer ones are refused with a message naming the version.
//
// v6: environments.<env>.packages.<platform> lists {conda: URL} / {pypi: URL} references into
// the top-level `packages` list, whose conda entries omit name, version, build and subdir when
// the URL implies them (and build_number when it is 0). v7 adds a top-level `platforms` list
// (a name, and a subdir when it differs) and source packages ({conda_source: "name[hash] @
// path"}), which have no artifact hash and are compared by name, version and build.
#ifndef ENVCHECK_FORMATS_PIXI_LOCK_HPP
#define ENVCHECK_FORMATS_PIXI_LOCK_HPP

#include <string_view>

#include "formats/conda_lock.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    [[nodiscard]] auto parse_pixi_lock(std::string_view text, std::string_view file_name,
                                       const LockSelection& selection) -> util::Result<model::Lock>;
}

#endif
