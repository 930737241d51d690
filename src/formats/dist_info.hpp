// The files pip, uv and setuptools leave in site-packages for an installed distribution
// (PyPA "Recording installed projects", PEP 610 "Direct URL"), as text -> values. Pure: the
// prefix adapter reads the files.
//
//   <name>-<version>.dist-info/  METADATA (core metadata: Name, Version, Requires-Dist),
//                                INSTALLER (one line: "pip", "uv", "conda", ...),
//                                direct_url.json (url + archive_info | vcs_info | dir_info),
//                                REQUESTED (present when the user asked for the package)
//   <name>-<version>[-pyX.Y].egg-info  a PKG-INFO file (same format as METADATA), or a
//                                directory holding PKG-INFO
#ifndef ENVCHECK_FORMATS_DIST_INFO_HPP
#define ENVCHECK_FORMATS_DIST_INFO_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/package.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct CoreMetadata
    {
        std::string name;    // as written
        std::string version; // as written
        std::vector<std::string> requires_dist;
    };

    // METADATA / PKG-INFO: the header fields up to the first blank line (the body is the
    // description). Name and Version are required.
    [[nodiscard]] auto parse_core_metadata(std::string_view text, std::string_view file_name)
      -> util::Result<CoreMetadata>;

    // direct_url.json (PEP 610).
    [[nodiscard]] auto parse_direct_url(std::string_view text, std::string_view file_name)
      -> util::Result<model::DirectUrl>;

    // INSTALLER: its first line, trimmed ("pip", "uv", "uv-pixi", "conda").
    [[nodiscard]] auto parse_installer(std::string_view text) -> std::string;

    struct DistDirectoryName
    {
        std::string name;
        std::string version; // empty for a "name.egg-info" without version (develop installs)
        bool egg_info = false;
    };

    // One row of a dist-info RECORD (PyPA "Recording installed projects"): a CSV line
    // `path,sha256=<urlsafe base64, no padding>,size`. Paths are relative to site-packages
    // ('/'-separated, may climb out of it: "../../../bin/tool"); hash and size may be empty
    // (RECORD itself, .pyc files compiled after install).
    struct RecordEntry
    {
        std::string path;
        std::string sha256;                // lowercase hex; empty when no sha256 is recorded
        std::string other_hash;            // "sha1=..." and the like: kept, not verified
        std::optional<std::uint64_t> size; // nullopt when empty
        std::size_t line = 0;

        auto operator==(const RecordEntry&) const -> bool = default;
    };

    // RECORD as CSV (quoted fields allowed). A malformed line (no path, a bad hash or size, an
    // unterminated quote, a NUL byte) is an error naming the file and line.
    [[nodiscard]] auto parse_record(std::string_view text, std::string_view file_name)
      -> util::Result<std::vector<RecordEntry>>;

    // RFC 4648 "base64url" without padding -> bytes; nullopt on a character outside the alphabet
    // or an impossible length.
    [[nodiscard]] auto decode_base64url(std::string_view text) -> std::optional<std::string>;

    // "six-1.16.0.dist-info", "certifi-2018.8.13-py2.7.egg-info", "foo.egg-info".
    [[nodiscard]] auto parse_dist_directory_name(std::string_view directory)
      -> std::optional<DistDirectoryName>;
}

#endif
