#include <string>
#include <utility>
#include <vector>

#include "tests/catch.hpp"
#include "util/control_chars.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("escape_control_characters", "[util][control]")
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            { "numpy 1.26.4\n\tok\n", "numpy 1.26.4\n\tok\n" },
            { "evil\x1b[2J\x1b]0;owned\x07", "evil\\x1b[2J\\x1b]0;owned\\x07" },
            { "a\rb", "a\\x0db" },
            { std::string("nul\0x", 5), "nul\\x00x" },
            { "del\x7f", "del\\x7f" },
            { "caf\xc3\xa9 \xe2\x86\x92", "caf\xc3\xa9 \xe2\x86\x92" }, // UTF-8 is kept
        };
        for (const auto& [input, expected] : cases)
        {
            CHECK(util::escape_control_characters(input) == expected);
        }
    }
}
