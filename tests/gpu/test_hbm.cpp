// The device-memory probe: its arithmetic on any machine; its kernels on the GPU machine only
// ([.gpu] is hidden; tests/device/run.sh runs it).
#include <cstddef>
#include <string>

#include "kernels/hbm.cuh"
#include "tests/catch.hpp"

#ifdef ENVCHECK_WITH_CUDA
#include "kernels/device.cuh"
#endif

using namespace envcheck;
using kernels::HbmKernel;

namespace
{
    constexpr std::size_t gib = std::size_t{ 1 } << 30;

    TEST_CASE("hbm arithmetic", "[gpu][hbm]")
    {
        // Copies move every byte twice (read and written); read and write once.
        CHECK(kernels::hbm_bytes_moved(HbmKernel::read, gib) == 1073741824.0);
        CHECK(kernels::hbm_bytes_moved(HbmKernel::write, gib) == 1073741824.0);
        CHECK(kernels::hbm_bytes_moved(HbmKernel::copy, gib) == 2147483648.0);
        CHECK(kernels::hbm_bytes_moved(HbmKernel::memcpy, gib) == 2147483648.0);
        CHECK(kernels::gigabytes_per_second(4.0e9, 1.0) == Approx(4000.0));
        CHECK(kernels::gigabytes_per_second(4.0e9, 0.0) == 0.0);
        // The H200 reports HBM3e at 3201 MHz over 6016 bits, two transfers a clock: 4814 GB/s
        // (its datasheet says 4.8 TB/s); H100 SXM: 2619 MHz over 5120 bits, 3352 (datasheet 3.35).
        CHECK(kernels::hbm_peak_gbps(3201000, 6016) == Approx(4814.3).epsilon(1e-4));
        CHECK(kernels::hbm_peak_gbps(2619000, 5120) == Approx(3352.3).epsilon(1e-4));
        CHECK(kernels::hbm_peak_gbps(0, 6144) == 0.0);
        CHECK(kernels::hbm_peak_gbps(3201000, 0) == 0.0);
        CHECK(kernels::hbm_size_ok(16));
        CHECK(kernels::hbm_size_ok(gib + 48));
        CHECK_FALSE(kernels::hbm_size_ok(0));
        CHECK_FALSE(kernels::hbm_size_ok(8));
        CHECK_FALSE(kernels::hbm_size_ok(gib + 4));
        const char* names[] = { "read", "write", "copy", "memcpy" };
        for (std::size_t i = 0; i < std::size(kernels::hbm_kernels); ++i)
        {
            CHECK(kernels::to_string(kernels::hbm_kernels[i]) == names[i]);
        }
    }

#ifdef ENVCHECK_WITH_CUDA
    TEST_CASE("kernels::run_hbm verifies every kernel", "[.gpu][hbm]")
    {
        REQUIRE(kernels::select_device(0).ok());
        // One vector, sizes that leave a partial unrolled step and a partial wave, and one far
        // past the L2.
        for (const std::size_t bytes : { std::size_t{ 16 }, std::size_t{ 65536 } + 48,
                                         (std::size_t{ 64 } << 20) + 16, std::size_t{ 1 } << 30 })
        {
            CAPTURE(bytes);
            kernels::HbmPlan plan;
            plan.bytes = bytes;
            plan.repeats = 3;
            plan.min_warmup_ms = 0.0;
            plan.seed = 5;
            const auto run = kernels::run_hbm(plan);
            INFO(run.status.to_string());
            REQUIRE(run.status.ok());
            CHECK(run.bytes == bytes);
            CHECK(run.peak_gbps > 0.0);
            REQUIRE(run.measurements.size() == std::size(kernels::hbm_kernels));
            for (std::size_t i = 0; i < run.measurements.size(); ++i)
            {
                const auto& m = run.measurements[i];
                CAPTURE(kernels::to_string(m.kernel));
                CHECK(m.kernel == kernels::hbm_kernels[i]);
                CHECK(m.verified);
                CHECK(m.mismatches == 0);
                CHECK(m.times_ms.size() == 3);
                CHECK(m.gbps > 0.0);
            }
        }
        CHECK(kernels::device_health().ok());
    }

    TEST_CASE("kernels::run_hbm negative", "[.gpu][hbm]")
    {
        REQUIRE(kernels::select_device(0).ok());
        for (const std::size_t bytes : { std::size_t{ 0 }, std::size_t{ 12 }, std::size_t{ 100 } })
        {
            CAPTURE(bytes);
            kernels::HbmPlan plan;
            plan.bytes = bytes;
            const auto run = kernels::run_hbm(plan);
            CHECK(run.status.name == "cudaErrorInvalidValue");
            CHECK(run.measurements.empty());
        }
        CHECK(kernels::device_health().ok());
    }
#endif
}
