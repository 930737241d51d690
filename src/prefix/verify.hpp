// `check --deep`: the files of every conda record against what the package installed
// (paths_data: sha256_in_prefix and size), like `conda doctor altered-files` and
// `missing-files`, hashing on every core. Compiled files (.pyc, .pyo, path_type pyc_file) are
// not verified: they are written at install time and legitimately differ.
#ifndef ENVCHECK_PREFIX_VERIFY_HPP
#define ENVCHECK_PREFIX_VERIFY_HPP

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

    [[nodiscard]] auto verify_files(const std::string& prefix,
                                    const std::vector<model::PackageFiles>& packages,
                                    unsigned threads = 0) -> VerifyResult;

    // The sha256 of a file's bytes (lowercase hex), read in large blocks; nullopt when it cannot
    // be read. Exposed for the benchmark and tests.
    [[nodiscard]] auto sha256_of_file(const std::string& path, std::uint64_t* bytes_read = nullptr)
      -> std::optional<std::string>;
}

#endif
