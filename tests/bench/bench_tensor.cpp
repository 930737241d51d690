// Tensor-core and device-memory benchmark: envcheck's kernels against NVIDIA's libraries in the
// same run, on device 0.
//   tensor  each format (BF16, FP16, TF32, FP8 E4M3) and kernel (wgmma, wgmma_n128, mma_sync) at
//           n = 4096 and 8192 (C = A * B^T, FP32 out) against cuBLAS (cublasGemmEx) and cuBLASLt
//           (cublasLtMatmul, heuristic's first algorithm, 64 MiB workspace): same shapes, same
//           layout ("TN"), same output type, the better of the two as the peer; FP8 through
//           cuBLASLt only, with and without its fast accumulation (ours accumulates as the fast
//           mode does). All of them timed in 4 interleaved rounds (order rotating; each round:
//           warm-up, then repeats/4 launches queued back to back, one event pair each), so that
//           each meets the same clocks and power draw; median and spread over the rounds. Every
//           kernel's output is compared with the peer's, and the probe (run_tensor_gemm: CPU double
//           reference on sampled entries) runs once per format.
//   hbm     run_hbm at 1 and 4 GiB (read-only, write-only, SM copy, cudaMemcpyAsync D2D), and
//           every SM copy shape of kernels/bandwidth.cuh at 4 GiB against cudaMemcpyAsync.
// Usage: bench_tensor [--json FILE] [--sizes 4096,8192] [--repeats 20] [--hbm-mib 1024,4096]
//                     [--only tensor|hbm]
// Prints a short table last; writes every number to the JSON file.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "kernels/bandwidth.cuh"
#include "kernels/device.cuh"
#include "kernels/hbm.cuh"
#include "kernels/tensor_gemm.cuh"
#include "tests/bench/bench_cuda_support.cuh"
#include "util/statistics.hpp"

using nlohmann::ordered_json;
using namespace envcheck;

namespace
{
    using bench::download;
    using bench::relative_difference;
    using bench::require;
    using bench::warm_up;

    constexpr std::size_t mib = std::size_t{ 1 } << 20;

    struct Options
    {
        std::string json;
        std::vector<int> sizes = { 4096, 8192 };
        int repeats = 20;
        std::vector<std::size_t> hbm_mib = { 1024, 4096 };
        std::string only;
    };

    auto split_numbers(const std::string& text) -> std::vector<long long>
    {
        std::vector<long long> out;
        std::stringstream stream(text);
        std::string item;
        while (std::getline(stream, item, ','))
        {
            out.push_back(std::stoll(item));
        }
        return out;
    }

    auto parse(int argc, char** argv) -> Options
    {
        Options options;
        for (int i = 1; i < argc; ++i)
        {
            const std::string flag = argv[i];
            if (i + 1 >= argc)
            {
                throw std::runtime_error("missing value after " + flag);
            }
            const std::string value = argv[++i];
            if (flag == "--json")
            {
                options.json = value;
            }
            else if (flag == "--sizes")
            {
                options.sizes.clear();
                for (const long long n : split_numbers(value))
                {
                    options.sizes.push_back(static_cast<int>(n));
                }
            }
            else if (flag == "--repeats")
            {
                options.repeats = std::stoi(value);
            }
            else if (flag == "--hbm-mib")
            {
                options.hbm_mib.clear();
                for (const long long n : split_numbers(value))
                {
                    options.hbm_mib.push_back(static_cast<std::size_t>(n));
                }
            }
            else if (flag == "--only")
            {
                options.only = value;
            }
            else
            {
                throw std::runtime_error("unknown option " + flag);
            }
        }
        return options;
    }

    struct Timing
    {
        std::vector<double> ms;
        double median = 0.0;
        double spread = 0.0;
    };

    // Warm-up for warmup_ms (at least two launches), then `repeats` launches queued back to back
    // with an event pair around each, read after one wait: as the probes time themselves.
    auto time_queued(cudaStream_t stream, const std::function<void()>& launch, int repeats,
                     double warmup_ms = 25.0) -> Timing
    {
        cudaEvent_t start = nullptr;
        cudaEvent_t stop = nullptr;
        require(cudaEventCreate(&start), "cudaEventCreate");
        require(cudaEventCreate(&stop), "cudaEventCreate");
        warm_up(stream, start, stop, launch, warmup_ms);
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        std::vector<cudaEvent_t> marks(2 * static_cast<std::size_t>(repeats));
        for (auto& event : marks)
        {
            require(cudaEventCreate(&event), "cudaEventCreate");
        }
        for (int r = 0; r < repeats; ++r)
        {
            require(cudaEventRecord(marks[2 * r], stream), "cudaEventRecord");
            launch();
            require(cudaEventRecord(marks[2 * r + 1], stream), "cudaEventRecord");
        }
        Timing timing;
        for (int r = 0; r < repeats; ++r)
        {
            require(cudaEventSynchronize(marks[2 * r + 1]), "cudaEventSynchronize");
            float ms = 0.0f;
            require(cudaEventElapsedTime(&ms, marks[2 * r], marks[2 * r + 1]),
                    "cudaEventElapsedTime");
            timing.ms.push_back(ms);
        }
        for (auto& event : marks)
        {
            cudaEventDestroy(event);
        }
        const auto summary = util::summarize(timing.ms);
        timing.median = summary.median;
        timing.spread = summary.spread;
        return timing;
    }

    // An output with NaNs in it is infinitely far from the peer's, not incomparable (a NaN).
    auto difference_to_peer(const std::vector<float>& out, const std::vector<float>& peer_result)
      -> double
    {
        const double value = relative_difference(out, peer_result);
        return std::isnan(value) ? INFINITY : value;
    }

    auto cuda_type(kernels::TensorFormat format) -> cudaDataType_t
    {
        switch (format)
        {
            case kernels::TensorFormat::bf16:
                return CUDA_R_16BF;
            case kernels::TensorFormat::fp16:
                return CUDA_R_16F;
            case kernels::TensorFormat::tf32:
                return CUDA_R_32F;
            case kernels::TensorFormat::fp8_e4m3:
                return CUDA_R_8F_E4M3;
        }
        return CUDA_R_32F;
    }

    auto compute_type(kernels::TensorFormat format) -> cublasComputeType_t
    {
        return format == kernels::TensorFormat::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                     : CUBLAS_COMPUTE_32F;
    }

    // Row-major C (m x n) = A (m x k) * B (n x k)^T is column-major C^T = B^T... in cuBLAS terms:
    // op(B') = T on the column-major k x n view of B, A' = the k x m view of A, C' n x m.
    struct LtMatmul
    {
        cublasLtMatmulDesc_t op = nullptr;
        cublasLtMatrixLayout_t a = nullptr;
        cublasLtMatrixLayout_t b = nullptr;
        cublasLtMatrixLayout_t c = nullptr;
        cublasLtMatmulAlgo_t algo{};
        bool found = false;

        LtMatmul(cublasLtHandle_t handle, kernels::TensorFormat format, int n, bool fast_accum,
                 std::size_t workspace)
        {
            require(cublasLtMatmulDescCreate(&op, compute_type(format), CUDA_R_32F),
                    "cublasLtMatmulDescCreate");
            const cublasOperation_t transa = CUBLAS_OP_T;
            const cublasOperation_t transb = CUBLAS_OP_N;
            require(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transa,
                                                   sizeof(transa)),
                    "cublasLtMatmulDescSetAttribute(TRANSA)");
            require(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &transb,
                                                   sizeof(transb)),
                    "cublasLtMatmulDescSetAttribute(TRANSB)");
            if (format == kernels::TensorFormat::fp8_e4m3)
            {
                const std::int8_t fast = fast_accum ? 1 : 0;
                require(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                       sizeof(fast)),
                        "cublasLtMatmulDescSetAttribute(FAST_ACCUM)");
            }
            const auto n64 = static_cast<std::uint64_t>(n);
            require(cublasLtMatrixLayoutCreate(&a, cuda_type(format), n64, n64, n),
                    "cublasLtMatrixLayoutCreate");
            require(cublasLtMatrixLayoutCreate(&b, cuda_type(format), n64, n64, n),
                    "cublasLtMatrixLayoutCreate");
            require(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, n64, n64, n),
                    "cublasLtMatrixLayoutCreate");
            cublasLtMatmulPreference_t preference = nullptr;
            require(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
            require(cublasLtMatmulPreferenceSetAttribute(preference,
                                                         CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &workspace, sizeof(workspace)),
                    "cublasLtMatmulPreferenceSetAttribute");
            cublasLtMatmulHeuristicResult_t result{};
            int returned = 0;
            const auto status = cublasLtMatmulAlgoGetHeuristic(handle, op, a, b, c, c, preference,
                                                               1, &result, &returned);
            cublasLtMatmulPreferenceDestroy(preference);
            found = status == CUBLAS_STATUS_SUCCESS && returned > 0;
            algo = result.algo;
        }
        LtMatmul(const LtMatmul&) = delete;
        auto operator=(const LtMatmul&) -> LtMatmul& = delete;
        ~LtMatmul()
        {
            cublasLtMatrixLayoutDestroy(a);
            cublasLtMatrixLayoutDestroy(b);
            cublasLtMatrixLayoutDestroy(c);
            cublasLtMatmulDescDestroy(op);
        }
    };

    auto bench_format(kernels::TensorFormat format, int n, int repeats, cudaStream_t stream,
                      cublasHandle_t blas, cublasLtHandle_t lt, void* workspace,
                      std::size_t workspace_bytes) -> ordered_json
    {
        const auto elements = static_cast<std::size_t>(n) * n;
        const auto bytes = elements * static_cast<std::size_t>(kernels::element_bytes(format));
        void* a = nullptr;
        void* b = nullptr;
        float* c = nullptr;
        float* peer_c = nullptr;
        require(cudaMalloc(&a, bytes), "cudaMalloc");
        require(cudaMalloc(&b, bytes), "cudaMalloc");
        require(cudaMalloc(reinterpret_cast<void**>(&c), elements * sizeof(float)), "cudaMalloc");
        require(cudaMalloc(reinterpret_cast<void**>(&peer_c), elements * sizeof(float)),
                "cudaMalloc");
        require(kernels::fill_tensor_input(format, a, elements, 31, stream));
        require(kernels::fill_tensor_input(format, b, elements, 32, stream));
        const double flops = kernels::gemm_flops(n, n, n);
        const float one = 1.0f;
        const float zero = 0.0f;

        // The contestants: peers write peer_c, ours write c.
        struct Contestant
        {
            std::string name;
            bool peer = false;
            std::function<void()> launch;
            std::vector<double> ms;
        };
        std::vector<Contestant> contestants;
        ordered_json peers;
        ordered_json ours;
        if (format != kernels::TensorFormat::fp8_e4m3)
        {
            contestants.push_back({ "cublasGemmEx",
                                    true,
                                    [&]
                                    {
                                        require(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n,
                                                             n, &one, b, cuda_type(format), n, a,
                                                             cuda_type(format), n, &zero, peer_c,
                                                             CUDA_R_32F, n, compute_type(format),
                                                             CUBLAS_GEMM_DEFAULT),
                                                "cublasGemmEx");
                                    },
                                    {} });
        }
        std::vector<std::unique_ptr<LtMatmul>> lt_matmuls;
        for (const bool fast : { true, false })
        {
            if (format != kernels::TensorFormat::fp8_e4m3 && !fast)
            {
                continue;
            }
            const std::string name = format == kernels::TensorFormat::fp8_e4m3
                                       ? (fast ? "cublasLt_fast_accum" : "cublasLt")
                                       : "cublasLt";
            lt_matmuls.push_back(std::make_unique<LtMatmul>(lt, format, n, fast, workspace_bytes));
            const LtMatmul* m = lt_matmuls.back().get();
            if (!m->found)
            {
                peers[name] = { { "error", "no algorithm from cublasLtMatmulAlgoGetHeuristic" } };
                continue;
            }
            contestants.push_back({ name,
                                    true,
                                    [&, m]
                                    {
                                        require(cublasLtMatmul(lt, m->op, &one, b, m->a, a, m->b,
                                                               &zero, peer_c, m->c, peer_c, m->c,
                                                               &m->algo, workspace, workspace_bytes,
                                                               stream),
                                                "cublasLtMatmul");
                                    },
                                    {} });
        }
        for (const auto kernel : { kernels::TensorKernel::wgmma, kernels::TensorKernel::wgmma_n128,
                                   kernels::TensorKernel::mma_sync })
        {
            const std::string name(kernels::to_string(kernel));
            const auto probe =
              kernels::launch_tensor_gemm(format, kernel, a, b, c, n, n, n, stream);
            if (probe.code == 801) // cudaErrorNotSupported: not on this GPU
            {
                ours[name] = { { "not_applicable", probe.message } };
                continue;
            }
            require(probe);
            contestants.push_back(
              { name,
                false,
                [&, kernel]
                { require(kernels::launch_tensor_gemm(format, kernel, a, b, c, n, n, n, stream)); },
                {} });
        }

        // Interleaved rounds, the order rotating, so that every contestant meets the same clocks
        // and power draw (a GPU held at full load for seconds clocks lower than a fresh one).
        constexpr int rounds = 4;
        const int per_round = std::max(1, repeats / rounds);
        for (int round = 0; round < rounds; ++round)
        {
            for (std::size_t i = 0; i < contestants.size(); ++i)
            {
                auto& contestant = contestants[(i + round) % contestants.size()];
                const auto t = time_queued(stream, contestant.launch, per_round, 10.0);
                contestant.ms.insert(contestant.ms.end(), t.ms.begin(), t.ms.end());
            }
        }

        double peer_best = 0.0;
        std::string peer_best_name;
        std::vector<float> peer_result;
        for (auto& contestant : contestants)
        {
            if (!contestant.peer)
            {
                continue;
            }
            const auto summary = util::summarize(contestant.ms);
            const double value = flops / (summary.median * 1e-3) / 1e12;
            peers[contestant.name] = { { "tflops", value },
                                       { "spread", summary.spread },
                                       { "median_ms", summary.median } };
            if (value > peer_best)
            {
                peer_best = value;
                peer_best_name = contestant.name;
                require(cudaMemset(peer_c, 0xFF, elements * sizeof(float)), "cudaMemset");
                contestant.launch();
                require(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
                peer_result = download(peer_c, elements);
            }
        }
        for (auto& contestant : contestants)
        {
            if (contestant.peer)
            {
                continue;
            }
            const auto summary = util::summarize(contestant.ms);
            const double value = flops / (summary.median * 1e-3) / 1e12;
            require(cudaMemset(c, 0xFF, elements * sizeof(float)), "cudaMemset");
            contestant.launch();
            require(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            ours[contestant.name] = {
                { "tflops", value },
                { "spread", summary.spread },
                { "median_ms", summary.median },
                { "of_peer", peer_best > 0.0 ? value / peer_best : 0.0 },
                { "relative_difference_to_peer",
                  peer_result.empty() ? -1.0
                                      : difference_to_peer(download(c, elements), peer_result) }
            };
        }
        cudaFree(a);
        cudaFree(b);
        cudaFree(c);
        cudaFree(peer_c);

        // The probe itself: automatic kernel, CPU double reference on sampled entries.
        kernels::TensorGemmPlan plan;
        plan.format = format;
        plan.m = plan.n = plan.k = n;
        plan.repeats = 10;
        plan.seed = 77;
        const auto run = kernels::run_tensor_gemm(plan);
        require(run.status);
        ordered_json probe = { { "kernel", std::string(kernels::to_string(run.kernel)) },
                               { "applicable", run.applicable },
                               { "tflops", run.tflops },
                               { "spread", run.spread },
                               { "relative_error", run.relative_error },
                               { "error_bound", run.error_bound },
                               { "sampled", run.sampled },
                               { "unwritten", run.unwritten },
                               { "passed", run.passed() } };
        if (!run.applicable)
        {
            probe["not_applicable"] = run.not_applicable;
        }
        return { { "format", std::string(kernels::to_string(format)) },
                 { "n", n },
                 { "peers", peers },
                 { "peer_best", peer_best_name },
                 { "peer_best_tflops", peer_best },
                 { "envcheck", ours },
                 { "probe", probe } };
    }

    // The vendor's HBM bandwidth for the GPUs we know, GB/s; 0 for others (the probe also
    // reports clock x bus width). The H100 variants' names first: the SXM's is the shortest.
    auto datasheet_gbps_of(const std::string& device_name) -> double
    {
        struct Row
        {
            std::string_view name;
            double gbps;
        };
        static constexpr std::array<Row, 4> rows{ { { "H200", 4800.0 },
                                                    { "H100 NVL", 3900.0 },
                                                    { "H100 PCIe", 2000.0 },
                                                    { "H100 80GB HBM3", 3350.0 } } };
        for (const auto& row : rows)
        {
            if (device_name.find(row.name) != std::string::npos)
            {
                return row.gbps;
            }
        }
        return 0.0;
    }

    auto bench_hbm(const std::vector<std::size_t>& sizes_mib, int repeats, cudaStream_t stream,
                   const std::string& device_name) -> ordered_json
    {
        ordered_json out;
        const double datasheet_gbps = datasheet_gbps_of(device_name);
        out["datasheet_gbps"] = datasheet_gbps;
        ordered_json runs = ordered_json::array();
        for (const std::size_t size : sizes_mib)
        {
            kernels::HbmPlan plan;
            plan.bytes = size * mib;
            plan.repeats = repeats;
            const auto run = kernels::run_hbm(plan);
            require(run.status);
            ordered_json row = { { "mib", size }, { "peak_gbps", run.peak_gbps } };
            double memcpy_gbps = 0.0;
            for (const auto& m : run.measurements)
            {
                if (m.kernel == kernels::HbmKernel::memcpy)
                {
                    memcpy_gbps = m.gbps;
                }
            }
            for (const auto& m : run.measurements)
            {
                row[std::string(kernels::to_string(m.kernel))] = {
                    { "gbps", m.gbps },
                    { "spread", m.spread },
                    { "of_memcpy", memcpy_gbps > 0.0 ? m.gbps / memcpy_gbps : 0.0 },
                    { "of_peak", run.peak_gbps > 0.0 ? m.gbps / run.peak_gbps : 0.0 },
                    { "of_datasheet", datasheet_gbps > 0.0 ? m.gbps / datasheet_gbps : 0.0 },
                    { "verified", m.verified },
                    { "mismatches", m.mismatches }
                };
            }
            runs.push_back(row);
        }
        out["runs"] = runs;

        // Every SM copy shape at the largest size against one cudaMemcpyAsync, same buffers.
        const std::size_t bytes = sizes_mib.back() * mib;
        void* source = nullptr;
        void* destination = nullptr;
        require(cudaMalloc(&source, bytes), "cudaMalloc");
        require(cudaMalloc(&destination, bytes), "cudaMalloc");
        require(cudaMemset(source, 0x5A, bytes), "cudaMemset");
        const auto gbps = [&](const Timing& t)
        { return 2.0 * double(bytes) / (t.median * 1e-3) / 1e9; };
        const double memcpy_gbps = gbps(time_queued(
          stream,
          [&]
          {
              require(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, stream),
                      "cudaMemcpyAsync");
          },
          repeats, 10.0));
        ordered_json shapes = { { "mib", sizes_mib.back() }, { "memcpy_gbps", memcpy_gbps } };
        for (const auto kernel :
             { kernels::CopyKernel::grid_stride, kernels::CopyKernel::tiled_streaming,
               kernels::CopyKernel::grid_stride_prefetch, kernels::CopyKernel::tiled_prefetch,
               kernels::CopyKernel::one_tile_prefetch, kernels::CopyKernel::one_tile_prefetch_x8,
               kernels::CopyKernel::one_tile_streaming })
        {
            const double value = gbps(time_queued(
              stream,
              [&]
              { require(kernels::launch_copy_kernel(source, destination, bytes, stream, kernel)); },
              repeats, 10.0));
            shapes[std::string(kernels::to_string(kernel))] = {
                { "gbps", value }, { "of_memcpy", value / memcpy_gbps }
            };
        }
        cudaFree(source);
        cudaFree(destination);
        out["copy_shapes"] = shapes;
        return out;
    }
}

namespace
{
    // What the results name the device by: the runtime's view of it, queried here because the
    // bench is a CUDA program (src never includes a CUDA header; the tool asks the driver API).
    struct BenchDevice
    {
        std::string name;
        int compute_capability_major = 0;
        int compute_capability_minor = 0;
        int multiprocessors = 0;
        int sm_clock_khz = 0;
        int memory_clock_khz = 0;
        int memory_bus_width_bits = 0;
    };

    auto bench_device(int index) -> BenchDevice
    {
        cudaDeviceProp props{};
        require(cudaGetDeviceProperties(&props, index), "cudaGetDeviceProperties");
        BenchDevice out;
        out.name = props.name;
        out.compute_capability_major = props.major;
        out.compute_capability_minor = props.minor;
        out.multiprocessors = props.multiProcessorCount;
        require(cudaDeviceGetAttribute(&out.sm_clock_khz, cudaDevAttrClockRate, index),
                "cudaDeviceGetAttribute(ClockRate)");
        require(cudaDeviceGetAttribute(&out.memory_clock_khz, cudaDevAttrMemoryClockRate, index),
                "cudaDeviceGetAttribute(MemoryClockRate)");
        require(cudaDeviceGetAttribute(&out.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth,
                                       index),
                "cudaDeviceGetAttribute(GlobalMemoryBusWidth)");
        return out;
    }
}

auto main(int argc, char** argv) -> int
{
    try
    {
        const Options options = parse(argc, argv);
        require(kernels::select_device(0));
        const BenchDevice props = bench_device(0);
        ordered_json results = { { "device", props.name },
                                 { "cc", std::to_string(props.compute_capability_major) + "." +
                                           std::to_string(props.compute_capability_minor) },
                                 { "multiprocessors", props.multiprocessors },
                                 { "sm_clock_khz", props.sm_clock_khz },
                                 { "memory_clock_khz", props.memory_clock_khz },
                                 { "memory_bus_width_bits", props.memory_bus_width_bits } };
        kernels::TensorKernel automatic = kernels::TensorKernel::automatic;
        require(kernels::resolve_tensor_kernel(kernels::TensorKernel::automatic, automatic));
        results["automatic_kernel"] = std::string(kernels::to_string(automatic));
        cudaStream_t stream = nullptr;
        require(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

        ordered_json tensor = ordered_json::array();
        if (options.only.empty() || options.only == "tensor")
        {
            cublasHandle_t blas = nullptr;
            cublasLtHandle_t lt = nullptr;
            require(cublasCreate(&blas), "cublasCreate");
            require(cublasSetStream(blas, stream), "cublasSetStream");
            require(cublasLtCreate(&lt), "cublasLtCreate");
            const std::size_t workspace_bytes = 64 * mib;
            void* workspace = nullptr;
            require(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc");
            require(cublasSetWorkspace(blas, workspace, workspace_bytes), "cublasSetWorkspace");
            for (const int n : options.sizes)
            {
                for (const auto format : kernels::tensor_formats)
                {
                    std::fprintf(stderr, "tensor %s n=%d\n",
                                 std::string(kernels::to_string(format)).c_str(), n);
                    tensor.push_back(bench_format(format, n, options.repeats, stream, blas, lt,
                                                  workspace, workspace_bytes));
                }
            }
            cublasLtDestroy(lt);
            cublasDestroy(blas);
            cudaFree(workspace);
            results["tensor"] = tensor;
        }
        ordered_json hbm;
        if (options.only.empty() || options.only == "hbm")
        {
            std::fprintf(stderr, "hbm\n");
            hbm = bench_hbm(options.hbm_mib, options.repeats, stream, props.name);
            results["hbm"] = hbm;
        }
        cudaStreamDestroy(stream);
        if (!options.json.empty())
        {
            std::ofstream(options.json) << results.dump(2) << '\n';
        }

        std::printf("\n== bench_tensor on %s (%d SMs, cc %s; automatic kernel: %s) ==\n",
                    props.name.c_str(), props.multiprocessors,
                    results["cc"].get<std::string>().c_str(),
                    results["automatic_kernel"].get<std::string>().c_str());
        if (!tensor.empty())
        {
            std::printf(
              "%-9s %5s %-22s %8s | %8s %6s %7s %7s | %8s %6s %7s | %8s %6s %7s | %-10s %9s\n",
              "format", "n", "peer", "TFLOP/s", "wgmma", "spread", "of peer", "diff", "n128",
              "spread", "of peer", "mma", "spread", "of peer", "probe", "rel.err");
            for (const auto& row : tensor)
            {
                const auto& e = row["envcheck"];
                const auto cell = [&](const char* kernel, const char* field) -> double {
                    return e.contains(kernel) && e[kernel].contains(field)
                             ? e[kernel][field].get<double>()
                             : 0.0;
                };
                std::printf(
                  "%-9s %5d %-22s %8.1f | %8.1f %5.1f%% %6.1f%% %7.1e | %8.1f %5.1f%% %6.1f%% | "
                  "%8.1f %5.1f%% %6.1f%% | %-10s %9.2e %s\n",
                  row["format"].get<std::string>().c_str(), row["n"].get<int>(),
                  row["peer_best"].get<std::string>().c_str(),
                  row["peer_best_tflops"].get<double>(), cell("wgmma", "tflops"),
                  100.0 * cell("wgmma", "spread"), 100.0 * cell("wgmma", "of_peer"),
                  cell("wgmma", "relative_difference_to_peer"), cell("wgmma_n128", "tflops"),
                  100.0 * cell("wgmma_n128", "spread"), 100.0 * cell("wgmma_n128", "of_peer"),
                  cell("mma_sync", "tflops"), 100.0 * cell("mma_sync", "spread"),
                  100.0 * cell("mma_sync", "of_peer"),
                  row["probe"]["kernel"].get<std::string>().c_str(),
                  row["probe"]["relative_error"].get<double>(),
                  row["probe"]["passed"].get<bool>() ? "pass" : "FAIL");
            }
        }
        if (!hbm.is_null())
        {
            for (const auto& row : hbm["runs"])
            {
                // Without a datasheet figure for this GPU, no "% of datasheet" column.
                const double datasheet = hbm["datasheet_gbps"].get<double>();
                std::array<char, 32> datasheet_text{ "unknown for this GPU" };
                if (datasheet > 0.0)
                {
                    std::snprintf(datasheet_text.data(), datasheet_text.size(), "%.0f", datasheet);
                }
                std::printf("hbm %5zu MiB (peak %.0f GB/s from clock x bus; datasheet %s):",
                            row["mib"].get<std::size_t>(), row["peak_gbps"].get<double>(),
                            datasheet_text.data());
                for (const char* kernel : { "read", "write", "copy", "memcpy" })
                {
                    std::array<char, 40> of_datasheet{};
                    if (datasheet > 0.0)
                    {
                        std::snprintf(of_datasheet.data(), of_datasheet.size(),
                                      ", %.1f%% of datasheet",
                                      100.0 * row[kernel]["of_datasheet"].get<double>());
                    }
                    std::printf("  %s %.0f (%.1f%% of memcpy%s%s)", kernel,
                                row[kernel]["gbps"].get<double>(),
                                100.0 * row[kernel]["of_memcpy"].get<double>(), of_datasheet.data(),
                                row[kernel]["verified"].get<bool>() ? "" : ", NOT VERIFIED");
                }
                std::printf("\n");
            }
            const auto& shapes = hbm["copy_shapes"];
            std::printf("copy shapes at %zu MiB vs memcpy %.0f GB/s:",
                        shapes["mib"].get<std::size_t>(), shapes["memcpy_gbps"].get<double>());
            for (const auto& [name, value] : shapes.items())
            {
                if (value.is_object())
                {
                    std::printf("  %s %.1f%%", name.c_str(),
                                100.0 * value["of_memcpy"].get<double>());
                }
            }
            std::printf("\n");
        }
        return 0;
    }
    catch (const std::exception& error)
    {
        std::fprintf(stderr, "bench_tensor: %s\n", error.what());
        return 1;
    }
}
