#include "system/pci.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck::system;

namespace
{
    TEST_CASE("parse_sysfs_hex", "[system][pci]")
    {
        CHECK(parse_sysfs_hex("0x10de\n") == 0x10deu);
        CHECK(parse_sysfs_hex("0x030200") == 0x030200u);
        CHECK(parse_sysfs_hex("10DE") == 0x10deu);
        CHECK_FALSE(parse_sysfs_hex(""));
        CHECK_FALSE(parse_sysfs_hex("0x"));
        CHECK_FALSE(parse_sysfs_hex("0xzz"));
        CHECK_FALSE(parse_sysfs_hex("0x123456789"));
    }

    TEST_CASE("read_pci", "[system][pci]")
    {
        SECTION("an H200 bound to nvidia, beside a host bridge")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            const auto pci = read_pci(SystemRoot(fixture.path()));
            CHECK(pci.sysfs_visible);
            REQUIRE(pci.devices.size() == 1);
            const auto& gpu = pci.devices[0];
            CHECK(gpu.address == "0000:17:00.0");
            CHECK(gpu.vendor_id == 0x10deu);
            CHECK(gpu.device_id == 0x2335u);
            CHECK(gpu.class_code == 0x030200u);
            CHECK(gpu.driver == "nvidia");
            CHECK(gpu.current_link_speed == "32.0 GT/s PCIe");
            CHECK(gpu.max_link_width == 16);
            CHECK(gpu.numa_node == 0);
            CHECK(pci.gpu_count() == 1);
        }
        SECTION("nouveau and vfio-pci")
        {
            const envcheck::tests::FixtureRoot nouveau("nouveau");
            CHECK(read_pci(SystemRoot(nouveau.path())).devices.at(0).driver == "nouveau");
            const envcheck::tests::FixtureRoot vfio("vfio");
            CHECK(read_pci(SystemRoot(vfio.path())).devices.at(0).driver == "vfio-pci");
        }
        SECTION("no NVIDIA function")
        {
            const envcheck::tests::FixtureRoot fixture("no-gpu");
            const auto pci = read_pci(SystemRoot(fixture.path()));
            CHECK(pci.sysfs_visible);
            CHECK(pci.devices.empty());
        }
        SECTION("an NVSwitch")
        {
            const envcheck::tests::FixtureRoot fixture("nvswitch");
            const auto pci = read_pci(SystemRoot(fixture.path()));
            CHECK(pci.has_nvswitch());
            CHECK(pci.gpu_count() == 1);
        }
        SECTION("no sysfs at all")
        {
            envcheck::tests::TempDir empty;
            const auto pci = read_pci(SystemRoot(empty.string()));
            CHECK_FALSE(pci.sysfs_visible);
            CHECK(pci.devices.empty());
        }
    }
}
