// The tensor-core GEMM probe: its host rules (which format runs where, shapes, tolerances) on any
// machine; its kernels on the GPU machine only ([.gpu] is hidden; tests/device/run.sh runs it).
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/tensor_gemm.cuh"
#include "tests/catch.hpp"

#ifdef ENVCHECK_WITH_CUDA
#include "kernels/device.cuh"
#endif

using namespace envcheck;
using kernels::TensorFormat;
using kernels::TensorKernel;

namespace
{
    TEST_CASE("tensor formats: element size and error bound", "[gpu][tensor]")
    {
        struct Row
        {
            TensorFormat format;
            const char* name;
            int bytes;
            double bound;
        };
        const Row rows[] = { { TensorFormat::bf16, "bf16", 2, 1e-4 },
                             { TensorFormat::fp16, "fp16", 2, 1e-4 },
                             { TensorFormat::tf32, "tf32", 4, 5e-3 },
                             { TensorFormat::fp8_e4m3, "fp8_e4m3", 1, 1e-2 } };
        REQUIRE(std::size(rows) == std::size(kernels::tensor_formats));
        for (const auto& row : rows)
        {
            CAPTURE(row.name);
            CHECK(kernels::to_string(row.format) == row.name);
            CHECK(kernels::element_bytes(row.format) == row.bytes);
            CHECK(kernels::relative_error_bound(row.format) == row.bound);
            // Above what a right product shows, below what one lost k-step of 8192 costs
            // (sqrt(k-step / 8192): 3% for FP8's k32, 3% for TF32's k8, 4% for k16).
            CHECK(kernels::relative_error_bound(row.format) > 1e-6);
            CHECK(kernels::relative_error_bound(row.format) < 0.03);
        }
        CHECK(kernels::to_string(TensorKernel::automatic) == "automatic");
        CHECK(kernels::to_string(TensorKernel::mma_sync) == "mma_sync");
        CHECK(kernels::to_string(TensorKernel::wgmma) == "wgmma");
        CHECK(kernels::to_string(TensorKernel::wgmma_n128) == "wgmma_n128");
    }

    TEST_CASE("tensor_unsupported_reason: which GPU runs which format and kernel", "[gpu][tensor]")
    {
        struct Row
        {
            int major;
            int minor;
            TensorFormat format;
            TensorKernel kernel;
            const char* reason_contains; // nullptr: runs
        };
        const Row rows[] = {
            // Turing: no cp.async, no BF16/TF32 mma: nothing.
            { 7, 5, TensorFormat::fp16, TensorKernel::automatic, "compute capability 8.0" },
            { 7, 5, TensorFormat::bf16, TensorKernel::mma_sync, "7.5" },
            // Ampere: BF16, FP16, TF32 through mma.sync; no FP8; no wgmma.
            { 8, 0, TensorFormat::bf16, TensorKernel::automatic, nullptr },
            { 8, 0, TensorFormat::tf32, TensorKernel::mma_sync, nullptr },
            { 8, 6, TensorFormat::fp16, TensorKernel::automatic, nullptr },
            { 8, 6, TensorFormat::fp8_e4m3, TensorKernel::automatic, "FP8" },
            { 8, 0, TensorFormat::bf16, TensorKernel::wgmma, "9.0 only" },
            // Ada: FP8 through mma.sync.
            { 8, 9, TensorFormat::fp8_e4m3, TensorKernel::mma_sync, nullptr },
            { 8, 9, TensorFormat::fp8_e4m3, TensorKernel::wgmma_n128, "9.0 only" },
            // Hopper: everything.
            { 9, 0, TensorFormat::fp8_e4m3, TensorKernel::wgmma, nullptr },
            { 9, 0, TensorFormat::tf32, TensorKernel::wgmma_n128, nullptr },
            { 9, 0, TensorFormat::bf16, TensorKernel::mma_sync, nullptr },
            // Blackwell: mma.sync (wgmma is sm_90a only).
            { 10, 0, TensorFormat::bf16, TensorKernel::automatic, nullptr },
            { 10, 0, TensorFormat::fp8_e4m3, TensorKernel::automatic, nullptr },
            { 12, 0, TensorFormat::bf16, TensorKernel::wgmma, "12.0" },
        };
        for (const auto& row : rows)
        {
            CAPTURE(row.major, row.minor, kernels::to_string(row.format),
                    kernels::to_string(row.kernel));
            const auto reason =
              kernels::tensor_unsupported_reason(row.format, row.kernel, row.major, row.minor);
            if (row.reason_contains == nullptr)
            {
                CHECK(reason.empty());
            }
            else
            {
                CHECK(reason.find(row.reason_contains) != std::string::npos);
                CHECK(reason.find("this GPU is compute capability") != std::string::npos);
            }
        }
        CHECK(kernels::preferred_tensor_kernel(9, 0) == TensorKernel::wgmma);
        CHECK(kernels::preferred_tensor_kernel(8, 9) == TensorKernel::mma_sync);
        CHECK(kernels::preferred_tensor_kernel(10, 0) == TensorKernel::mma_sync);
        CHECK(kernels::preferred_tensor_kernel(9, 1) == TensorKernel::mma_sync);
    }

    TEST_CASE("tensor_shape_error", "[gpu][tensor]")
    {
        struct Row
        {
            TensorFormat format;
            long long m;
            long long n;
            long long k;
            const char* error_contains; // nullptr: valid
        };
        const Row rows[] = {
            { TensorFormat::bf16, 8192, 8192, 8192, nullptr },
            { TensorFormat::bf16, 1, 1, 8, nullptr },
            { TensorFormat::bf16, 1, 1, 4, "multiple of 8" },
            { TensorFormat::fp16, 129, 257, 1000, nullptr },
            { TensorFormat::fp16, 129, 257, 1001, "multiple of 8" },
            { TensorFormat::tf32, 3, 5, 4, nullptr },
            { TensorFormat::tf32, 3, 5, 6, "multiple of 4" },
            { TensorFormat::fp8_e4m3, 3, 5, 16, nullptr },
            { TensorFormat::fp8_e4m3, 3, 5, 24, "multiple of 16" },
            { TensorFormat::bf16, 0, 8, 8, "positive" },
            { TensorFormat::bf16, 8, -1, 8, "positive" },
            { TensorFormat::bf16, 8, 8, 0, "positive" },
            { TensorFormat::bf16, (1LL << 20) + 1, 8, 8, "at most" },
            { TensorFormat::bf16, 1LL << 20, 8, 8, nullptr },
        };
        for (const auto& row : rows)
        {
            CAPTURE(kernels::to_string(row.format), row.m, row.n, row.k);
            const auto error = kernels::tensor_shape_error(row.format, row.m, row.n, row.k);
            if (row.error_contains == nullptr)
            {
                CHECK(error.empty());
            }
            else
            {
                CHECK(error.find(row.error_contains) != std::string::npos);
            }
        }
        CHECK(kernels::gemm_flops(8192, 8192, 8192) == 2.0 * 8192.0 * 8192.0 * 8192.0);
        CHECK(kernels::gemm_flops(1, 2, 3) == 12.0);
    }

    TEST_CASE("TensorGemmRun::passed", "[gpu][tensor]")
    {
        kernels::TensorGemmRun run;
        run.sampled = 256;
        run.error_bound = 1e-4;
        run.relative_error = 5e-5;
        CHECK(run.passed());
        run.relative_error = 2e-4;
        CHECK_FALSE(run.passed());
        run.relative_error = std::numeric_limits<double>::quiet_NaN();
        CHECK_FALSE(run.passed()); // NaN never passes
        run.relative_error = 5e-5;
        run.unwritten = 1;
        CHECK_FALSE(run.passed());
        run.unwritten = 0;
        run.applicable = false;
        CHECK_FALSE(run.passed());
        run.applicable = true;
        run.sampled = 0;
        CHECK_FALSE(run.passed());
    }

#ifdef ENVCHECK_WITH_CUDA
    auto compute_capability() -> std::pair<int, int>
    {
        const auto capability = kernels::current_compute_capability();
        REQUIRE(capability.status.ok());
        return { capability.major, capability.minor };
    }

    TEST_CASE("kernels::run_tensor_gemm: every format and kernel, partial tiles on every edge",
              "[.gpu][tensor]")
    {
        REQUIRE(kernels::select_device(0).ok());
        const auto [major, minor] = compute_capability();
        const auto kernel = GENERATE(TensorKernel::automatic, TensorKernel::mma_sync,
                                     TensorKernel::wgmma, TensorKernel::wgmma_n128);
        struct Shape
        {
            int m;
            int n;
            int k; // a multiple of 16: valid in every format
        };
        // Tiles: 128 x 256 / 128 x 128 outputs, K slices of 128 bytes (64 BF16, 32 TF32, 128
        // FP8): k 1008 ends on a partial slice in every format, 16 is less than one.
        const Shape shapes[] = { { 1, 1, 16 },       { 129, 257, 144 },   { 1000, 1000, 1008 },
                                 { 257, 513, 2048 }, { 64, 4096, 32 },    { 4096, 64, 48 },
                                 { 333, 130, 16 },   { 2048, 2048, 4096 } };
        for (const auto format : kernels::tensor_formats)
        {
            const auto reason = kernels::tensor_unsupported_reason(format, kernel, major, minor);
            for (const auto& shape : shapes)
            {
                CAPTURE(kernels::to_string(kernel), kernels::to_string(format), shape.m, shape.n,
                        shape.k);
                kernels::TensorGemmPlan plan;
                plan.format = format;
                plan.kernel = kernel;
                plan.m = shape.m;
                plan.n = shape.n;
                plan.k = shape.k;
                plan.min_warmup_ms = 0.0;
                plan.repeats = 2;
                plan.seed = 4242;
                const auto run = kernels::run_tensor_gemm(plan);
                INFO(run.status.to_string());
                REQUIRE(run.status.ok());
                if (!reason.empty())
                {
                    CHECK_FALSE(run.applicable);
                    CHECK(run.not_applicable == reason);
                    CHECK(run.times_ms.empty());
                    continue;
                }
                INFO(run.not_applicable);
                REQUIRE(run.applicable);
                if (kernel == TensorKernel::automatic)
                {
                    CHECK(run.kernel == kernels::preferred_tensor_kernel(major, minor));
                }
                else
                {
                    CHECK(run.kernel == kernel);
                }
                CHECK(run.unwritten == 0);
                CHECK(run.sampled == 256);
                CHECK(run.relative_error <= run.error_bound);
                CHECK(run.passed());
                CHECK(run.times_ms.size() == 2);
                CHECK(run.median_ms > 0.0);
                CHECK(run.tflops > 0.0);
            }
        }
        CHECK(kernels::device_health().ok());
    }

    TEST_CASE("kernels::run_tensor_gemm: a seed changes the inputs, the product stays right",
              "[.gpu][tensor]")
    {
        REQUIRE(kernels::select_device(0).ok());
        for (const std::uint32_t seed : { 1u, 2u, 0xDEADBEEFu })
        {
            CAPTURE(seed);
            kernels::TensorGemmPlan plan;
            plan.m = plan.n = plan.k = 512;
            plan.min_warmup_ms = 0.0;
            plan.repeats = 1;
            plan.samples = 3 + static_cast<int>(seed % 7); // corners only, or a few more
            plan.seed = seed;
            const auto run = kernels::run_tensor_gemm(plan);
            INFO(run.status.to_string());
            REQUIRE(run.status.ok());
            CHECK(run.sampled == static_cast<std::size_t>(plan.samples));
            CHECK(run.passed());
        }
    }

    TEST_CASE("kernels::run_tensor_gemm and launch_tensor_gemm negative", "[.gpu][tensor]")
    {
        REQUIRE(kernels::select_device(0).ok());
        struct Row
        {
            TensorFormat format;
            int m;
            int n;
            int k;
        };
        for (const auto& row :
             { Row{ TensorFormat::bf16, 0, 8, 8 }, Row{ TensorFormat::bf16, 8, 8, 4 },
               Row{ TensorFormat::fp8_e4m3, 8, 8, 8 }, Row{ TensorFormat::tf32, 8, -8, 8 } })
        {
            CAPTURE(kernels::to_string(row.format), row.m, row.n, row.k);
            kernels::TensorGemmPlan plan;
            plan.format = row.format;
            plan.m = row.m;
            plan.n = row.n;
            plan.k = row.k;
            const auto run = kernels::run_tensor_gemm(plan);
            CHECK(run.status.name == "cudaErrorInvalidValue");
            CHECK_FALSE(run.passed());
            const auto launch =
              kernels::launch_tensor_gemm(row.format, TensorKernel::automatic, nullptr, nullptr,
                                          nullptr, row.m, row.n, row.k, nullptr);
            CHECK(launch.name == "cudaErrorInvalidValue");
        }
        kernels::TensorGemmPlan plan;
        plan.repeats = 0;
        CHECK(kernels::run_tensor_gemm(plan).status.name == "cudaErrorInvalidValue");
        plan.repeats = 1;
        plan.samples = 0;
        CHECK(kernels::run_tensor_gemm(plan).status.name == "cudaErrorInvalidValue");
        CHECK(kernels::device_health().ok()); // refused before any launch
    }

    // Small enough for compute-sanitizer (memcheck, racecheck, synccheck) to finish in seconds.
    TEST_CASE("tensor kernels under compute-sanitizer", "[.gpu][sanitize]")
    {
        REQUIRE(kernels::select_device(0).ok());
        for (const auto kernel :
             { TensorKernel::mma_sync, TensorKernel::wgmma, TensorKernel::wgmma_n128 })
        {
            for (const auto format : kernels::tensor_formats)
            {
                CAPTURE(kernels::to_string(kernel), kernels::to_string(format));
                kernels::TensorGemmPlan plan;
                plan.format = format;
                plan.kernel = kernel;
                plan.m = 161;
                plan.n = 300;
                plan.k = 272;
                plan.min_warmup_ms = 0.0;
                plan.repeats = 1;
                const auto run = kernels::run_tensor_gemm(plan);
                INFO(run.status.to_string());
                REQUIRE(run.status.ok());
                if (run.applicable)
                {
                    CHECK(run.passed());
                }
            }
        }
    }
#endif
}
