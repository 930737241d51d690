#include <filesystem>
#include <fstream>

#include "system/system_root.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using envcheck::system::normalize_path;
using envcheck::system::SystemRoot;

namespace
{
    void write(const std::filesystem::path& path, const std::string& text)
    {
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }

    TEST_CASE("normalize_path", "[system][SystemRoot]")
    {
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "/a/b/../c", "/a/c" }, { "/a/./b/", "/a/b" }, { "a//b", "/a/b" },
            { "/../..", "/" },       { "/", "/" },          { "", "/" },
        };
        for (const auto& [input, expected] : cases)
        {
            CAPTURE(input);
            CHECK(normalize_path(input) == expected);
        }
    }

    TEST_CASE("SystemRoot live", "[system][SystemRoot]")
    {
        const SystemRoot root("/");
        CHECK(root.live());
        CHECK(root.display() == "/");
        CHECK(root.host_path("/proc/self") == "/proc/self");
        CHECK(root.is_directory("/proc"));
        CHECK(root.read_text("/proc/sys/kernel/osrelease"));
        CHECK_FALSE(root.read_text("/proc")); // a directory is not text
        CHECK_FALSE(root.read_text("/does/not/exist"));
    }

    TEST_CASE("SystemRoot follows links inside the root", "[system][SystemRoot]")
    {
        envcheck::tests::TempDir dir;
        const auto& base = dir.path();
        write(base / "usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "driver");
        std::filesystem::create_directory_symlink("/usr/lib",
                                                  base / "lib"); // merged /usr, absolute
        std::filesystem::create_symlink("libcuda.so.580.65.06",
                                        base / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
        std::filesystem::create_symlink("/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                        base / "usr/lib/x86_64-linux-gnu/libcuda.so");
        std::filesystem::create_symlink("loop-b", base / "loop-a");
        std::filesystem::create_symlink("loop-a", base / "loop-b");

        const SystemRoot root(dir.string() + "/");
        CHECK_FALSE(root.live());
        CHECK(root.display() == dir.string());
        // An absolute link target means the root's /usr/lib, never the host's.
        CHECK(root.resolve("/lib/x86_64-linux-gnu/libcuda.so.1") ==
              "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
        CHECK(root.resolve("/usr/lib/x86_64-linux-gnu/libcuda.so") ==
              "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
        CHECK(root.read_text("/lib/x86_64-linux-gnu/libcuda.so.1") == "driver");
        CHECK(root.read_link("/lib/x86_64-linux-gnu/libcuda.so.1") == "libcuda.so.580.65.06");
        CHECK(root.resolve("/usr/../usr/lib/./missing") == "/usr/lib/missing");
        CHECK(root.resolve("/loop-a") == "/loop-a"); // a link loop ends, unresolved
        const auto names = root.list_directory("/usr/lib/x86_64-linux-gnu");
        REQUIRE(names);
        CHECK(*names ==
              std::vector<std::string>{ "libcuda.so", "libcuda.so.1", "libcuda.so.580.65.06" });
        CHECK_FALSE(root.list_directory("/nope"));
        const auto status = root.status("/lib/x86_64-linux-gnu/libcuda.so.1");
        REQUIRE(status);
        CHECK(status->regular);
        CHECK(status->size == 6);
        CHECK_FALSE(root.exists("/etc/os-release"));
    }
}
