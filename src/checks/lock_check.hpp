// "Does the environment match what we locked?": an installed environment against a lock
// (ours or a peer's), package by package, then the machine. Pure: both sides come in as values.
//
// Identity of a conda package is rattler's rule (describe_same_content): the sha256 of the
// artifact when both sides have one, else the md5, else name, version and build. Channel,
// subdir and URL differences do not change the status; they are reported as notes. A pip
// package is identified by its normalized name and PEP 440 version, plus the commit or archive
// hash of a direct-URL install when the lock records one. A package locked under one manager
// and installed under the other (pip numpy vs conda numpy) is `changed`, not missing + extra.
#ifndef ENVCHECK_CHECKS_LOCK_CHECK_HPP
#define ENVCHECK_CHECKS_LOCK_CHECK_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/check_result.hpp"
#include "model/environment.hpp"
#include "model/lock.hpp"
#include "model/package.hpp"
#include "util/for_each_index.hpp"

namespace envcheck::checks
{
    // One finding per locked package (ok, missing, changed) and per installed package the lock
    // does not have (extra), sorted by manager and name. Optional packages of a peer's lock are
    // compared when installed and never missing; virtual packages (__cuda, ...) are skipped.
    [[nodiscard]] auto compare_to_lock(const model::Lock& lock,
                                       const model::InstalledEnvironment& installed)
      -> std::vector<model::PackageFinding>;
    // The same over the lock's packages, its optional packages and the installed packages,
    // handed over: each moves into its finding instead of being copied (issue 19: two copies of
    // every package of a 10,000-package check). The keys and the findings are independent items
    // of `for_each` (app hands its workers).
    [[nodiscard]] auto compare_to_lock(
      std::vector<model::Package> locked_packages, std::vector<model::Package> optional_packages,
      std::vector<model::Package> installed_packages,
      const util::ForEachIndex& for_each = util::for_each_index_serially)
      -> std::vector<model::PackageFinding>;

    // compare_to_lock in two steps, so that others may read the installed packages meanwhile
    // (app's check runs the consistency check beside the first): the findings drafted with
    // every field but `installed`, the installed packages only read; then each installed
    // package moved into its finding, and the findings sorted.
    struct LockFindingsDraft
    {
        static constexpr std::size_t not_installed = static_cast<std::size_t>(-1);
        std::vector<model::PackageFinding> findings;
        std::vector<std::size_t> installed; // per finding: its installed package, or not_installed
    };
    [[nodiscard]] auto draft_lock_findings(
      std::vector<model::Package> locked_packages, std::vector<model::Package> optional_packages,
      const std::vector<model::Package>& installed_packages,
      const util::ForEachIndex& for_each = util::for_each_index_serially) -> LockFindingsDraft;
    [[nodiscard]] auto finish_lock_findings(LockFindingsDraft draft,
                                            std::vector<model::Package> installed_packages)
      -> std::vector<model::PackageFinding>;

    // One finding per package when a check ran against both an environment file and a lock: the
    // environment file's side (spec, unsatisfied or missing) joined with the lock's (expected,
    // changed, missing or extra). When both find a package wrong, the environment file's status
    // and reason win and the lock's reason becomes a note.
    [[nodiscard]] auto merge_findings(std::vector<model::PackageFinding> from_environment_file,
                                      std::vector<model::PackageFinding> from_lock)
      -> std::vector<model::PackageFinding>;

    // Why `installed` is not the package `locked` describes; empty when it is.
    [[nodiscard]] auto identity_difference(const model::Package& locked,
                                           const model::Package& installed) -> std::string;

    // Differences that do not change the identity: channel, subdir, URL.
    [[nodiscard]] auto source_notes(const model::Package& locked, const model::Package& installed)
      -> std::vector<std::string>;

    // "conda-forge" for "https://conda.anaconda.org/conda-forge/", "pkgs/main" for
    // "https://repo.anaconda.com/pkgs/main"; other URLs without a trailing slash.
    [[nodiscard]] auto channel_name(std::string_view channel) -> std::string;

    // The machine part, one outcome per field, ids "machine.platform", "machine.python",
    // "machine.glibc", "machine.driver_version", "machine.cuda_driver_version", "machine.gpus":
    // a different platform or python, an older glibc or a lower driver CUDA version, another
    // GPU count, model or compute capability fail; a newer glibc, driver or CUDA version warn;
    // what either side does not know is skipped with the reason.
    [[nodiscard]] auto compare_machine(const model::LockedMachine& locked,
                                       const model::LockedMachine& current)
      -> std::vector<model::CheckOutcome>;

    // Numeric dotted-version comparison ("2.36" < "2.39", "12.4" < "12.10"); nullopt when either
    // is not dotted numbers.
    [[nodiscard]] auto compare_dotted(std::string_view a, std::string_view b) -> std::optional<int>;
}

#endif
