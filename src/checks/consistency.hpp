// "Is the installed environment consistent with itself?", as `pip check` and conda's
// consistency check ask it. Pure.
//
// - pip distributions: every Requires-Dist whose marker is true for the environment's python
//   and platform is satisfied by an installed distribution (pip's, or one conda installed),
//   pre-releases accepted as installed. A Requires-Dist under `extra == "x"` counts when another
//   installed distribution requires this one with extra x (`torch[cuda]`), which `pip check`
//   does not look at; otherwise the verdicts are pip check's.
// - conda records: every `depends` MatchSpec is satisfied by the installed record of that name
//   (virtual packages, `__cuda` and the like, are the machine's and are not checked here), and
//   every `constrains` MatchSpec by the installed record of that name, when there is one.
//
// Findings: status broken_dependency (a depends or Requires-Dist not met) or
// conflicting_constraint (a constrains not met), one per failing requirement, the package being
// the one whose requirement fails.
#ifndef ENVCHECK_CHECKS_CONSISTENCY_HPP
#define ENVCHECK_CHECKS_CONSISTENCY_HPP

#include <string>
#include <string_view>
#include <vector>

#include "model/environment.hpp"
#include "util/for_each_index.hpp"

namespace envcheck::checks
{
    struct ConsistencyCheck
    {
        std::vector<model::PackageFinding> packages; // broken_dependency, conflicting_constraint
        std::vector<std::string> notes;              // requirements that could not be judged
        std::size_t requirements_checked = 0;
    };

    // `platform`: the conda subdir the environment runs on ("linux-64"), for pip markers.
    // `for_each` runs the independent parts (parsing and judging each distinct conda spec text),
    // possibly at once; findings and notes come out in the same order either way.
    [[nodiscard]] auto check_consistency(
      const model::InstalledEnvironment& installed, std::string_view platform,
      const util::ForEachIndex& for_each = util::for_each_index_serially) -> ConsistencyCheck;
}

#endif
