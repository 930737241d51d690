// Access to ../shared/vectors/pep440_*.json (packaging's own test facts). envcheck follows
// packaging 26.x, the release pip vendors since pip 26.0: a case applies when packaging HEAD's
// test file asserts it; cases asserted only by packaging 25.0 are counted and skipped.
#ifndef ENVCHECK_TESTS_PYPI_VECTORS_HPP
#define ENVCHECK_TESTS_PYPI_VECTORS_HPP

#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/catch.hpp"

namespace envcheck::tests
{
    // packaging HEAD (26.4.dev0) test files, as the vectors name them.
    inline constexpr const char* packaging_head_version_tests =
      "pypa/packaging/tests/test_version.py@f300ebf0c155e1f7ea6d62fba11dba4bac3d1944";
    inline constexpr const char* packaging_head_specifier_tests =
      "pypa/packaging/tests/test_specifiers.py@f14a0933259121eb9b986bc1b7924910755d535d";

    // The vector file, or nullopt (with a WARN) when ../shared is not there.
    inline auto load_vectors(const std::string& name) -> std::optional<nlohmann::json>
    {
        const std::string path = std::string(ENVCHECK_SHARED_DIR) + "/vectors/" + name;
        std::ifstream in(path);
        if (!in)
        {
            FAIL("shared vectors missing (configure with -DENVCHECK_SHARED_DIR): " << path);
            return std::nullopt;
        }
        return nlohmann::json::parse(in);
    }

    inline auto asserted_by(const nlohmann::json& entry, const char* source) -> bool
    {
        for (const auto& s : entry.at("source"))
        {
            if (s.get<std::string>() == source)
            {
                return true;
            }
        }
        return false;
    }

    inline auto optional_bool(const nlohmann::json& value) -> std::optional<bool>
    {
        if (value.is_null())
        {
            return std::nullopt;
        }
        return value.get<bool>();
    }

    // Counts what a vector test checked and skipped, and prints it at the end.
    struct VectorTally
    {
        std::string what;
        int checked = 0;
        int skipped = 0;

        ~VectorTally()
        {
            std::cout << what << ": checked " << checked << " packaging 26.x case(s), skipped "
                      << skipped << " asserted only by packaging 25.0\n";
        }
    };
}

#endif
