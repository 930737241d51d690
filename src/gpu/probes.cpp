#include "gpu/probes.hpp"

#include <algorithm>

#ifdef ENVCHECK_WITH_CUDA
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu/build_info.hpp"
#include "gpu/cuda_errors.hpp"
#include "gpu/overlap_model.hpp"
#include "kernels/bandwidth.cuh"
#include "kernels/bank_conflicts.cuh"
#include "kernels/hbm.cuh"
#include "kernels/hello.cuh"
#include "kernels/matmul.cuh"
#include "kernels/stream_overlap.cuh"
#include "kernels/tensor_gemm.cuh"
#include "util/statistics.hpp"
#include "util/strings.hpp"
#endif

namespace envcheck::gpu
{
#ifdef ENVCHECK_WITH_CUDA
    namespace
    {
        using model::Metric;
        using model::MetricDirection;
        using model::ProbeResult;
        using model::Status;

        constexpr std::size_t mib = std::size_t{ 1 } << 20;
        // Far above FP32 rounding for these sizes (about 1e-6), far below TF32's (about 3e-4).
        constexpr double matmul_error_bound = 1e-4;

        auto format(const char* pattern, double value) -> std::string
        {
            char text[64];
            std::snprintf(text, sizeof(text), pattern, value);
            return text;
        }

        auto size_label(std::size_t bytes) -> std::string
        {
            return bytes >= mib ? std::to_string(bytes / mib) + "m"
                                : std::to_string(bytes / 1024) + "k";
        }

        auto size_text(std::size_t bytes) -> std::string
        {
            return bytes >= mib ? std::to_string(bytes / mib) + " MiB"
                                : std::to_string(bytes / 1024) + " KiB";
        }

        auto metric(std::string name, std::span<const double> samples, std::string unit,
                    MetricDirection direction) -> Metric
        {
            const util::Summary summary = util::summarize(samples);
            return Metric{ std::move(name),
                           summary.median,
                           std::move(unit),
                           summary.spread,
                           static_cast<int>(summary.count),
                           direction };
        }

        auto single(std::string name, double value, std::string unit) -> Metric
        {
            return Metric{
                std::move(name), value, std::move(unit), 0.0, 1, MetricDirection::informational
            };
        }

        // The probe child runs probes only on a device whose compute capability it read.
        auto architecture(const model::GpuDevice& device) -> std::string
        {
            return device.architecture().value_or("an unknown architecture");
        }

        auto failed_call(const ProbeContext& context, const kernels::CudaStatus& status,
                         std::string_view id) -> ProbeResult
        {
            const BuildInfo build = build_info();
            ProbeResult result;
            result.id = std::string(id);
            result.status = Status::fail;
            result.cuda_error = status.code;
            result.message = describe_cuda_failure(
              status.code, status.name, status.call, architecture(context.device),
              build.sass_architectures, build.ptx_architectures);
            return result;
        }

        // Each timed sample as a rate: `amount` (floating-point operations, bytes) over the
        // sample's milliseconds, in multiples of `unit` per second.
        auto rates(const std::vector<float>& samples_ms, double amount, double unit)
          -> std::vector<double>
        {
            std::vector<double> out;
            out.reserve(samples_ms.size());
            for (const float ms : samples_ms)
            {
                out.push_back(amount / (static_cast<double>(ms) * 1e-3) / unit);
            }
            return out;
        }

        template<class T>
        auto to_doubles(const std::vector<T>& values) -> std::vector<double>
        {
            return { values.begin(), values.end() };
        }

        // ---------------------------------------------------------------------------------
        // hello
        // ---------------------------------------------------------------------------------
        auto run_hello(const ProbeContext& context) -> ProbeResult
        {
            constexpr std::size_t elements = std::size_t{ 1 } << 20;
            const auto run = kernels::run_hello(elements, context.seed);
            if (!run.status.ok())
            {
                return failed_call(context, run.status, "hello");
            }
            ProbeResult result;
            result.id = "hello";
            // The first kernel of the process: its time includes loading the module (lazy loading).
            result.metrics.push_back(single("first_launch_ms", run.kernel_ms, "ms"));
            if (run.mismatches != 0)
            {
                result.status = Status::fail;
                result.message = "vector add: " + std::to_string(run.mismatches) + " of " +
                                 std::to_string(elements) + " sums differ from the CPU's";
                return result;
            }
            result.status = Status::pass;
            result.message = "vector add of " + std::to_string(elements) + " floats verified on " +
                             architecture(context.device);
            return result;
        }

        // ---------------------------------------------------------------------------------
        // matmul-shared
        // ---------------------------------------------------------------------------------
        struct MatmulCase
        {
            kernels::MatmulKernel kernel;
            std::string_view label; // metric prefix
            int n;
            int repeats;
            double warmup_ms;
        };

        auto run_matmul_shared(const ProbeContext& context) -> ProbeResult
        {
            const bool full = context.mode == model::SmokeMode::full;
            // The tuned kernel first, after the longest warm-up: its number is the one a lock
            // keeps.
            const MatmulCase cases[] = {
                { kernels::MatmulKernel::tuned, "tuned", full ? 4096 : 2048, full ? 20 : 10, 25.0 },
                { kernels::MatmulKernel::classic, "classic", full ? 2048 : 1024, full ? 10 : 5,
                  5.0 },
                { kernels::MatmulKernel::classic_padded, "classic_padded", full ? 2048 : 1024,
                  full ? 10 : 5, 5.0 },
            };
            ProbeResult result;
            result.id = "matmul-shared";
            result.status = Status::pass;
            double worst_error = 0.0;
            std::vector<std::string> problems;
            std::vector<double> medians;
            bool warm = context.warm;
            for (const auto& c : cases)
            {
                kernels::MatmulPlan plan;
                plan.kernel = c.kernel;
                plan.m = plan.n = plan.k = c.n;
                plan.repeats = c.repeats;
                // The tuned kernel's warm-up also warms the device for the two after it.
                plan.min_warmup_ms = warmup_ms(warm, c.warmup_ms);
                warm = true;
                plan.seed = context.seed;
                const auto run = kernels::run_matmul(plan);
                if (!run.status.ok())
                {
                    return failed_call(context, run.status, "matmul-shared");
                }
                const double flops = 2.0 * c.n * static_cast<double>(c.n) * c.n;
                const auto tflops = rates(run.times_ms, flops, 1e12);
                result.metrics.push_back(metric(std::string(c.label) + "_tflops", tflops, "TFLOP/s",
                                                MetricDirection::higher_is_better));
                medians.push_back(result.metrics.back().value);
                result.metrics.push_back(
                  single(std::string(c.label) + "_relative_error", run.relative_error, ""));
                worst_error = std::max(worst_error, run.relative_error);
                if (run.unwritten != 0)
                {
                    problems.push_back(std::string(c.label) + ": " + std::to_string(run.unwritten) +
                                       " output entries never written");
                }
                if (!(run.relative_error <= matmul_error_bound))
                {
                    problems.push_back(std::string(c.label) + ": relative error " +
                                       format("%.2e", run.relative_error) + " over " +
                                       std::to_string(run.sampled) + " sampled entries exceeds " +
                                       format("%.0e", matmul_error_bound));
                }
            }
            result.metrics.push_back(single("padding_speedup", medians[2] / medians[1], "x"));
            if (!problems.empty())
            {
                result.status = Status::fail;
                result.message = util::join(problems, "; ");
                return result;
            }
            result.message = "tuned " + format("%.1f", medians[0]) +
                             " TFLOP/s at n=" + std::to_string(cases[0].n) +
                             "; classic 32x32 tile " + format("%.1f", medians[1]) + ", padded " +
                             format("%.1f", medians[2]) +
                             " TFLOP/s at n=" + std::to_string(cases[1].n) +
                             "; relative error <= " + format("%.1e", worst_error);
            return result;
        }

        // ---------------------------------------------------------------------------------
        // bank-conflicts
        // ---------------------------------------------------------------------------------
        auto run_bank_conflicts(const ProbeContext& context) -> ProbeResult
        {
            const bool full = context.mode == model::SmokeMode::full;
            const auto run = kernels::run_bank_conflicts(full ? 400 : 200, full ? 10 : 5);
            if (!run.status.ok())
            {
                return failed_call(context, run.status, "bank-conflicts");
            }
            ProbeResult result;
            result.id = "bank-conflicts";
            std::vector<double> medians;
            for (std::size_t i = 0; i < run.strides.size(); ++i)
            {
                const auto summary = util::summarize(to_doubles(run.times_ms[i]));
                medians.push_back(summary.median);
                const std::string name = run.strides[i] == kernels::padded_stride
                                           ? "padded_ms"
                                           : "stride_" + std::to_string(run.strides[i]) + "_ms";
                result.metrics.push_back(
                  metric(name, to_doubles(run.times_ms[i]), "ms", MetricDirection::informational));
            }
            // strides: 1 2 4 8 16 32 33 (kernels::bank_conflict_strides)
            const auto bandwidth = rates(run.times_ms[0], run.reads_per_repeat * 4.0, 1e12);
            result.metrics.push_back(
              metric("shared_tbps", bandwidth, "TB/s", MetricDirection::higher_is_better));
            std::string ways;
            for (std::size_t i = 1; i + 1 < medians.size(); ++i)
            {
                const double slowdown = medians[i] / medians[0];
                result.metrics.push_back(
                  single("slowdown_" + std::to_string(run.strides[i]) + "way", slowdown, "x"));
                ways += ways.empty() ? "" : " ";
                ways += format("%.1fx", slowdown);
            }
            const double worst = medians[5] / medians[0];
            const double recovered = medians[5] / medians[6];
            result.metrics.push_back(single("padded_speedup", recovered, "x"));
            result.metrics.push_back(
              single("padded_vs_conflict_free", medians[6] / medians[0], "x"));
            if (!run.verified)
            {
                result.status = Status::fail;
                result.message = "shared-memory reads summed wrong values";
                return result;
            }
            result.status = Status::pass;
            result.message =
              "32-way conflicts " + format("%.1f", worst) + "x slower than conflict-free (" +
              format("%.1f", result.metric("shared_tbps")->value) + " TB/s); padding to [32][33] " +
              "recovers " + format("%.1f", recovered) + "x; 2/4/8/16/32-way: " + ways;
            return result;
        }

        // ---------------------------------------------------------------------------------
        // stream-overlap
        // ---------------------------------------------------------------------------------
        auto any_device(const model::GpuDevice&) -> std::optional<std::string>
        {
            return std::nullopt;
        }

        auto needs_copy_engine(const model::GpuDevice& device) -> std::optional<std::string>
        {
            if (!device.async_engine_count)
            {
                return "the driver did not say how many copy engines the device has";
            }
            if (*device.async_engine_count < 1)
            {
                return "the device has no copy engine, so copies cannot overlap kernels";
            }
            return std::nullopt;
        }

        auto overlap_plan(model::SmokeMode mode, std::uint32_t seed) -> kernels::OverlapPlan
        {
            const bool full = mode == model::SmokeMode::full;
            kernels::OverlapPlan plan;
            plan.bytes = full ? 128 * mib : 64 * mib;
            plan.chunks = full ? 16 : 8;
            plan.streams = 4;
            // Copy-bound: the kernels take about half the copy time on an H200, so the ideal is
            // the copy engines' time; kernel-bound shapes let concurrent kernels overlap each
            // other and beat the one-kernel-at-a-time ideal (tests/bench/RESULTS.md).
            plan.kernel_iterations = 1024;
            plan.repeats = full ? 10 : 7;
            plan.seed = seed;
            return plan;
        }

        auto stream_overlap_pinned_bytes(model::SmokeMode mode) -> std::size_t
        {
            return 2 * overlap_plan(mode, 0).bytes; // its input and its output
        }

        auto run_stream_overlap(const ProbeContext& context) -> ProbeResult
        {
            // needs_copy_engine: known, and at least one.
            const int copy_engines = context.device.async_engine_count.value_or(1);
            const bool concurrent_kernels = context.device.concurrent_kernels.value_or(false);
            const auto plan = overlap_plan(context.mode, context.seed);
            const auto run = kernels::run_stream_overlap(plan);
            if (!run.status.ok())
            {
                return failed_call(context, run.status, "stream-overlap");
            }
            std::vector<double> ideal;
            std::vector<double> efficiency;
            for (std::size_t r = 0; r < run.parts.size(); ++r)
            {
                std::vector<StageTimes> stages;
                for (const auto& part : run.parts[r])
                {
                    stages.push_back({ part.h2d_ms, part.kernel_ms, part.d2h_ms });
                }
                ideal.push_back(ideal_pipeline_ms(stages, copy_engines));
                efficiency.push_back(ideal.back() / static_cast<double>(run.overlapped_ms[r]));
            }
            ProbeResult result;
            result.id = "stream-overlap";
            result.metrics.push_back(metric("overlapped_ms", to_doubles(run.overlapped_ms), "ms",
                                            MetricDirection::lower_is_better));
            result.metrics.push_back(metric("serial_ms", to_doubles(run.serial_ms), "ms",
                                            MetricDirection::lower_is_better));
            result.metrics.push_back(
              metric("ideal_ms", ideal, "ms", MetricDirection::informational));
            result.metrics.push_back(
              metric("overlap_efficiency", efficiency, "", MetricDirection::higher_is_better));
            const double overlapped = result.metric("overlapped_ms")->value;
            const double serial = result.metric("serial_ms")->value;
            result.metrics.push_back(single("speedup", serial / overlapped, "x"));
            result.metrics.push_back(single("copy_engines", copy_engines, ""));
            result.metrics.push_back(
              single("concurrent_kernels", concurrent_kernels ? 1.0 : 0.0, ""));
            if (run.unwritten != 0 || run.mismatches != 0)
            {
                result.status = Status::fail;
                result.message = std::to_string(run.unwritten) +
                                 " output elements never written, " +
                                 std::to_string(run.mismatches) + " of " +
                                 std::to_string(run.checked) + " sampled elements wrong";
                return result;
            }
            result.status = Status::pass;
            result.message =
              std::to_string(plan.streams) + " streams " + format("%.2f", overlapped) +
              " ms vs 1 stream " + format("%.2f", serial) + " ms (" + std::to_string(plan.chunks) +
              " chunks of " + size_text(plan.bytes / static_cast<std::size_t>(plan.chunks)) +
              "); ideal " + format("%.2f", result.metric("ideal_ms")->value) + " ms; efficiency " +
              format("%.0f", 100.0 * result.metric("overlap_efficiency")->value) + "%; " +
              std::to_string(copy_engines) + " copy engine" + (copy_engines == 1 ? "" : "s") +
              ", concurrent kernels " + (concurrent_kernels ? "yes" : "no");
            return result;
        }

        // ---------------------------------------------------------------------------------
        // bandwidth
        // ---------------------------------------------------------------------------------
        auto is_device_to_device(kernels::CopyKind kind) -> bool
        {
            return kind == kernels::CopyKind::d2d_memcpy || kind == kernels::CopyKind::d2d_kernel;
        }

        auto bandwidth_plan(model::SmokeMode mode, std::uint32_t seed) -> kernels::BandwidthPlan
        {
            using kernels::CopyKind;
            kernels::BandwidthPlan plan;
            plan.seed = seed;
            if (mode == model::SmokeMode::full)
            {
                plan.samples = 3;
                for (const auto kind :
                     { CopyKind::h2d_pinned, CopyKind::d2h_pinned, CopyKind::h2d_pageable,
                       CopyKind::d2h_pageable, CopyKind::d2d_memcpy, CopyKind::d2d_kernel })
                {
                    for (std::size_t bytes = std::size_t{ 64 } * 1024; bytes <= 256 * mib;
                         bytes *= 4)
                    {
                        plan.copies.push_back({ kind, bytes });
                    }
                }
            }
            else
            {
                plan.copies = { { CopyKind::h2d_pinned, 32 * mib },
                                { CopyKind::d2h_pinned, 32 * mib },
                                { CopyKind::d2d_memcpy, 256 * mib },
                                { CopyKind::d2d_kernel, 256 * mib } };
            }
            return plan;
        }

        auto bandwidth_pinned_bytes(model::SmokeMode mode) -> std::size_t
        {
            // One buffer, as large as the largest pinned copy (the mapped latch is a few bytes).
            std::size_t largest = 0;
            for (const auto& copy : bandwidth_plan(mode, 0).copies)
            {
                if (copy.kind == kernels::CopyKind::h2d_pinned ||
                    copy.kind == kernels::CopyKind::d2h_pinned)
                {
                    largest = std::max(largest, copy.bytes);
                }
            }
            return largest;
        }

        auto run_bandwidth(const ProbeContext& context) -> ProbeResult
        {
            using kernels::CopyKind;
            const bool full = context.mode == model::SmokeMode::full;
            const auto plan = bandwidth_plan(context.mode, context.seed);
            const auto run = kernels::run_bandwidth(plan);
            if (!run.status.ok())
            {
                return failed_call(context, run.status, "bandwidth");
            }
            ProbeResult result;
            result.id = "bandwidth";
            std::size_t mismatches = 0;
            bool latch_timed_out = false;
            std::string summary;
            for (const auto& measurement : run.measurements)
            {
                const auto kind = measurement.request.kind;
                // Device-to-device counts the bytes read plus the bytes written.
                const double moved = static_cast<double>(measurement.request.bytes) *
                                     measurement.copies_per_sample *
                                     (is_device_to_device(kind) ? 2.0 : 1.0);
                const auto gbps = rates(measurement.sample_ms, moved, 1e9);
                std::string name = std::string(kernels::to_string(kind)) + "_gbps";
                if (full)
                {
                    name += '_';
                    name += size_label(measurement.request.bytes);
                }
                result.metrics.push_back(
                  metric(name, gbps, "GB/s", MetricDirection::higher_is_better));
                mismatches += measurement.mismatches;
                latch_timed_out = latch_timed_out || measurement.latch_timed_out;
                if (!full || measurement.request.bytes == 256 * mib)
                {
                    summary += (summary.empty() ? "" : ", ") +
                               std::string(kernels::to_string(kind)) + " " +
                               format("%.1f", result.metrics.back().value) + " GB/s" +
                               (full ? "" : " (" + size_text(measurement.request.bytes) + ")");
                }
            }
            const auto ratio = [&](const std::string& numerator, const std::string& denominator)
            { return result.metric(numerator)->value / result.metric(denominator)->value; };
            const std::string suffix = full ? "_gbps_256m" : "_gbps";
            result.metrics.push_back(single(
              "d2d_kernel_vs_memcpy", ratio("d2d_kernel" + suffix, "d2d_memcpy" + suffix), "x"));
            if (mismatches != 0)
            {
                result.status = Status::fail;
                result.message =
                  std::to_string(mismatches) + " copied words differ from their source";
                return result;
            }
            result.status = Status::pass;
            result.message = summary + (full ? " at 256 MiB" : "") +
                             "; device-to-device counts bytes read + written";
            if (latch_timed_out)
            {
                result.message +=
                  "; the latch timed out (slow host): enqueueing may be in the times";
            }
            return result;
        }

        // ---------------------------------------------------------------------------------
        // tensor-gemm
        // ---------------------------------------------------------------------------------
        auto needs_tensor_core_kernels(const model::GpuDevice& device) -> std::optional<std::string>
        {
            if (!device.compute_capability_major)
            {
                return "the driver did not give the device's compute capability";
            }
            if (*device.compute_capability_major < 8)
            {
                return "our tensor-core kernels need compute capability 8.0 or newer (cp.async, "
                       "ldmatrix, BF16 mma.sync); the device has " +
                       device.compute_capability().value_or("?");
            }
            return std::nullopt;
        }

        // Training's formats through the tensor cores, FP32 accumulation, each checked against
        // a double-precision CPU reference on sampled entries. The quick run measures BF16 (what
        // training runs) at n = 4096; the full run every format the GPU has at n = 8192, where
        // the kernels reach their peak (tests/bench/RESULTS.md, "tensor").
        auto run_tensor_gemm(const ProbeContext& context) -> ProbeResult
        {
            const bool full = context.mode == model::SmokeMode::full;
            const int n = full ? 8192 : 4096;
            ProbeResult result;
            result.id = "tensor-gemm";
            std::vector<std::string> problems;
            std::vector<std::string> skipped;
            std::string summary;
            std::string kernel_name;
            bool warm = context.warm;
            for (const auto tensor_format : kernels::tensor_formats)
            {
                if (!full && tensor_format != kernels::TensorFormat::bf16)
                {
                    continue;
                }
                kernels::TensorGemmPlan plan;
                plan.format = tensor_format;
                plan.m = plan.n = plan.k = n;
                plan.repeats = full ? 20 : 10;
                plan.min_warmup_ms = warmup_ms(warm, plan.min_warmup_ms);
                plan.seed = context.seed;
                const auto run = kernels::run_tensor_gemm(plan);
                warm = true;
                const std::string label(kernels::to_string(tensor_format));
                if (!run.status.ok())
                {
                    return failed_call(context, run.status, "tensor-gemm");
                }
                if (!run.applicable)
                {
                    skipped.push_back(label + " (" + run.not_applicable + ")");
                    continue;
                }
                kernel_name = std::string(kernels::to_string(run.kernel));
                const double flops = kernels::gemm_flops(n, n, n);
                const auto tflops = rates(run.times_ms, flops, 1e12);
                result.metrics.push_back(
                  metric(label + "_tflops", tflops, "TFLOP/s", MetricDirection::higher_is_better));
                result.metrics.push_back(single(label + "_relative_error", run.relative_error, ""));
                summary += (summary.empty() ? "" : ", ") + label + " " +
                           format("%.1f", result.metrics[result.metrics.size() - 2].value) +
                           " TFLOP/s";
                if (run.unwritten != 0)
                {
                    problems.push_back(label + ": " + std::to_string(run.unwritten) +
                                       " output entries never written");
                }
                if (!(run.relative_error <= run.error_bound))
                {
                    problems.push_back(label + ": relative error " +
                                       format("%.2e", run.relative_error) + " over " +
                                       std::to_string(run.sampled) + " sampled entries exceeds " +
                                       format("%.0e", run.error_bound));
                }
            }
            if (!problems.empty())
            {
                result.status = Status::fail;
                result.message = util::join(problems, "; ");
                return result;
            }
            if (result.metrics.empty())
            {
                result.status = Status::skip;
                result.message = "no format runs here: " + util::join(skipped, "; ");
                return result;
            }
            result.status = Status::pass;
            result.message = summary + " at n=" + std::to_string(n) + " (" + kernel_name +
                             ", FP32 accumulation), verified against a CPU reference";
            if (!skipped.empty())
            {
                result.message += "; not run: " + util::join(skipped, "; ");
            }
            return result;
        }

        // ---------------------------------------------------------------------------------
        // hbm
        // ---------------------------------------------------------------------------------
        // Device memory far past the L2 (the H200's is 50 MiB): read-only, write-only and SM
        // copy kernels against cudaMemcpy device to device, each verified.
        auto run_hbm(const ProbeContext& context) -> ProbeResult
        {
            const bool full = context.mode == model::SmokeMode::full;
            kernels::HbmPlan plan;
            plan.bytes = full ? std::size_t{ 1 } << 30 : 256 * mib;
            plan.repeats = full ? 20 : 10;
            plan.min_warmup_ms = warmup_ms(context.warm, plan.min_warmup_ms);
            plan.seed = context.seed;
            if (context.device.memory_bytes && *context.device.memory_bytes < 4 * plan.bytes)
            {
                plan.bytes = 64 * mib; // a small GPU: still four times a large L2
            }
            const auto run = kernels::run_hbm(plan);
            if (!run.status.ok())
            {
                return failed_call(context, run.status, "hbm");
            }
            ProbeResult result;
            result.id = "hbm";
            std::vector<std::string> problems;
            std::string summary;
            for (const auto& measurement : run.measurements)
            {
                const std::string label(kernels::to_string(measurement.kernel));
                const double moved = kernels::hbm_bytes_moved(measurement.kernel, run.bytes);
                std::vector<double> gbps;
                for (const float ms : measurement.times_ms)
                {
                    gbps.push_back(kernels::gigabytes_per_second(moved, static_cast<double>(ms)));
                }
                result.metrics.push_back(
                  metric(label + "_gbps", gbps, "GB/s", MetricDirection::higher_is_better));
                summary += (summary.empty() ? "" : ", ") + label + " " +
                           format("%.0f", result.metrics.back().value) + " GB/s";
                if (!measurement.verified || measurement.mismatches != 0)
                {
                    problems.push_back(label + ": " + std::to_string(measurement.mismatches) +
                                       " words differ from what was written");
                }
            }
            const auto* copy = result.metric("copy_gbps");
            const auto* peer = result.metric("memcpy_gbps");
            if (copy != nullptr && peer != nullptr && peer->value > 0.0)
            {
                result.metrics.push_back(single("copy_vs_memcpy", copy->value / peer->value, "x"));
            }
            if (run.peak_gbps > 0.0)
            {
                result.metrics.push_back(single("peak_gbps", run.peak_gbps, "GB/s"));
            }
            if (!problems.empty())
            {
                result.status = Status::fail;
                result.message = util::join(problems, "; ");
                return result;
            }
            result.status = Status::pass;
            result.message = summary + " over " + size_text(run.bytes) +
                             " buffers; copies count bytes read + written";
            if (run.peak_gbps > 0.0)
            {
                result.message +=
                  "; the memory's peak is " + format("%.0f", run.peak_gbps) + " GB/s";
            }
            return result;
        }

        constexpr Probe table[] = {
            { "hello",
              "vector add, the first kernel: tells a missing kernel image (209) from other "
              "failures",
              "", any_device, run_hello, true },
            { "matmul-shared",
              "FP32 matrix multiply through shared memory: classic 32x32 tile (and padded) "
              "checked, "
              "tuned "
              "128x128 kernel timed",
              "", any_device, run_matmul_shared, false },
            { "bank-conflicts",
              "shared-memory reads with 1- to 32-way bank conflicts and the padded layout", "",
              any_device, run_bank_conflicts, false },
            { "stream-overlap",
              "chunked H2D / kernel / D2H pipeline: 1 stream against 4, overlap efficiency",
              "a copy engine", needs_copy_engine, run_stream_overlap, false,
              stream_overlap_pinned_bytes },
            { "bandwidth",
              "host<->device (pinned, pageable) and device-to-device (memcpy, SM kernel) copy "
              "bandwidth",
              "", any_device, run_bandwidth, false, bandwidth_pinned_bytes },
            { "tensor-gemm",
              "BF16 GEMM through the tensor cores, FP32 accumulation (full: FP16, TF32, FP8 "
              "too), verified against a CPU reference",
              "compute capability 8.0", needs_tensor_core_kernels, run_tensor_gemm, false },
            { "hbm",
              "device-memory read, write and copy bandwidth far past the L2, against cudaMemcpy",
              "", any_device, run_hbm, false },
        };
    }

    auto probes() -> std::span<const Probe>
    {
        return table;
    }
#else
    auto probes() -> std::span<const Probe>
    {
        return {};
    }
#endif

    auto pinned_host_reserve(std::span<const std::string> probes, model::SmokeMode mode)
      -> std::size_t
    {
        std::size_t most = 0;
        for (const auto& id : probes)
        {
            if (const Probe* probe = find_probe(id); probe != nullptr && probe->pinned_host_bytes)
            {
                most = std::max(most, probe->pinned_host_bytes(mode));
            }
        }
        return most;
    }

    auto find_probe(std::string_view id) -> const Probe*
    {
        const auto all = probes();
        const auto found =
          std::find_if(all.begin(), all.end(), [&](const Probe& probe) { return probe.id == id; });
        return found == all.end() ? nullptr : &*found;
    }
}
