// Distribution file names, which locks and URLs carry: wheels (PEP 427,
// "name-version(-build)?-python-abi-platform.whl") and sdists ("name-version.tar.gz" or ".zip"),
// read as packaging's parse_wheel_filename / parse_sdist_filename do.
#ifndef ENVCHECK_PYPI_FILENAME_HPP
#define ENVCHECK_PYPI_FILENAME_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypi/version.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    struct WheelBuildTag
    {
        std::uint64_t number = 0; // the leading digits
        std::string suffix;       // the rest ("" in "1", "abc" in "1abc")

        auto operator==(const WheelBuildTag&) const -> bool = default;
    };

    struct WheelFilename
    {
        std::string name; // normalized (PEP 503)
        Version version;
        std::optional<WheelBuildTag> build;
        // The compressed tag sets, split on '.': "cp312", "abi3", "manylinux_2_17_x86_64", ...
        std::vector<std::string> python_tags;
        std::vector<std::string> abi_tags;
        std::vector<std::string> platform_tags;
    };

    struct SdistFilename
    {
        std::string name; // normalized (PEP 503)
        Version version;
    };

    [[nodiscard]] auto parse_wheel_filename(std::string_view filename)
      -> util::Result<WheelFilename, util::ParseError>;
    // ".tar.gz" or ".zip"; the version is what follows the last '-'.
    [[nodiscard]] auto parse_sdist_filename(std::string_view filename)
      -> util::Result<SdistFilename, util::ParseError>;
}

#endif
