// Smoke reports for the renderer tests: one of every status, and the no-GPU cases.
#ifndef ENVCHECK_TESTS_REPORT_TEST_SMOKE_FIXTURE_HPP
#define ENVCHECK_TESTS_REPORT_TEST_SMOKE_FIXTURE_HPP

#include <limits>
#include <string>

#include "model/smoke.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

namespace envcheck::tests
{
    inline void check_smoke_golden(const std::string& name, const std::string& actual)
    {
        check_golden("smoke/" + name, actual);
    }

    inline auto sample_device() -> model::GpuDevice
    {
        model::GpuDevice device;
        device.index = 0;
        device.name = "NVIDIA H200";
        device.uuid = "GPU-3c2d7f0e-1b9a-4c55-8d2e-7a6b5c4d3e2f";
        device.pci_bus_id = "0000:19:00.0";
        device.compute_capability_major = 9;
        device.compute_capability_minor = 0;
        device.multiprocessors = 132;
        device.memory_bytes = 150'110'011'392ull;
        device.sm_clock_mhz = 1980;
        device.memory_clock_mhz = 3201;
        device.memory_bus_width_bits = 6144;
        device.l2_cache_bytes = 62'914'560;
        device.async_engine_count = 3;
        device.concurrent_kernels = true;
        device.ecc_enabled = true;
        return device;
    }

    inline auto sample_report() -> model::SmokeReport
    {
        using model::Metric;
        using model::MetricDirection;
        using model::Status;
        model::SmokeReport report;
        report.mode = model::SmokeMode::quick;
        report.runtime_cuda = model::CudaVersion{ 13, 0 };
        report.driver_cuda = model::CudaVersion{ 13, 0 };
        report.duration_seconds = 0.84;
        model::DeviceSmoke smoke;
        smoke.device = sample_device();
        smoke.probes = {
            { "hello",
              Status::pass,
              "vector add of 1048576 floats verified on sm_90",
              { Metric{ "first_launch_ms", 0.157, "ms", 0.0, 1, MetricDirection::informational } },
              0.004,
              std::nullopt },
            { "matmul-shared",
              Status::pass,
              "tuned 41.3 TFLOP/s at n=2048; classic 32x32 tile 7.0, padded 6.1 TFLOP/s at n=1024",
              { Metric{ "tuned_tflops", 41.25, "TFLOP/s", 0.008, 10,
                        MetricDirection::higher_is_better },
                Metric{ "tuned_relative_error", 2.1e-7, "", 0.0, 1,
                        MetricDirection::informational },
                Metric{ "classic_tflops", 7.01, "TFLOP/s", 0.02, 5,
                        MetricDirection::higher_is_better } },
              0.21,
              std::nullopt },
            { "stream-overlap",
              Status::skip,
              "requires a copy engine: the device has no copy engine, so copies cannot overlap "
              "kernels",
              {},
              0.0,
              std::nullopt },
            { "bandwidth",
              Status::fail,
              "3 copied words differ from their source",
              { Metric{ "h2d_pinned_gbps", 55.123, "GB/s", 0.004, 5,
                        MetricDirection::higher_is_better },
                Metric{ "d2d_memcpy_gbps", 4251.7, "GB/s", 0.011, 5,
                        MetricDirection::higher_is_better },
                Metric{ "d2d_kernel_vs_memcpy", std::numeric_limits<double>::quiet_NaN(), "x", 0.0,
                        1, MetricDirection::informational } },
              0.12,
              std::nullopt },
            { "bank-conflicts",
              Status::error,
              "the probe process was stopped after 30 s without progress (SIGKILL): a kernel or "
              "CUDA call hung "
              "while this probe ran",
              {},
              0.0,
              719 },
        };
        report.devices.push_back(std::move(smoke));
        return report;
    }

    inline auto no_driver_report() -> model::SmokeReport
    {
        model::SmokeReport report;
        report.runtime_cuda = model::CudaVersion{ 13, 0 };
        report.availability = model::GpuAvailability::no_driver;
        report.diagnosis = "no NVIDIA driver (libcuda.so.1 not found)";
        return report;
    }

    inline auto no_device_report() -> model::SmokeReport
    {
        model::SmokeReport report;
        report.mode = model::SmokeMode::full;
        report.runtime_cuda = model::CudaVersion{ 13, 0 };
        report.driver_cuda = model::CudaVersion{ 12, 2 };
        report.availability = model::GpuAvailability::no_usable_device;
        report.cuda_error =
          model::CudaError{ 35, "cudaErrorInsufficientDriver",
                            "CUDA driver version is insufficient for CUDA runtime version" };
        report.diagnosis =
          "the NVIDIA driver is older than the CUDA runtime in this binary: cudaGetDeviceCount "
          "returned 35 (cudaErrorInsufficientDriver: CUDA driver version is insufficient for "
          "CUDA runtime version)";
        report.duration_seconds = 0.05;
        return report;
    }
}

#endif
