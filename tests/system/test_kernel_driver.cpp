#include "system/kernel_driver.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck::system;

namespace
{
    TEST_CASE("parse_nvrm_version", "[system][kernel]")
    {
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC "
              "2024\nGCC version: gcc 12\n",
              "550.90.07" },
            { "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
              "(dvs-builder@U22)  Wed "
              "Jul 16 19:13:50 UTC 2025\n",
              "580.65.06" },
            { "NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.26  Sat Jan 25 2025\n",
              "570.26" },
        };
        for (const auto& [text, version] : cases)
        {
            CAPTURE(text);
            CHECK(parse_nvrm_version(text) == version);
        }
    }

    TEST_CASE("parse_nvrm_version negative", "[system][kernel]")
    {
        for (const std::string_view text :
             { "", "GCC version: gcc 12\n", "NVRM version: something else 1.2\n",
               "NVRM version: NVIDIA UNIX x86_64 Kernel Module  latest  Fri\n" })
        {
            CAPTURE(text);
            CHECK_FALSE(parse_nvrm_version(text));
        }
    }

    TEST_CASE("is_driver_version", "[system][kernel]")
    {
        for (const std::string_view text : { "580.65.06", "570.26", "470.82.01" })
        {
            CHECK(is_driver_version(text));
        }
        for (const std::string_view text :
             { "1.1", "1", "12.4", "580", "580.65.06.1", "580..06", "58a.1" })
        {
            CAPTURE(text);
            CHECK_FALSE(is_driver_version(text));
        }
    }

    TEST_CASE("read_kernel_driver", "[system][kernel]")
    {
        SECTION("loaded")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            const auto kernel = read_kernel_driver(SystemRoot(fixture.path()));
            CHECK(kernel.version == "580.65.06");
            CHECK(kernel.version_source == "/proc/driver/nvidia/version");
            CHECK(kernel.loaded("nvidia"));
            CHECK(kernel.loaded("nvidia_uvm"));
            CHECK_FALSE(kernel.loaded("nouveau"));
            CHECK(kernel.proc_gpus == std::vector<std::string>{ "0000:17:00.0" });
        }
        SECTION("not loaded, nouveau instead")
        {
            const envcheck::tests::FixtureRoot fixture("nouveau");
            const auto kernel = read_kernel_driver(SystemRoot(fixture.path()));
            CHECK_FALSE(kernel.version);
            CHECK_FALSE(kernel.loaded("nvidia"));
            CHECK(kernel.loaded("nouveau"));
        }
    }

    TEST_CASE("read_device_nodes", "[system][kernel]")
    {
        SECTION("present and open to everyone")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            const auto nodes = read_device_nodes(SystemRoot(fixture.path()));
            std::vector<std::string> paths;
            for (const auto& node : nodes)
            {
                paths.push_back(node.path);
                CHECK(node.exists);
                CHECK(node.mode == 0666u);
                CHECK(node.accessible == true);
                CHECK_FALSE(node.openable); // nothing is opened under --root
            }
            CHECK(paths == std::vector<std::string>{ "/dev/nvidiactl", "/dev/nvidia-uvm",
                                                     "/dev/nvidia-uvm-tools", "/dev/nvidia0" });
        }
        SECTION("group-only permissions")
        {
            const envcheck::tests::FixtureRoot fixture("devnode-permissions",
                                                       std::filesystem::perms(0660));
            for (const auto& node : read_device_nodes(SystemRoot(fixture.path())))
            {
                CAPTURE(node.path);
                CHECK(node.mode == 0660u);
                CHECK(node.accessible == false);
            }
        }
        SECTION("missing")
        {
            const envcheck::tests::FixtureRoot fixture("no-devnodes");
            const auto nodes = read_device_nodes(SystemRoot(fixture.path()));
            REQUIRE(nodes.size() == 2); // the two every machine needs, reported missing
            CHECK_FALSE(nodes[0].exists);
            CHECK_FALSE(nodes[1].exists);
        }
    }
}
