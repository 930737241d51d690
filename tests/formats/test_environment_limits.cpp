// An environment file is a few KiB: one over the limit is refused before it is parsed (a 1 GiB
// file of comments once took 170 s and 3.9 GB).
#include <string>

#include "formats/environment_yaml.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("load_environment_yaml refuses a file over the size limit", "[formats][limits]")
    {
        std::string text = "dependencies:\n  - python\n";
        text.resize(formats::environment_file_size_limit + 1, '#');
        const auto loaded = formats::load_environment_yaml(text);
        REQUIRE_FALSE(loaded);
        CHECK(loaded.error().rule == "yaml.too-large");
        CHECK(loaded.error().message.find("not an environment file") != std::string::npos);

        text.resize(formats::environment_file_size_limit);
        std::fill(text.begin() + 25, text.end(), ' ');
        CHECK(formats::load_environment_yaml(text)); // at the limit: read
    }
}
