// One conda package as repodata and conda-meta/*.json describe it (CEP 32/34/36), reduced to the
// fields a MatchSpec can test plus the dependency lists. The version is parsed once, when the
// record is built, so that matching specs against it costs no parsing; its text() is the version
// string as written.
#ifndef ENVCHECK_SPECS_PACKAGE_RECORD_HPP
#define ENVCHECK_SPECS_PACKAGE_RECORD_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "specs/version.hpp"

namespace envcheck::specs
{
    struct PackageRecord
    {
        std::string name;
        Version version;
        std::string build;
        std::uint64_t build_number = 0;
        std::string channel; // as recorded: a name or a URL ("" when unknown)
        std::string subdir;
        std::string md5;
        std::string sha256;
        std::string url;
        std::string fn;
        std::string license;
        std::string license_family;
        std::string noarch; // "", "python" or "generic"
        std::optional<std::uint64_t> size;
        std::optional<std::uint64_t> timestamp;
        std::vector<std::string> track_features;
        std::vector<std::string> features;
        std::vector<std::string> depends;    // MatchSpec strings
        std::vector<std::string> constrains; // MatchSpec strings
    };
}

#endif
