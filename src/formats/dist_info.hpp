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

    // "six-1.16.0.dist-info", "certifi-2018.8.13-py2.7.egg-info", "foo.egg-info".
    [[nodiscard]] auto parse_dist_directory_name(std::string_view directory)
      -> std::optional<DistDirectoryName>;
}

#endif
