#include <string>
#include <string_view>
#include <vector>

#include "pypi/filename.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::parse_sdist_filename;
using envcheck::pypi::parse_wheel_filename;
using envcheck::pypi::WheelBuildTag;

namespace
{
    using Tags = std::vector<std::string>;

    TEST_CASE("parse_wheel_filename", "[pypi][filename]")
    {
        const auto numpy = parse_wheel_filename(
          "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
        REQUIRE(numpy.has_value());
        CHECK(numpy->name == "numpy");
        CHECK(numpy->version.to_string() == "1.26.4");
        CHECK_FALSE(numpy->build.has_value());
        CHECK(numpy->python_tags == Tags{ "cp312" });
        CHECK(numpy->abi_tags == Tags{ "cp312" });
        CHECK(numpy->platform_tags == Tags{ "manylinux_2_17_x86_64", "manylinux2014_x86_64" });

        const auto torch = parse_wheel_filename("torch-2.4.0+cu121-cp311-cp311-linux_x86_64.whl");
        REQUIRE(torch.has_value());
        CHECK(torch->version.to_string() == "2.4.0+cu121");

        const auto built = parse_wheel_filename("foo_bar-1.0-1abc-py3-none-any.whl");
        REQUIRE(built.has_value());
        CHECK(built->name == "foo-bar");
        CHECK(built->build == WheelBuildTag{ 1, "abc" });

        const auto universal = parse_wheel_filename("Foo.Bar-1.0-py2.py3-none-any.whl");
        REQUIRE(universal.has_value());
        CHECK(universal->name == "foo-bar");
        CHECK(universal->python_tags == Tags{ "py2", "py3" });
    }

    TEST_CASE("parse_wheel_filename negative", "[pypi][filename]")
    {
        for (const std::string_view name :
             { "foo-1.0-py3-none-any.zip", "foo-1.0-py3-none.whl", "foo-1.0-1-2-py3-none-any.whl",
               "foo__bar-1.0-py3-none-any.whl", "foo-notaversion-py3-none-any.whl",
               "foo-1.0-x1-py3-none-any.whl", "-1.0-py3-none-any.whl",
               "fo%o-1.0-py3-none-any.whl" })
        {
            CAPTURE(name);
            const auto parsed = parse_wheel_filename(name);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().input == name);
        }
    }

    TEST_CASE("parse_sdist_filename", "[pypi][filename]")
    {
        const auto sdist = parse_sdist_filename("foo-bar-1.0.tar.gz");
        REQUIRE(sdist.has_value());
        CHECK(sdist->name == "foo-bar");
        CHECK(sdist->version.to_string() == "1.0");
        const auto zip = parse_sdist_filename("Django-4.2rc1.zip");
        REQUIRE(zip.has_value());
        CHECK(zip->name == "django");
        CHECK(zip->version.to_string() == "4.2rc1");
        for (const std::string_view name :
             { "foo.tar.gz", "foo-1.0.tar.bz2", "foo-bar.tar.gz", "foo-1.0" })
        {
            CAPTURE(name);
            CHECK_FALSE(parse_sdist_filename(name).has_value());
        }
    }
}
