// `check --deep`: the files of every conda record against what the package installed
// (paths_data: sha256_in_prefix and size), like `conda doctor altered-files` and
// `missing-files`, and the files of every pip distribution against its dist-info RECORD
// (sha256 and size), hashing on every core. Compiled files (.pyc, .pyo, path_type pyc_file) are
// not verified: they are written at install time and legitimately differ; a RECORD line without
// a hash (RECORD itself) must only exist, as pip treats it.
//
// pip only: a file whose content differs from RECORD but that was not written after RECORD
// (its mtime is not newer) has been so since install: the wheel shipped a wrong hash
// (uv#11723), reported as wrong-record-hash, not as modified. A change that restores the mtime
// (touch -r) is reported the same way: the mtime is the only witness. A symbolic link whose
// target lies outside the prefix is never followed.
#ifndef ENVCHECK_PREFIX_VERIFY_HPP
#define ENVCHECK_PREFIX_VERIFY_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/environment.hpp"

namespace envcheck::prefix
{
    struct VerifyResult
    {
        std::vector<model::FileFinding> findings; // sorted by package, then path
        model::DeepSummary summary;
    };

    struct VerifyOptions
    {
        unsigned threads = 0; // 0: one per usable CPU (prefix/cpus.hpp)
        // Also list the directories of every pip distribution (below site-packages) for files
        // that no RECORD and no conda record lists; __pycache__ directories and the installer's
        // own dist-info files (direct_url.json, INSTALLER, REQUESTED) do not count.
        bool untracked = false;
    };

    [[nodiscard]] auto verify_files(const std::string& prefix,
                                    const std::vector<model::PackageFiles>& packages,
                                    const VerifyOptions& options) -> VerifyResult;
    [[nodiscard]] auto verify_files(const std::string& prefix,
                                    const std::vector<model::PackageFiles>& packages,
                                    unsigned threads = 0) -> VerifyResult;

    // The sha256 of a file's bytes (lowercase hex), read in large blocks; nullopt when it cannot
    // be read. Exposed for the benchmark and tests.
    [[nodiscard]] auto sha256_of_file(const std::string& path, std::uint64_t* bytes_read = nullptr)
      -> std::optional<std::string>;
}

#endif
