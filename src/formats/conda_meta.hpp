// One conda-meta/<name>-<version>-<build>.json record (CEP 32) as text -> the package it
// describes. Pure: the prefix adapter reads the files.
//
// Records are read for identity fast: the top-level keys are scanned and only name, version,
// build, build_number, channel, subdir, url, fn, md5, sha256, size, requested_spec(s), depends
// and noarch are decoded; `files` is skipped by structure while the dist-info / egg-info
// directories the record owns are picked out of it (formats/conda_meta_scanner.hpp), and
// `paths_data`, most of a large record's bytes, is not read at all: the keys after it are read
// backward from the end of the record. With `CondaMetaOptions::files` (check --deep) `files` and
// `paths_data` are decoded as well.
// Unknown keys are ignored (CEP 32). name, version and build are required; every other field
// may be missing, as in real records.
#ifndef ENVCHECK_FORMATS_CONDA_META_HPP
#define ENVCHECK_FORMATS_CONDA_META_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/environment.hpp"
#include "model/package.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct CondaMetaOptions
    {
        bool files = false; // decode `files` and `paths_data` (check --deep)
    };

    struct CondaMetaRecord
    {
        model::Package
          package;          // manager conda, installer "conda", requested from requested_spec(s)
        std::string noarch; // "python", "generic", or empty
        // The Python distributions the record installed: "<site-packages>/<dist>.dist-info" or
        // ".egg-info" paths, relative to the prefix, each once.
        std::vector<std::string> python_anchors;
        std::vector<std::string> constrains; // MatchSpecs on other packages, if installed
        std::vector<std::string> files;      // with CondaMetaOptions::files
        // With CondaMetaOptions::files: the paths_data entries, paths as installed in the prefix
        // (noarch: python's "site-packages/" and "python-scripts/" mapped through `files`).
        std::vector<model::InstalledFile> paths;
        bool has_paths_data = false;

        auto operator==(const CondaMetaRecord&) const -> bool = default;
    };

    // The fast path. Errors are ErrorKind::parse with the file, line and column of the problem.
    // A record the fast path rejects is handed to parse_conda_meta_full, which decides.
    [[nodiscard]] auto parse_conda_meta(std::string_view text, std::string_view file_name,
                                        const CondaMetaOptions& options = {})
      -> util::Result<CondaMetaRecord>;

    // The same through a full JSON document (nlohmann): the reference the fast path is tested
    // against, and its fallback.
    [[nodiscard]] auto parse_conda_meta_full(std::string_view text, std::string_view file_name,
                                             const CondaMetaOptions& options = {})
      -> util::Result<CondaMetaRecord>;

    // The distribution a prefix path belongs to:
    // "lib/python3.11/site-packages/six-1.16.0.dist-info" for ".../six-1.16.0.dist-info/RECORD",
    // the .egg-info file or directory likewise.
    [[nodiscard]] auto python_anchor_of(std::string_view path) -> std::optional<std::string_view>;
}

#endif
