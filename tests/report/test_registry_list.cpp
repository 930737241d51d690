#include "report/registry_list.hpp"
#include "tests/catch.hpp"

using envcheck::report::RegistryRow;

TEST_CASE("doctor --list pads every id to the longest and two spaces", "[report][list]")
{
    const std::vector<RegistryRow> checks{ { "os.kernel", "The kernel", "" },
                                           { "gpu.count", "The number of GPUs", "" },
                                           { "driver.nvml", "NVML answers", "" } };
    CHECK(envcheck::report::render_doctor_check_list(checks) == "os.kernel    The kernel\n"
                                                                "gpu.count    The number of GPUs\n"
                                                                "driver.nvml  NVML answers\n");
    CHECK(envcheck::report::render_doctor_check_list({}).empty());
}

TEST_CASE("smoke --list puts ids in a column of 16 and names what a probe requires",
          "[report][list]")
{
    const std::vector<RegistryRow> probes{
        { "hello", "Every SM runs a kernel", "" },
        { "tensor_core_fp8", "FP8 matmul", "sm_89 or newer" },
        { "a_very_long_probe_name", "Still one space", "" },
    };
    CHECK(envcheck::report::render_probe_list(probes) ==
          "hello           Every SM runs a kernel\n"
          "tensor_core_fp8 FP8 matmul (requires sm_89 or newer)\n"
          "a_very_long_probe_name Still one space\n");
}
