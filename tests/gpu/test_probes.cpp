// On the GPU machine only ([.gpu] is hidden; tests/device/run.sh runs it): every probe passes on
// device 0, and the kernels compute the right thing at sizes that are not multiples of their tiles.
#ifdef ENVCHECK_WITH_CUDA
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "driver/cuda_driver.hpp"
#include "gpu/probes.hpp"
#include "gpu/smoke.hpp"
#include "kernels/bandwidth.cuh"
#include "kernels/bank_conflicts.cuh"
#include "kernels/device.cuh"
#include "kernels/hello.cuh"
#include "kernels/matmul.cuh"
#include "kernels/stream_overlap.cuh"
#include "tests/catch.hpp"
#include "util/statistics.hpp"

using namespace envcheck;

namespace
{
    // Device 0 as the probe child sees it: through the CUDA driver API (the one device query).
    auto device_zero() -> model::GpuDevice
    {
        std::string error;
        const auto cuda = driver::CudaDriver::open(error);
        INFO(error);
        REQUIRE(cuda);
        REQUIRE(cuda->init() == 0);
        auto device = cuda->describe(0);
        REQUIRE(device);
        return *device;
    }

    TEST_CASE("the runtime and the driver API describe device 0 alike", "[.gpu][kernels]")
    {
        const auto info = kernels::runtime_info();
        INFO(info.status.to_string());
        REQUIRE(info.status.ok());
        REQUIRE(info.device_count >= 1);
        CHECK(info.runtime_version >= 12000);
        REQUIRE(kernels::select_device(0).ok());
        const auto device = device_zero();
        CHECK_FALSE(device.name.empty());
        CHECK(device.uuid.rfind("GPU-", 0) == 0);
        CHECK(device.uuid.size() == 40);
        CHECK(device.pci_bus_id.size() >= 12);
        REQUIRE(device.compute_capability_major);
        REQUIRE(device.compute_capability_minor);
        CHECK(*device.compute_capability_major * 10 + *device.compute_capability_minor >= 75);
        CHECK(device.multiprocessors.value_or(0) > 0);
        CHECK(device.sm_clock_mhz.value_or(0) > 0);
        CHECK(device.memory_clock_mhz.value_or(0) > 0);
        CHECK(device.memory_bytes.value_or(0) > 0);
        CHECK(device.l2_cache_bytes.value_or(0) > 0);
        CHECK(device.async_engine_count.value_or(0) > 0);
        CHECK(device.warp_size == 32);
        CHECK(kernels::device_health().ok());
    }

    TEST_CASE("pinned_host_reserve: the most pinned host memory one probe holds at once",
              "[gpu][probes]")
    {
        constexpr std::size_t mib = std::size_t{ 1 } << 20;
        std::vector<std::string> every;
        for (const auto& probe : gpu::probes())
        {
            every.emplace_back(probe.id);
        }
        using model::SmokeMode;
        // stream-overlap's input and output (2 x 64 MiB; bandwidth's 32 MiB reuses one)
        CHECK(gpu::pinned_host_reserve(every, SmokeMode::quick) == 128 * mib);
        // bandwidth's 256 MiB copies, as much as stream-overlap's 2 x 128 MiB
        CHECK(gpu::pinned_host_reserve(every, SmokeMode::full) == 256 * mib);
        const std::vector<std::string> bandwidth{ "bandwidth" };
        CHECK(gpu::pinned_host_reserve(bandwidth, SmokeMode::quick) == 32 * mib);
        const std::vector<std::string> no_copies{ "hello", "matmul-shared", "no-such-probe" };
        CHECK(gpu::pinned_host_reserve(no_copies, SmokeMode::full) == 0);
    }

    // In a process of its own ([.gpu-reserve], tests/device/run.sh): the reserve is made once
    // per process, and the [.gpu] cases leave pinned blocks behind that a probe would reuse.
    TEST_CASE("pinned buffers from the host reserve: the copy probes verify their data",
              "[.gpu-reserve][probes]")
    {
        REQUIRE(kernels::select_device(0).ok());
        kernels::reserve_host_memory(std::size_t{ 256 } << 20);
        kernels::OverlapPlan overlap;
        overlap.bytes = std::size_t{ 64 } << 20;
        overlap.repeats = 2;
        const auto overlapped = kernels::run_stream_overlap(overlap);
        INFO(overlapped.status.to_string());
        REQUIRE(overlapped.status.ok());
        CHECK(overlapped.mismatches == 0);
        // Both of its buffers came from the reserve, registered, not from cudaHostAlloc.
        CHECK(kernels::reserved_host_memory_taken() >= std::size_t{ 128 } << 20);
        kernels::BandwidthPlan copies;
        copies.copies = { { kernels::CopyKind::h2d_pinned, std::size_t{ 32 } << 20 },
                          { kernels::CopyKind::d2h_pinned, std::size_t{ 32 } << 20 } };
        const auto copied = kernels::run_bandwidth(copies);
        REQUIRE(copied.status.ok());
        for (const auto& measurement : copied.measurements)
        {
            CHECK(measurement.mismatches == 0);
        }
    }

    TEST_CASE("probes on device 0", "[.gpu][probes]")
    {
        REQUIRE(kernels::select_device(0).ok());
        const auto device = device_zero();
        const auto mode = GENERATE(model::SmokeMode::quick, model::SmokeMode::full);
        for (const auto& probe : gpu::probes())
        {
            CAPTURE(probe.id, model::to_string(mode));
            REQUIRE_FALSE(probe.unmet(device));
            const auto result = probe.run(gpu::ProbeContext{ device, mode, 12345 });
            INFO(result.message);
            CHECK(result.id == probe.id);
            CHECK(result.status == model::Status::pass);
            CHECK_FALSE(result.metrics.empty());
            for (const auto& metric : result.metrics)
            {
                CAPTURE(metric.name);
                CHECK(metric.value == metric.value); // not NaN
                if (metric.direction != model::MetricDirection::informational)
                {
                    CHECK(metric.value > 0.0);
                    CHECK(metric.samples >= 3);
                }
            }
            CHECK(kernels::device_health().ok());
        }
    }

    TEST_CASE("kernels::run_hello", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        for (const std::size_t elements : { std::size_t{ 1 }, std::size_t{ 255 },
                                            std::size_t{ 1 } << 20, std::size_t{ 1000003 } })
        {
            CAPTURE(elements);
            const auto run = kernels::run_hello(elements, 7);
            INFO(run.status.to_string());
            REQUIRE(run.status.ok());
            CHECK(run.mismatches == 0);
        }
    }

    TEST_CASE("kernels::run_matmul at sizes that are not multiples of the tiles", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        struct Shape
        {
            int m;
            int n;
            int k;
        };
        const auto kernel =
          GENERATE(kernels::MatmulKernel::tuned, kernels::MatmulKernel::tuned_bk16,
                   kernels::MatmulKernel::classic, kernels::MatmulKernel::classic_padded);
        const Shape shapes[] = { { 1, 1, 1 },        { 129, 257, 33 }, { 1000, 1000, 1000 },
                                 { 999, 997, 1001 }, { 64, 4096, 8 },  { 4096, 64, 12 },
                                 { 130, 130, 4 } };
        for (const auto& shape : shapes)
        {
            CAPTURE(kernels::to_string(kernel), shape.m, shape.n, shape.k);
            kernels::MatmulPlan plan;
            plan.kernel = kernel;
            plan.m = shape.m;
            plan.n = shape.n;
            plan.k = shape.k;
            plan.min_warmup_ms = 0.0;
            plan.repeats = 2;
            plan.seed = 99;
            const auto run = kernels::run_matmul(plan);
            INFO(run.status.to_string());
            REQUIRE(run.status.ok());
            CHECK(run.unwritten == 0);
            CHECK(run.relative_error < 1e-5);
            CHECK(run.times_ms.size() == 2);
        }
    }

    TEST_CASE("kernels::run_matmul negative", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        kernels::MatmulPlan plan;
        plan.m = 0;
        const auto run = kernels::run_matmul(plan);
        CHECK_FALSE(run.status.ok());
        CHECK(run.status.name == "cudaErrorInvalidValue");
        CHECK(kernels::device_health().ok()); // a refused launch does not poison the context
    }

    TEST_CASE("kernels::run_bandwidth verifies every kind", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        using kernels::CopyKind;
        kernels::BandwidthPlan plan;
        plan.copies_per_sample = 2;
        plan.samples = 3;
        plan.warmup_copies = 1;
        for (const auto kind :
             { CopyKind::h2d_pinned, CopyKind::d2h_pinned, CopyKind::h2d_pageable,
               CopyKind::d2h_pageable, CopyKind::d2d_memcpy, CopyKind::d2d_kernel })
        {
            for (const std::size_t bytes :
                 { std::size_t{ 4 }, std::size_t{ 65536 }, (std::size_t{ 1 } << 20) + 12 })
            {
                plan.copies.push_back({ kind, bytes });
            }
        }
        const auto run = kernels::run_bandwidth(plan);
        INFO(run.status.to_string());
        REQUIRE(run.status.ok());
        REQUIRE(run.measurements.size() == plan.copies.size());
        for (const auto& measurement : run.measurements)
        {
            CAPTURE(kernels::to_string(measurement.request.kind), measurement.request.bytes);
            CHECK(measurement.mismatches == 0);
            CHECK(measurement.sample_ms.size() == 3);
            CHECK_FALSE(measurement.latch_timed_out);
        }
    }

    TEST_CASE("kernels::run_stream_overlap", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        kernels::OverlapPlan plan;
        plan.bytes = std::size_t{ 8 } << 20;
        plan.chunks = 4;
        plan.streams = GENERATE(1, 2, 4);
        plan.kernel_iterations = 64;
        plan.repeats = 2;
        const auto run = kernels::run_stream_overlap(plan);
        INFO(run.status.to_string());
        REQUIRE(run.status.ok());
        CHECK(run.unwritten == 0);
        CHECK(run.mismatches == 0);
        CHECK(run.checked > 1000);
        REQUIRE(run.parts.size() == 2);
        CHECK(run.parts[0].size() == 4);
    }

    TEST_CASE("kernels::run_bank_conflicts", "[.gpu][kernels]")
    {
        REQUIRE(kernels::select_device(0).ok());
        const auto run = kernels::run_bank_conflicts(50, 3);
        INFO(run.status.to_string());
        REQUIRE(run.status.ok());
        CHECK(run.verified);
        REQUIRE(run.strides.size() == std::size(kernels::bank_conflict_strides));
        // The 32-way pattern is the slowest, by far.
        const auto median = [&](std::size_t i)
        {
            return util::summarize(
                     std::vector<double>(run.times_ms[i].begin(), run.times_ms[i].end()))
              .median;
        };
        CHECK(median(5) > 8.0 * median(0));
        CHECK(median(6) < 2.0 * median(0));
    }

    // Small enough for compute-sanitizer (memcheck, racecheck, synccheck) to finish in seconds:
    // every kernel once, with partial tiles on every edge.
    TEST_CASE("kernels under compute-sanitizer", "[.gpu][sanitize]")
    {
        REQUIRE(kernels::select_device(0).ok());
        for (const auto kernel :
             { kernels::MatmulKernel::tuned, kernels::MatmulKernel::tuned_bk16,
               kernels::MatmulKernel::classic, kernels::MatmulKernel::classic_padded })
        {
            CAPTURE(kernels::to_string(kernel));
            kernels::MatmulPlan plan;
            plan.kernel = kernel;
            plan.m = 161;
            plan.n = 196;
            plan.k = 45;
            plan.min_warmup_ms = 0.0;
            plan.repeats = 1;
            const auto run = kernels::run_matmul(plan);
            INFO(run.status.to_string());
            REQUIRE(run.status.ok());
            CHECK(run.unwritten == 0);
            CHECK(run.relative_error < 1e-5);
        }
        const auto hello = kernels::run_hello(1000, 3);
        CHECK(hello.status.ok());
        CHECK(hello.mismatches == 0);
        const auto banks = kernels::run_bank_conflicts(1, 1);
        CHECK(banks.status.ok());
        CHECK(banks.verified);
        kernels::OverlapPlan overlap;
        overlap.bytes = std::size_t{ 1 } << 20;
        overlap.chunks = 4;
        overlap.streams = 2;
        overlap.kernel_iterations = 4;
        overlap.repeats = 1;
        const auto pipeline = kernels::run_stream_overlap(overlap);
        CHECK(pipeline.status.ok());
        CHECK(pipeline.mismatches == 0);
        kernels::BandwidthPlan plan;
        plan.copies = { { kernels::CopyKind::d2d_kernel, (std::size_t{ 1 } << 16) + 12 },
                        { kernels::CopyKind::h2d_pinned, std::size_t{ 1 } << 16 } };
        plan.copies_per_sample = 1;
        plan.samples = 1;
        plan.warmup_copies = 1;
        const auto copies = kernels::run_bandwidth(plan);
        CHECK(copies.status.ok());
        for (const auto& measurement : copies.measurements)
        {
            CHECK(measurement.mismatches == 0);
        }
    }

    // Its own process only ([.gpu-alone]: tests/device/run.sh runs it apart): the probe child is
    // forked, and a child forked after its parent initialised CUDA (as the [.gpu] cases above
    // do) cannot initialise it again. envcheck itself never calls CUDA outside the child.
    TEST_CASE("a pending smoke run opens only the GPUs it is not told to spare",
              "[.gpu-alone][smoke]")
    {
        gpu::SmokeRequest request;
        request.device = 0;
        request.probes = { "hello" };
        SECTION("spared: described, every probe skipped with the parent's reason")
        {
            gpu::PendingSmoke smoke(request, {});
            const auto report = smoke.proceed({ { 0, "GPU 0 is busy (test)" } });
            REQUIRE(report.availability == model::GpuAvailability::available);
            REQUIRE(report.devices.size() == 1);
            CHECK_FALSE(report.devices[0].device.name.empty());
            REQUIRE(report.devices[0].probes.size() == 1);
            CHECK(report.devices[0].probes[0].status == model::Status::skip);
            CHECK(report.devices[0].probes[0].message == "GPU 0 is busy (test)");
        }
        SECTION("not spared: measured")
        {
            gpu::PendingSmoke smoke(request, {});
            const auto report = smoke.proceed({ { 1, "another GPU" } });
            REQUIRE(report.devices.size() == 1);
            REQUIRE(report.devices[0].probes.size() == 1);
            CHECK(report.devices[0].probes[0].status == model::Status::pass);
        }
        SECTION("never given the go-ahead: stopped")
        {
            const auto start = std::chrono::steady_clock::now();
            {
                gpu::PendingSmoke smoke(request, {});
            }
            CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        }
    }
}
#endif
