// GPU benchmark: each probe kernel against a peer measured in the same run, on device 0.
//   matmul  tuned (and its 16-deep variant), classic 32x32 tile with and without padding
//           vs cuBLAS SGEMM in FP32 (CUBLAS_PEDANTIC_MATH and CUBLAS_DEFAULT_MATH, never TF32),
//           N = 4096 (and 2048, the size smoke --quick uses)
//   copies  the probe's pinned H2D / D2H (latched, median) at 256 MiB vs the best figure plain
//           cudaMemcpyAsync loops reach; the SM copy kernel vs cudaMemcpy device-to-device
//   overlap efficiency of the stream-overlap probe at its quick and full sizes, 2/4/8 streams
//   banks   the bank-conflict table
// Usage: bench_gpu [results.json]. Prints a short table last; writes every number to the file.
#include <algorithm>
#include <cstdio>
#include <cublas_v2.h>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "driver/cuda_driver.hpp"
#include "gpu/overlap_model.hpp"
#include "kernels/bandwidth.cuh"
#include "kernels/bank_conflicts.cuh"
#include "kernels/device.cuh"
#include "kernels/matmul.cuh"
#include "kernels/stream_overlap.cuh"
#include "tests/bench/bench_cuda_support.cuh"
#include "util/statistics.hpp"

using nlohmann::ordered_json;
using namespace envcheck;

namespace
{
    using bench::download;
    using bench::elapsed_ms;
    using bench::relative_difference;
    using bench::require;
    using bench::warm_up;

    constexpr std::size_t mib = std::size_t{ 1 } << 20;

    auto median(std::vector<double> values) -> double
    {
        return util::summarize(values).median;
    }

    // Times `launch` with events: warm-up for `warmup_ms`, then `repeats` single launches.
    template<class Launch>
    auto time_ms(cudaStream_t stream, Launch launch, int repeats, double warmup_ms = 25.0)
      -> std::vector<double>
    {
        cudaEvent_t start = nullptr;
        cudaEvent_t stop = nullptr;
        require(cudaEventCreate(&start), "cudaEventCreate");
        require(cudaEventCreate(&stop), "cudaEventCreate");
        warm_up(stream, start, stop, launch, warmup_ms);
        std::vector<double> times;
        for (int i = 0; i < repeats; ++i)
        {
            times.push_back(elapsed_ms(stream, start, stop, launch));
        }
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        return times;
    }

    auto bench_matmul(int n, cudaStream_t stream, ordered_json& results) -> ordered_json
    {
        const auto elements = static_cast<std::size_t>(n) * n;
        float* a = nullptr;
        float* b = nullptr;
        float* c = nullptr;
        float* reference = nullptr;
        for (float** p : { &a, &b, &c, &reference })
        {
            require(cudaMalloc(reinterpret_cast<void**>(p), elements * sizeof(float)),
                    "cudaMalloc");
        }
        require(kernels::fill_random(a, elements, 11, stream));
        require(kernels::fill_random(b, elements, 12, stream));
        const double flops = 2.0 * n * static_cast<double>(n) * n;
        const auto tflops = [&](const std::vector<double>& ms)
        { return flops / (median(ms) * 1e-3) / 1e12; };

        cublasHandle_t handle = nullptr;
        require(cublasCreate(&handle), "cublasCreate");
        require(cublasSetStream(handle, stream), "cublasSetStream");
        const float one = 1.0f;
        const float zero = 0.0f;
        // Row-major C = A * B is column-major C^T = B^T * A^T: pass B first.
        const auto sgemm = [&](float* out)
        {
            require(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero,
                                out, n),
                    "cublasSgemm");
        };
        ordered_json cublas;
        std::vector<float> cublas_result;
        double cublas_best = 0.0;
        for (const auto& [name, mode] : { std::pair{ "pedantic", CUBLAS_PEDANTIC_MATH },
                                          std::pair{ "default", CUBLAS_DEFAULT_MATH } })
        {
            require(cublasSetMathMode(handle, mode), "cublasSetMathMode");
            const auto times = time_ms(
              stream, [&] { sgemm(reference); }, 20);
            cublas[name] = { { "tflops", tflops(times) }, { "times_ms", times } };
            cublas_best = std::max(cublas_best, tflops(times));
            if (cublas_result.empty())
            {
                cublas_result = download(reference, elements);
            }
            else
            {
                // The default mode must compute FP32 too (TF32 would differ by about 1e-3).
                cublas[name]["relative_difference_to_pedantic"] =
                  relative_difference(download(reference, elements), cublas_result);
            }
        }
        cublasDestroy(handle);

        ordered_json ours;
        for (const auto kernel :
             { kernels::MatmulKernel::tuned, kernels::MatmulKernel::tuned_bk16,
               kernels::MatmulKernel::classic, kernels::MatmulKernel::classic_padded })
        {
            require(cudaMemset(c, 0xFF, elements * sizeof(float)), "cudaMemset");
            const auto times = time_ms(
              stream, [&] { require(kernels::launch_matmul(kernel, a, b, c, n, n, n, stream)); },
              kernel == kernels::MatmulKernel::tuned || kernel == kernels::MatmulKernel::tuned_bk16
                ? 20
                : 5);
            const double value = tflops(times);
            ours[std::string(kernels::to_string(kernel))] = {
                { "tflops", value },
                { "of_cublas", value / cublas_best },
                { "relative_difference_to_cublas",
                  relative_difference(download(c, elements), cublas_result) },
                { "times_ms", times }
            };
        }
        for (float* p : { a, b, c, reference })
        {
            cudaFree(p);
        }
        ordered_json out = { { "n", n },
                             { "cublas", cublas },
                             { "cublas_best_tflops", cublas_best },
                             { "envcheck", ours } };
        results["matmul_" + std::to_string(n)] = out;
        return out;
    }

    // The best figure plain cudaMemcpyAsync reaches: batches of 1, 4 and 16 copies between two
    // events, 10 batches each, no latch; the maximum over all of them.
    auto best_memcpy_gbps(cudaMemcpyKind kind, std::size_t bytes, cudaStream_t stream,
                          ordered_json& detail) -> double
    {
        void* host = nullptr;
        void* device_a = nullptr;
        void* device_b = nullptr;
        require(cudaHostAlloc(&host, bytes, cudaHostAllocPortable), "cudaHostAlloc");
        require(cudaMalloc(&device_a, bytes), "cudaMalloc");
        require(cudaMalloc(&device_b, bytes), "cudaMalloc");
        std::fill_n(static_cast<unsigned char*>(host), bytes, 0x5A);
        void* destination = kind == cudaMemcpyHostToDevice
                              ? device_a
                              : (kind == cudaMemcpyDeviceToHost ? host : device_b);
        const void* source = kind == cudaMemcpyHostToDevice ? host : device_a;
        const double factor = kind == cudaMemcpyDeviceToDevice ? 2.0 : 1.0;
        double best = 0.0;
        for (const int batch : { 1, 4, 16 })
        {
            const auto times = time_ms(
              stream,
              [&]
              {
                  for (int i = 0; i < batch; ++i)
                  {
                      require(cudaMemcpyAsync(destination, source, bytes, kind, stream),
                              "cudaMemcpyAsync");
                  }
              },
              10, 5.0);
            std::vector<double> rates;
            for (const double ms : times)
            {
                rates.push_back(factor * static_cast<double>(bytes) * batch / (ms * 1e-3) / 1e9);
            }
            const double top = *std::max_element(rates.begin(), rates.end());
            detail["batch_" + std::to_string(batch)] = { { "max_gbps", top },
                                                         { "median_gbps", median(rates) } };
            best = std::max(best, top);
        }
        cudaFreeHost(host);
        cudaFree(device_a);
        cudaFree(device_b);
        return best;
    }

    // Every shape of the SM copy kernel against a single cudaMemcpyAsync device to device, each
    // timed alone (one copy between two events, median of 20 after warm-up); bytes read + written.
    auto bench_copy_kernels(cudaStream_t stream, ordered_json& results) -> ordered_json
    {
        ordered_json out = ordered_json::array();
        for (const std::size_t bytes : { 64 * mib, 256 * mib })
        {
            float* source = nullptr;
            float* destination = nullptr;
            require(cudaMalloc(reinterpret_cast<void**>(&source), bytes), "cudaMalloc");
            require(cudaMalloc(reinterpret_cast<void**>(&destination), bytes), "cudaMalloc");
            require(kernels::fill_random(source, bytes / sizeof(float), 21, stream));
            const auto gbps = [&](const std::vector<double>& ms)
            { return 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9; };
            const double memcpy_gbps = gbps(time_ms(
              stream,
              [&]
              {
                  require(
                    cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, stream),
                    "cudaMemcpyAsync");
              },
              20, 10.0));
            ordered_json row = { { "bytes", bytes }, { "cudaMemcpyAsync_gbps", memcpy_gbps } };
            for (const auto kernel :
                 { kernels::CopyKernel::grid_stride, kernels::CopyKernel::tiled_streaming,
                   kernels::CopyKernel::grid_stride_prefetch, kernels::CopyKernel::tiled_prefetch,
                   kernels::CopyKernel::one_tile_prefetch })
            {
                require(cudaMemset(destination, 0, bytes), "cudaMemset");
                const double value = gbps(time_ms(
                  stream,
                  [&] {
                      require(
                        kernels::launch_copy_kernel(source, destination, bytes, stream, kernel));
                  },
                  20, 10.0));
                // Spot-check the copy: the first, a middle and the last MiB.
                bool same = true;
                for (const std::size_t offset : { std::size_t{ 0 }, bytes / 2, bytes - mib })
                {
                    const auto a = download(source + offset / sizeof(float), mib / sizeof(float));
                    const auto b =
                      download(destination + offset / sizeof(float), mib / sizeof(float));
                    same = same && a == b;
                }
                row[std::string(kernels::to_string(kernel))] = {
                    { "gbps", value }, { "of_memcpy", value / memcpy_gbps }, { "verified", same }
                };
            }
            cudaFree(source);
            cudaFree(destination);
            out.push_back(row);
        }
        results["copy_kernels"] = out;
        return out;
    }

    auto bench_copies(cudaStream_t stream, ordered_json& results) -> ordered_json
    {
        using kernels::CopyKind;
        kernels::BandwidthPlan plan;
        plan.copies = {
            { CopyKind::h2d_pinned, 256 * mib },   { CopyKind::d2h_pinned, 256 * mib },
            { CopyKind::d2d_memcpy, 256 * mib },   { CopyKind::d2d_kernel, 256 * mib },
            { CopyKind::h2d_pageable, 256 * mib }, { CopyKind::d2h_pageable, 256 * mib }
        };
        plan.copies_per_sample = 8;
        plan.samples = 5;
        const auto run = kernels::run_bandwidth(plan);
        require(run.status);
        ordered_json probe;
        for (const auto& m : run.measurements)
        {
            const bool d2d =
              m.request.kind == CopyKind::d2d_memcpy || m.request.kind == CopyKind::d2d_kernel;
            std::vector<double> rates;
            for (const float ms : m.sample_ms)
            {
                rates.push_back((d2d ? 2.0 : 1.0) * static_cast<double>(m.request.bytes) *
                                m.copies_per_sample / (static_cast<double>(ms) * 1e-3) / 1e9);
            }
            const auto summary = util::summarize(rates);
            probe[std::string(kernels::to_string(m.request.kind))] = {
                { "median_gbps", summary.median },
                { "spread", summary.spread },
                { "mismatches", m.mismatches },
                { "latch_timed_out", m.latch_timed_out }
            };
        }
        ordered_json peers;
        ordered_json detail;
        peers["h2d_best_gbps"] =
          best_memcpy_gbps(cudaMemcpyHostToDevice, 256 * mib, stream, detail["h2d"]);
        peers["d2h_best_gbps"] =
          best_memcpy_gbps(cudaMemcpyDeviceToHost, 256 * mib, stream, detail["d2h"]);
        peers["d2d_best_gbps"] =
          best_memcpy_gbps(cudaMemcpyDeviceToDevice, 256 * mib, stream, detail["d2d"]);
        peers["detail"] = detail;
        ordered_json out = {
            { "bytes", 256 * mib },
            { "probe", probe },
            { "cudaMemcpyAsync", peers },
            { "ratios",
              { { "h2d_pinned_of_best", probe["h2d_pinned"]["median_gbps"].get<double>() /
                                          peers["h2d_best_gbps"].get<double>() },
                { "d2h_pinned_of_best", probe["d2h_pinned"]["median_gbps"].get<double>() /
                                          peers["d2h_best_gbps"].get<double>() },
                { "sm_copy_of_memcpy", probe["d2d_kernel"]["median_gbps"].get<double>() /
                                         probe["d2d_memcpy"]["median_gbps"].get<double>() } } }
        };
        results["copies"] = out;
        return out;
    }

    auto bench_overlap(int copy_engines, ordered_json& results) -> ordered_json
    {
        ordered_json out = ordered_json::array();
        struct Config
        {
            const char* name;
            std::size_t bytes;
            int chunks;
            int streams;
            int iterations;
        };
        // The probe's shapes (copy-bound: the kernels take about half the copy time), the same
        // with 2 and 8 streams, and kernel-bound shapes, where concurrent kernels overlap each
        // other's ramp-up and the one-kernel-at-a-time ideal is beaten.
        for (const auto& config :
             { Config{ "quick", 64 * mib, 8, 4, 1024 }, Config{ "full", 128 * mib, 16, 4, 1024 },
               Config{ "full_2_streams", 128 * mib, 16, 2, 1024 },
               Config{ "full_8_streams", 128 * mib, 16, 8, 1024 },
               Config{ "quick_kernel_bound", 64 * mib, 8, 4, 2048 },
               Config{ "full_kernel_bound", 128 * mib, 16, 4, 2048 } })
        {
            kernels::OverlapPlan plan;
            plan.bytes = config.bytes;
            plan.chunks = config.chunks;
            plan.streams = config.streams;
            plan.kernel_iterations = config.iterations;
            plan.repeats = 10;
            const auto run = kernels::run_stream_overlap(plan);
            require(run.status);
            std::vector<double> efficiency;
            std::vector<double> ideal;
            double h2d = 0.0;
            double kernel = 0.0;
            double d2h = 0.0;
            for (std::size_t r = 0; r < run.parts.size(); ++r)
            {
                std::vector<gpu::StageTimes> stages;
                for (const auto& part : run.parts[r])
                {
                    stages.push_back({ part.h2d_ms, part.kernel_ms, part.d2h_ms });
                    h2d += part.h2d_ms;
                    kernel += part.kernel_ms;
                    d2h += part.d2h_ms;
                }
                ideal.push_back(gpu::ideal_pipeline_ms(stages, copy_engines));
                efficiency.push_back(ideal.back() / run.overlapped_ms[r]);
            }
            const double repeats = static_cast<double>(run.parts.size());
            const auto e = util::summarize(efficiency);
            out.push_back(
              { { "config", config.name },
                { "bytes", config.bytes },
                { "chunks", config.chunks },
                { "streams", config.streams },
                { "kernel_iterations", config.iterations },
                { "h2d_total_ms", h2d / repeats },
                { "kernel_total_ms", kernel / repeats },
                { "d2h_total_ms", d2h / repeats },
                { "serial_ms", median({ run.serial_ms.begin(), run.serial_ms.end() }) },
                { "overlapped_ms", median({ run.overlapped_ms.begin(), run.overlapped_ms.end() }) },
                { "ideal_ms", median(ideal) },
                { "efficiency", e.median },
                { "efficiency_spread", e.spread },
                { "unwritten", run.unwritten },
                { "mismatches", run.mismatches } });
        }
        results["overlap"] = out;
        return out;
    }

    auto bench_banks(ordered_json& results) -> ordered_json
    {
        const auto run = kernels::run_bank_conflicts(400, 10);
        require(run.status);
        ordered_json out = ordered_json::array();
        const double base = median({ run.times_ms[0].begin(), run.times_ms[0].end() });
        for (std::size_t i = 0; i < run.strides.size(); ++i)
        {
            const double ms = median({ run.times_ms[i].begin(), run.times_ms[i].end() });
            out.push_back({ { "stride", run.strides[i] },
                            { "ms", ms },
                            { "slowdown", ms / base },
                            { "shared_tbps", run.reads_per_repeat * 4.0 / (ms * 1e-3) / 1e12 } });
        }
        results["bank_conflicts"] = { { "verified", run.verified }, { "table", out } };
        return out;
    }
}

auto main(int argc, char** argv) -> int
{
    try
    {
        require(kernels::select_device(0));
        // Device 0 as the probes see it: through the CUDA driver API.
        std::string error;
        const auto cuda = driver::CudaDriver::open(error);
        if (!cuda)
        {
            throw std::runtime_error("libcuda.so.1: " + error);
        }
        const auto device = cuda->describe(0);
        if (!device || !device->compute_capability())
        {
            throw std::runtime_error("the CUDA driver did not describe device 0");
        }
        const int multiprocessors = device->multiprocessors.value_or(0);
        const int copy_engines = device->async_engine_count.value_or(0);
        ordered_json results = { { "device", device->name },
                                 { "cc", *device->compute_capability() },
                                 { "multiprocessors", multiprocessors },
                                 { "async_engine_count", copy_engines } };
        cudaStream_t stream = nullptr;
        require(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

        const auto m4096 = bench_matmul(4096, stream, results);
        const auto m2048 = bench_matmul(2048, stream, results);
        const auto copies = bench_copies(stream, results);
        const auto copy_kernels = bench_copy_kernels(stream, results);
        const auto overlap = bench_overlap(copy_engines, results);
        const auto banks = bench_banks(results);
        cudaStreamDestroy(stream);

        if (argc > 1)
        {
            std::ofstream(argv[1]) << results.dump(2) << '\n';
        }
        const auto& e = m4096["envcheck"];
        std::printf("\n== bench_gpu on %s (%d SMs, %d copy engines) ==\n", device->name.c_str(),
                    multiprocessors, copy_engines);
        std::printf("matmul N=4096  cuBLAS FP32 %.1f TFLOP/s (pedantic %.1f, default %.1f)\n",
                    m4096["cublas_best_tflops"].get<double>(),
                    m4096["cublas"]["pedantic"]["tflops"].get<double>(),
                    m4096["cublas"]["default"]["tflops"].get<double>());
        for (const char* name : { "tuned", "tuned_bk16", "classic", "classic_padded" })
        {
            std::printf(
              "  %-15s %6.1f TFLOP/s  %5.1f%% of cuBLAS  (N=2048: %.1f, %.1f%%)  diff %.1e\n", name,
              e[name]["tflops"].get<double>(), 100.0 * e[name]["of_cublas"].get<double>(),
              m2048["envcheck"][name]["tflops"].get<double>(),
              100.0 * m2048["envcheck"][name]["of_cublas"].get<double>(),
              e[name]["relative_difference_to_cublas"].get<double>());
        }
        const auto& p = copies["probe"];
        const auto& peer = copies["cudaMemcpyAsync"];
        std::printf(
          "copies 256 MiB  H2D pinned %.1f GB/s (best memcpy %.1f: %.1f%%), D2H pinned %.1f "
          "(best %.1f: %.1f%%)\n",
          p["h2d_pinned"]["median_gbps"].get<double>(), peer["h2d_best_gbps"].get<double>(),
          100.0 * copies["ratios"]["h2d_pinned_of_best"].get<double>(),
          p["d2h_pinned"]["median_gbps"].get<double>(), peer["d2h_best_gbps"].get<double>(),
          100.0 * copies["ratios"]["d2h_pinned_of_best"].get<double>());
        std::printf("  D2D memcpy %.0f GB/s, SM kernel %.0f GB/s (%.1f%%; best memcpy %.0f); "
                    "pageable H2D %.1f, D2H %.1f\n",
                    p["d2d_memcpy"]["median_gbps"].get<double>(),
                    p["d2d_kernel"]["median_gbps"].get<double>(),
                    100.0 * copies["ratios"]["sm_copy_of_memcpy"].get<double>(),
                    peer["d2d_best_gbps"].get<double>(),
                    p["h2d_pageable"]["median_gbps"].get<double>(),
                    p["d2h_pageable"]["median_gbps"].get<double>());
        for (const auto& row : copy_kernels)
        {
            std::printf("  SM copy %3zu MiB vs cudaMemcpyAsync %.0f GB/s:",
                        row["bytes"].get<std::size_t>() / mib,
                        row["cudaMemcpyAsync_gbps"].get<double>());
            for (const char* name : { "grid_stride", "tiled_streaming", "grid_stride_prefetch",
                                      "tiled_prefetch", "one_tile_prefetch" })
            {
                std::printf(" %s %.1f%%%s", name, 100.0 * row[name]["of_memcpy"].get<double>(),
                            row[name]["verified"].get<bool>() ? "" : " (WRONG)");
            }
            std::printf("\n");
        }
        for (const auto& o : overlap)
        {
            std::printf("overlap %-15s serial %.2f ms, %d streams %.2f ms, ideal %.2f ms: "
                        "efficiency %.1f%% (h2d %.2f k %.2f d2h %.2f)\n",
                        o["config"].get<std::string>().c_str(), o["serial_ms"].get<double>(),
                        o["streams"].get<int>(), o["overlapped_ms"].get<double>(),
                        o["ideal_ms"].get<double>(), 100.0 * o["efficiency"].get<double>(),
                        o["h2d_total_ms"].get<double>(), o["kernel_total_ms"].get<double>(),
                        o["d2h_total_ms"].get<double>());
        }
        std::printf("banks  ");
        for (const auto& row : banks)
        {
            std::printf(" stride %d: %.1fx", row["stride"].get<int>(),
                        row["slowdown"].get<double>());
        }
        std::printf("  (conflict-free %.1f TB/s)\n", banks[0]["shared_tbps"].get<double>());
        return 0;
    }
    catch (const std::exception& error)
    {
        std::fprintf(stderr, "bench_gpu: %s\n", error.what());
        return 1;
    }
}
