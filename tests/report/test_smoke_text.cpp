#include "report/smoke_text.hpp"
#include "tests/catch.hpp"
#include "tests/report/test_smoke_fixture.hpp"

using envcheck::report::render_smoke_text;
using envcheck::report::SmokeTextOptions;
using envcheck::tests::check_smoke_golden;

namespace
{
    TEST_CASE("render_smoke_text", "[report][smoke]")
    {
        SECTION("one line per probe")
        {
            check_smoke_golden("quick.txt",
                               render_smoke_text(envcheck::tests::sample_report(), {}));
        }
        SECTION("with the metrics under each probe")
        {
            check_smoke_golden(
              "quick-metrics.txt",
              render_smoke_text(envcheck::tests::sample_report(), SmokeTextOptions{ true }));
        }
        SECTION("no driver: why nothing ran")
        {
            check_smoke_golden("no-driver.txt",
                               render_smoke_text(envcheck::tests::no_driver_report(), {}));
        }
        SECTION("no usable device")
        {
            check_smoke_golden("no-device.txt",
                               render_smoke_text(envcheck::tests::no_device_report(), {}));
        }
    }
}
