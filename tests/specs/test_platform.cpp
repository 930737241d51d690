#include "specs/platform.hpp"
#include "tests/catch.hpp"

using envcheck::specs::OperatingSystem;
using envcheck::specs::Platform;

namespace
{
    TEST_CASE("Platform round trip", "[specs][Platform]")
    {
        CHECK(envcheck::specs::known_platforms().size() == 22);
        for (const auto platform : envcheck::specs::known_platforms())
        {
            CAPTURE(to_string(platform));
            CHECK(envcheck::specs::parse_platform(to_string(platform)) == platform);
            CHECK(envcheck::specs::is_known_subdir(to_string(platform)));
        }
        CHECK_FALSE(envcheck::specs::parse_platform("linux-65").has_value());
        CHECK_FALSE(envcheck::specs::parse_platform("Linux-64").has_value());
        CHECK_FALSE(envcheck::specs::is_known_subdir("label"));
    }

    TEST_CASE("Platform operating system and architecture", "[specs][Platform]")
    {
        using envcheck::specs::architecture;
        using envcheck::specs::is_unix;
        using envcheck::specs::operating_system;
        CHECK(operating_system(Platform::linux_aarch64) == OperatingSystem::linux_os);
        CHECK(architecture(Platform::linux_aarch64) == "aarch64");
        CHECK(operating_system(Platform::osx_arm64) == OperatingSystem::osx);
        CHECK(architecture(Platform::osx_arm64) == "arm64");
        CHECK(operating_system(Platform::win_64) == OperatingSystem::windows);
        CHECK(to_string(OperatingSystem::windows) == "win");
        CHECK(operating_system(Platform::noarch) == OperatingSystem::none);
        CHECK(architecture(Platform::noarch).empty());
        CHECK(is_unix(Platform::linux_64));
        CHECK(is_unix(Platform::osx_64));
        CHECK_FALSE(is_unix(Platform::win_64));
        CHECK_FALSE(is_unix(Platform::noarch));
        CHECK_FALSE(is_unix(Platform::emscripten_wasm32));
    }
}
