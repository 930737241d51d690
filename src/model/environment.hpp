// An installed environment as values (what src/prefix reads from a conda prefix or a venv), and
// the outcome of checking it against an environment file or a lock (what src/checks computes and
// src/report renders for `envcheck check`).
#ifndef ENVCHECK_MODEL_ENVIRONMENT_HPP
#define ENVCHECK_MODEL_ENVIRONMENT_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/check_result.hpp"
#include "model/package.hpp"
#include "util/error.hpp"

namespace envcheck::model
{
    enum class PrefixKind
    {
        conda, // has conda-meta/
        venv,  // a Python virtual environment: pyvenv.cfg and no conda-meta/
    };

    [[nodiscard]] auto to_string(PrefixKind kind) -> std::string_view;
    [[nodiscard]] auto parse_prefix_kind(std::string_view text) -> std::optional<PrefixKind>;

    // conda's path_type values that `--deep` treats differently.
    enum class PathType
    {
        hardlink, // a regular file: hashed
        softlink, // a symbolic link: must exist
        directory,
        pyc_file, // compiled at install time: not verified (as `conda doctor`)
        other,    // entry points and the rest: must exist
    };

    [[nodiscard]] auto to_string(PathType type) -> std::string_view;
    [[nodiscard]] auto parse_path_type(std::string_view text) -> PathType;

    // One path a conda record says it installed (paths_data), as expected in the prefix.
    struct InstalledFile
    {
        std::string path; // relative to the prefix, '/'-separated
        PathType type = PathType::hardlink;
        // The expected content: sha256_in_prefix, else the package's sha256 when no prefix
        // placeholder was replaced at install time; empty when unknown.
        std::string sha256;
        std::optional<std::uint64_t> size; // expected size in the prefix, when known

        auto operator==(const InstalledFile&) const -> bool = default;
    };

    struct PackageFiles
    {
        std::string package; // the conda record's or the distribution's name
        std::vector<InstalledFile> files;
        Manager manager = Manager::conda;
        // pip: the dist-info RECORD the files come from, relative to the prefix (its time of
        // writing tells a hash wrong from install apart from a later change); empty for conda.
        std::string record;

        auto operator==(const PackageFiles&) const -> bool = default;
    };

    struct InstalledEnvironment
    {
        std::string prefix; // as given (absolute when located from a name or $CONDA_PREFIX)
        PrefixKind kind = PrefixKind::conda;
        // conda records, and the Python distributions no conda record owns (pip, uv, ...),
        // sorted as model::sort_packages does.
        std::vector<Package> packages;
        // Distributions installed by conda packages (their dist-info is in a record's `files`):
        // not packages of their own, but what pip sees, so pip requirements can be satisfied
        // by them. Name and version come from the directory name.
        std::vector<Package> conda_owned_distributions;
        // conda records' `constrains` (MatchSpecs a package puts on others when they are
        // installed), by record name; records without any are absent.
        std::vector<std::pair<std::string, std::vector<std::string>>> constrains;
        std::optional<std::string> python_version; // "3.11.7": the python record or pyvenv.cfg
        std::vector<std::string> site_packages;    // relative to the prefix
        // Records and distributions that could not be read: file (relative to the prefix),
        // position and reason. The rest was still read.
        std::vector<util::Error> problems;
        std::vector<PackageFiles> files; // filled only when asked for (check --deep)
    };

    // ------------------------------------------------------------------------------------
    // The outcome of `envcheck check`
    // ------------------------------------------------------------------------------------

    // The fixed status words of the check report (other tools rely on them).
    enum class PackageStatus
    {
        ok,          // satisfied, or identical to the lock
        unsatisfied, // installed, but does not satisfy the spec
        missing,     // requested or locked, not installed
        changed,     // installed, but its identity differs from the lock
        extra,       // installed, not in the lock
        // installed, but one of its own requirements is not met by the environment (a conda
        // depends, a pip Requires-Dist): what `pip check` and conda's consistency check report
        broken_dependency,
        // installed, but a conda record's `constrains` rules out the installed version of
        // another package
        conflicting_constraint,
    };

    [[nodiscard]] auto to_string(PackageStatus status) -> std::string_view;
    [[nodiscard]] auto parse_package_status(std::string_view text) -> std::optional<PackageStatus>;

    struct PackageFinding
    {
        std::string name;
        Manager manager = Manager::conda;
        std::optional<std::string> spec;    // the requested spec as written (checks against --env)
        util::SourceLocation spec_location; // where the spec is written
        PackageRef expected;                // the locked package (checks against --lock)
        PackageRef installed;               // none when not installed
        PackageStatus status = PackageStatus::ok;
        std::string reason;             // why it is not ok, in one line
        std::vector<std::string> notes; // differences that do not change the status
    };

    enum class FileStatus
    {
        modified, // content (sha256) or size differs from what the package installed
        missing,  // not in the prefix any more
        // in a directory of a pip distribution, listed by no RECORD (check --deep --untracked)
        untracked,
        // pip: differs from RECORD, but was not written after RECORD was: the wheel shipped a
        // wrong hash (uv#11723), not a later change. Reported, does not fail the check.
        wrong_record_hash,
    };

    [[nodiscard]] auto to_string(FileStatus status) -> std::string_view;
    // Whether a file finding fails `check` (all but wrong_record_hash).
    [[nodiscard]] auto is_failure(FileStatus status) -> bool;

    struct FileFinding
    {
        std::string package;
        std::string path; // relative to the prefix
        FileStatus status = FileStatus::modified;
        std::string detail; // "sha256 differs", "size 120 bytes, expected 96"
    };

    struct DeepSummary
    {
        std::size_t files_checked = 0; // files hashed or checked for existence
        std::uint64_t bytes_hashed = 0;
        bool untracked = false; // --untracked: pip distributions' directories were listed
    };

    struct EnvironmentCheck
    {
        std::string prefix;
        std::optional<std::string> environment_file; // as given
        std::optional<std::string> lock_file;
        std::optional<std::string> lock_format; // model::to_string(LockFormat)
        bool deep = false;
        // What was used and what was missing ("no lock beside environment.yml"), in the order
        // the inputs were resolved.
        std::vector<std::string> notes;
        std::vector<PackageFinding> packages;
        std::vector<FileFinding> files;
        DeepSummary deep_summary;
        std::vector<util::Error> problems;     // unreadable records and distributions
        std::vector<CheckOutcome> machine;     // ids "machine.<field>"
        std::vector<CheckOutcome> performance; // ids "perf.<probe>.<metric>"

        // Everything matched: no package other than ok, no file finding, no unreadable record,
        // no failed machine or performance check.
        [[nodiscard]] auto passed() const -> bool;
        [[nodiscard]] auto count(PackageStatus status) const -> std::size_t;
        [[nodiscard]] auto count(FileStatus status) const -> std::size_t;
    };

    // The fleet formats' shape: one outcome per package finding (id "package.<manager>.<name>",
    // ok -> pass, else fail), per file finding ("file.<package>"), per unreadable record
    // ("record"), then the machine and performance outcomes as they are.
    [[nodiscard]] auto to_check_run(const EnvironmentCheck& check) -> CheckRun;
}

#endif
