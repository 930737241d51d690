// The package list of an envcheck lock read straight from its text with JsonScanner, without a
// JSON document: at 10,000 packages nlohmann's DOM took most of `check --lock`'s instructions
// and memory (tests/bench/RESULTS.md, "check: scaling"). It accepts only what `envcheck lock`
// writes (the known keys, their types, null where allowed); anything else, an error included,
// makes it decline, and parse_lock reads the whole document the general way, which gives the
// errors with their positions.
#ifndef ENVCHECK_FORMATS_LOCK_PACKAGES_HPP
#define ENVCHECK_FORMATS_LOCK_PACKAGES_HPP

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "model/package.hpp"

namespace envcheck::formats
{
    struct ScannedLockPackages
    {
        std::vector<model::Package> packages;
        // [begin, end) of the `packages` value in the text, for reading the rest as a document.
        std::size_t begin = 0;
        std::size_t end = 0;
    };

    // nullopt: not a lock this reader takes (no single top-level `packages` list of objects of
    // the written shape, or not valid JSON there).
    [[nodiscard]] auto scan_lock_packages(std::string_view text)
      -> std::optional<ScannedLockPackages>;
}

#endif
