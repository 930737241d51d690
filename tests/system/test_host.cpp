#include "system/host.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck::system;

namespace
{
    TEST_CASE("os_release_value", "[system][host]")
    {
        const std::string text =
          "NAME=\"Ubuntu\"\nVERSION_ID='24.04'\nID=ubuntu\nID_LIKE=debian\n# PRETTY_NAME=x\n";
        CHECK(os_release_value(text, "NAME") == "Ubuntu");
        CHECK(os_release_value(text, "VERSION_ID") == "24.04");
        CHECK(os_release_value(text, "ID") == "ubuntu"); // not ID_LIKE
        CHECK_FALSE(os_release_value(text, "PRETTY_NAME"));
        CHECK_FALSE(os_release_value("", "ID"));
    }

    TEST_CASE("glibc_version_from_banner", "[system][host]")
    {
        CHECK(glibc_version_from_banner(
                "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n") ==
              "2.36");
        CHECK(glibc_version_from_banner("...release version 2.39, by Roland McGrath") == "2.39");
        CHECK_FALSE(glibc_version_from_banner("no banner here"));
        CHECK_FALSE(glibc_version_from_banner("release version ."));
    }

    TEST_CASE("read_os", "[system][host]")
    {
        SECTION("a fixture root")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            const auto os = read_os(SystemRoot(fixture.path()));
            CHECK(os.pretty_name == "Ubuntu 24.04.2 LTS");
            CHECK(os.id == "ubuntu");
            CHECK(os.version_id == "24.04");
            CHECK(os.kernel_release == "6.8.0-60-generic");
            CHECK(os.architecture == "x86_64");
            CHECK_FALSE(os.glibc_version); // the fixture has no libc.so.6
            CHECK_FALSE(os.wsl());
        }
        SECTION("WSL2")
        {
            const envcheck::tests::FixtureRoot fixture("wsl");
            const auto os = read_os(SystemRoot(fixture.path()));
            CHECK(os.wsl());
            CHECK(os.wsl_markers.size() == 3);
        }
        SECTION("this machine")
        {
            const auto os = read_os(SystemRoot("/"));
            CHECK_FALSE(os.kernel_release.empty());
            CHECK_FALSE(os.architecture.empty());
            REQUIRE(os.glibc_version);
            CHECK(os.glibc_version->starts_with("2."));
        }
    }

    TEST_CASE("read_cpu", "[system][host]")
    {
        const envcheck::tests::FixtureRoot fixture("h200-ok");
        const auto cpu = read_cpu(SystemRoot(fixture.path()));
        CHECK(cpu.model == "INTEL(R) XEON(R) PLATINUM 8568Y+");
        CHECK(cpu.logical_cpus == 2);
        CHECK(read_cpu(SystemRoot("/")).logical_cpus.value_or(0) >= 1);
    }

    TEST_CASE("read_container", "[system][host]")
    {
        SECTION("docker marker and kubepods cgroup")
        {
            const envcheck::tests::FixtureRoot fixture("container-gpu");
            const auto container = read_container(SystemRoot(fixture.path()), {});
            CHECK(container.detected());
            CHECK(container.markers ==
                  std::vector<std::string>{ "/.dockerenv", "/proc/1/cgroup mentions kubepods" });
        }
        SECTION("no container")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            CHECK_FALSE(
              read_container(SystemRoot(fixture.path()), { { "container", "podman" } }).detected());
        }
    }

    TEST_CASE("read_gpu_daemons", "[system][host]")
    {
        const envcheck::tests::FixtureRoot with("nvswitch");
        CHECK(read_gpu_daemons(SystemRoot(with.path())) ==
              std::vector<std::string>{ "nv-fabricmanager" });
        const envcheck::tests::FixtureRoot without("nvswitch-no-fabric-manager");
        CHECK(read_gpu_daemons(SystemRoot(without.path())).empty());
    }

    TEST_CASE("read_hostname", "[system][host]")
    {
        const envcheck::tests::FixtureRoot fixture("h200-ok");
        CHECK(read_hostname(SystemRoot(fixture.path())) == "gpu-node-07");
        CHECK_FALSE(read_hostname(SystemRoot("/")).empty());
    }
}
