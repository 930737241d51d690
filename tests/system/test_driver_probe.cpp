#include "system/driver_probe.hpp"
#include "tests/catch.hpp"

using namespace envcheck::system;

// The real libraries, dlopen()ed in the child: on a machine without a driver (CI) they are not
// found, and that must be a clean finding, not a failure of the probe.
namespace
{
    TEST_CASE("probe_nvml on this machine", "[system][driver_probe]")
    {
        const auto probe = probe_nvml({});
        CHECK(probe.facts.attempted);
        CHECK_FALSE(probe.facts.failure.failed());
        if (probe.facts.library)
        {
            CHECK(probe.facts.library->real_path.find("libnvidia-ml") != std::string::npos);
            CHECK(probe.facts.init_result);
        }
        else
        {
            CHECK(probe.facts.load_error.find("libnvidia-ml.so.1") != std::string::npos);
            CHECK_FALSE(probe.facts.init_result);
        }
    }

    TEST_CASE("probe_cuda_driver on this machine", "[system][driver_probe]")
    {
        const auto facts = probe_cuda_driver();
        CHECK(facts.attempted);
        CHECK_FALSE(facts.failure.failed());
        if (facts.library)
        {
            CHECK(facts.driver_version);
            CHECK(facts.init_result);
        }
        else
        {
            CHECK(facts.load_error.find("libcuda.so.1") != std::string::npos);
        }
    }

    TEST_CASE("probe_nvml opens device nodes", "[system][driver_probe]")
    {
        const auto probe = probe_nvml({ "/dev/null", "/nonexistent/nvidia0" });
        REQUIRE(probe.opens.size() == 2);
        CHECK(probe.opens[0].ok);
        CHECK_FALSE(probe.opens[1].ok);
        CHECK(probe.opens[1].error.find("No such file") != std::string::npos);
    }

    // On the GPU machine (tests/device): the driver answers and sees the GPUs.
    TEST_CASE("probe on a GPU machine", "[system][driver_probe][.gpu]")
    {
        const auto nvml = probe_nvml({});
        REQUIRE(nvml.facts.library);
        CHECK(nvml.facts.initialized());
        CHECK(nvml.facts.device_count.value_or(0) > 0);
        const auto cuda = probe_cuda_driver();
        REQUIRE(cuda.library);
        CHECK(cuda.initialized());
        CHECK(cuda.device_count.value_or(0) > 0);
        REQUIRE_FALSE(cuda.devices.empty());
        CHECK(cuda.devices[0].multiprocessors.value_or(0) > 0);
        CHECK(cuda.devices[0].warp_size == 32);
    }
}
