// Golden-file comparison for renderer tests. ENVCHECK_UPDATE_GOLDEN=1 rewrites the files
// (review the diff before committing it).
#ifndef ENVCHECK_TESTS_GOLDEN_HPP
#define ENVCHECK_TESTS_GOLDEN_HPP

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.hpp"

namespace envcheck::tests
{
    inline void check_golden(const std::string& relative_path, const std::string& actual)
    {
        const std::string path = std::string(ENVCHECK_TEST_DATA_DIR) + "/golden/" + relative_path;
        const char* update = std::getenv("ENVCHECK_UPDATE_GOLDEN");
        if (update != nullptr && std::string(update) == "1")
        {
            std::ofstream(path, std::ios::binary) << actual;
        }
        std::ifstream in(path, std::ios::binary);
        INFO("golden file " << path << " (ENVCHECK_UPDATE_GOLDEN=1 rewrites it)");
        REQUIRE(in.good());
        std::stringstream expected;
        expected << in.rdbuf();
        CHECK(actual == expected.str());
    }
}

#endif
