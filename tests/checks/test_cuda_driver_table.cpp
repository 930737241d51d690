#include <string>
#include <vector>

#include "checks/cuda_driver_table.hpp"
#include "tests/catch.hpp"

using namespace envcheck::checks;
using envcheck::model::CudaVersion;

namespace
{
    TEST_CASE("parse_driver_version", "[checks][DriverVersion]")
    {
        struct Case
        {
            std::string text;
            DriverVersion expected;
        };
        const std::vector<Case> cases{
            { "535.104.05", { 535, 104, 5 } },
            { "570.26", { 570, 26, 0 } },
            { "535", { 535, 0, 0 } },
            { " 580.65.06 ", { 580, 65, 6 } },
        };
        for (const auto& item : cases)
        {
            CAPTURE(item.text);
            const auto parsed = parse_driver_version(item.text);
            REQUIRE(parsed);
            CHECK(*parsed == item.expected);
        }
        CHECK(parse_driver_version("535.104.05")->to_string() == "535.104.05");
        CHECK(parse_driver_version("570.26")->to_string() == "570.26");
    }

    TEST_CASE("parse_driver_version negative", "[checks][DriverVersion]")
    {
        for (const std::string text :
             { "", "12.2", "abc", "535.", "535.x", "1.2.3.4", "-535", "99999999" })
        {
            CAPTURE(text);
            CHECK_FALSE(parse_driver_version(text));
        }
    }

    TEST_CASE("driver_requirement", "[checks][DriverRequirement]")
    {
        // gpu-anchors.md §3.1 (GA column) and §3.2 (family minimum).
        struct Case
        {
            CudaVersion cuda;
            DriverVersion full;
            DriverVersion family;
        };
        const std::vector<Case> cases{
            { { 10, 2 }, { 440, 33, 0 }, { 440, 33, 0 } },
            { { 11, 0 }, { 450, 51, 5 }, { 450, 51, 5 } },
            { { 11, 8 }, { 520, 61, 5 }, { 450, 80, 2 } },
            { { 12, 0 }, { 525, 60, 13 }, { 525, 60, 13 } },
            { { 12, 2 }, { 535, 54, 3 }, { 525, 60, 13 } },
            { { 12, 4 }, { 550, 54, 14 }, { 525, 60, 13 } },
            { { 12, 8 }, { 570, 26, 0 }, { 525, 60, 13 } },
            { { 13, 0 }, { 580, 65, 6 }, { 580, 65, 6 } },
            { { 13, 2 }, { 595, 45, 4 }, { 580, 65, 6 } },
        };
        for (const auto& item : cases)
        {
            CAPTURE(item.cuda.to_string());
            const auto requirement = driver_requirement(item.cuda);
            REQUIRE(requirement);
            CHECK(requirement->full == item.full);
            CHECK(requirement->family == item.family);
        }
        CHECK_FALSE(driver_requirement({ 12, 7 }));
        CHECK_FALSE(driver_requirement({ 99, 0 }));
    }

    TEST_CASE("newest_cuda_for", "[checks][DriverRequirement]")
    {
        CHECK(newest_cuda_for({ 535, 104, 5 }) == CudaVersion{ 12, 2 });
        CHECK(newest_cuda_for({ 535, 54, 3 }) == CudaVersion{ 12, 2 });
        CHECK(newest_cuda_for({ 535, 54, 2 }) == CudaVersion{ 12, 1 });
        CHECK(newest_cuda_for({ 570, 26, 0 }) == CudaVersion{ 12, 8 });
        CHECK(newest_cuda_for({ 580, 95, 5 }) == CudaVersion{ 13, 0 });
        CHECK_FALSE(newest_cuda_for({ 300, 0, 0 }));
    }

    TEST_CASE("driver_support", "[checks][DriverRequirement]")
    {
        CHECK(driver_support({ 11, 8 }, DriverVersion{ 535, 104, 5 }) == DriverSupport::full);
        CHECK(driver_support({ 12, 4 }, DriverVersion{ 535, 104, 5 }) ==
              DriverSupport::minor_compat);
        CHECK(driver_support({ 12, 4 }, DriverVersion{ 550, 54, 14 }) == DriverSupport::full);
        CHECK(driver_support({ 12, 0 }, DriverVersion{ 520, 61, 5 }) == DriverSupport::unsupported);
        CHECK(driver_support({ 13, 0 }, DriverVersion{ 575, 51, 3 }) == DriverSupport::unsupported);
        CHECK(driver_support({ 11, 8 }, DriverVersion{ 470, 82, 1 }) ==
              DriverSupport::minor_compat);
        CHECK(driver_support({ 11, 8 }, DriverVersion{ 450, 51, 5 }) == DriverSupport::unsupported);
        CHECK(driver_support({ 10, 2 }, DriverVersion{ 418, 39, 0 }) == DriverSupport::unsupported);
        CHECK_FALSE(driver_support({ 12, 7 }, DriverVersion{ 580, 0, 0 }));

        CHECK(driver_support({ 12, 4 }, CudaVersion{ 12, 2 }) == DriverSupport::minor_compat);
        CHECK(driver_support({ 12, 1 }, CudaVersion{ 12, 2 }) == DriverSupport::full);
        CHECK(driver_support({ 13, 0 }, CudaVersion{ 12, 9 }) == DriverSupport::unsupported);
        CHECK(to_string(DriverSupport::minor_compat) == "minor_compat");
    }
}
