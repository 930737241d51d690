// Tensor-core matrix multiply: C = A * B^T with FP32 accumulation and FP32 output, A m x k and B
// n x k row-major in one of the training formats (BF16, FP16, TF32, FP8 E4M3), C m x n row-major.
// Both inputs K-major ("TN"): the layout every tensor-core instruction reads without transposing,
// and the only one Hopper's TF32/FP8 wgmma and cuBLASLt's FP8 accept.
//   mma_sync   sm_80 and later: mma.sync fed by ldmatrix from a 3-stage cp.async pipeline
//              (128x128 block tile, 128-byte K slices, XOR-swizzled shared memory)
//   wgmma      sm_90a (Hopper): wgmma.mma_async fed by TMA (cp.async.bulk.tensor) through a
//              4-stage mbarrier ring; one producer warpgroup, two consumer warpgroups of
//              64x256 each (128x256 block tile); persistent grid, tiles grouped along M
//   wgmma_n128 the same with a 128x128 block tile and 6 stages (compared in tests/bench)
// Plain C++ (no CUDA header): included by host code that g++ compiles. The host-side rules
// (which format runs where, tolerances, shapes) are inline here so CPU tests cover them.
#ifndef ENVCHECK_KERNELS_TENSOR_GEMM_CUH
#define ENVCHECK_KERNELS_TENSOR_GEMM_CUH

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    enum class TensorFormat
    {
        bf16,     // bfloat16 inputs
        fp16,     // IEEE half inputs
        tf32,     // FP32 inputs that the tensor cores read as TF32 (10-bit mantissa)
        fp8_e4m3, // FP8 E4M3 inputs, accumulation as the tensor cores do it (fast accumulation)
    };

    inline constexpr TensorFormat tensor_formats[] = { TensorFormat::bf16, TensorFormat::fp16,
                                                       TensorFormat::tf32, TensorFormat::fp8_e4m3 };

    enum class TensorKernel
    {
        automatic,  // wgmma on compute capability 9.0 when its sm_90a code loads, else mma_sync
        mma_sync,   // sm_80+
        wgmma,      // sm_90a: 128x256 tile, 4 stages
        wgmma_n128, // sm_90a: 128x128 tile, 6 stages
    };

    [[nodiscard]] inline auto to_string(TensorFormat format) -> std::string_view
    {
        switch (format)
        {
            case TensorFormat::bf16:
                return "bf16";
            case TensorFormat::fp16:
                return "fp16";
            case TensorFormat::tf32:
                return "tf32";
            case TensorFormat::fp8_e4m3:
                return "fp8_e4m3";
        }
        return "unknown";
    }

    [[nodiscard]] inline auto to_string(TensorKernel kernel) -> std::string_view
    {
        switch (kernel)
        {
            case TensorKernel::automatic:
                return "automatic";
            case TensorKernel::mma_sync:
                return "mma_sync";
            case TensorKernel::wgmma:
                return "wgmma";
            case TensorKernel::wgmma_n128:
                return "wgmma_n128";
        }
        return "unknown";
    }

    // Bytes of one input element in device memory (TF32 is stored as FP32).
    [[nodiscard]] constexpr auto element_bytes(TensorFormat format) -> int
    {
        switch (format)
        {
            case TensorFormat::bf16:
            case TensorFormat::fp16:
                return 2;
            case TensorFormat::tf32:
                return 4;
            case TensorFormat::fp8_e4m3:
                return 1;
        }
        return 0;
    }

    // The bound on ||out - ref|| / max(||ref||, ||ref_abs|| / sqrt(k)) over the sampled entries,
    // where ref is the product of the very input values the GPU read, in double precision, and
    // ref_abs the sums of the products' magnitudes (the second term only matters where a short
    // dot product cancels; for random inputs and large k the first is the larger). BF16, FP16 and
    // FP8 inputs are exact there, so only the tensor cores' accumulation differs: FP32 for
    // BF16/FP16 (4e-6 to 9e-6 measured on the H200 up to k = 8192); FP8 on Hopper accumulates
    // with fewer bits (1.2e-3 to 1.7e-3). TF32 inputs are FP32 values the tensor cores cut to 10
    // mantissa bits (7e-4). Each bound leaves a margin of 5x or more, and sits below what losing
    // one k-step of 8192 costs (3% and more).
    [[nodiscard]] constexpr auto relative_error_bound(TensorFormat format) -> double
    {
        switch (format)
        {
            case TensorFormat::bf16:
            case TensorFormat::fp16:
                return 1e-4;
            case TensorFormat::tf32:
                return 5e-3;
            case TensorFormat::fp8_e4m3:
                return 1e-2;
        }
        return 0.0;
    }

    // Why this GPU cannot run `format` through `kernel`; empty when it can (for `automatic`, when
    // some kernel can). A format the architecture lacks is "not applicable", never a failure.
    [[nodiscard]] inline auto tensor_unsupported_reason(TensorFormat format, TensorKernel kernel,
                                                        int cc_major, int cc_minor) -> std::string
    {
        const int cc = cc_major * 10 + cc_minor;
        const std::string gpu = "this GPU is compute capability " + std::to_string(cc_major) + "." +
                                std::to_string(cc_minor);
        if ((kernel == TensorKernel::wgmma || kernel == TensorKernel::wgmma_n128) && cc != 90)
        {
            return "wgmma runs on compute capability 9.0 only (sm_90a code); " + gpu;
        }
        if (cc < 80)
        {
            return "envcheck's tensor-core kernels need compute capability 8.0 or newer "
                   "(cp.async, ldmatrix, BF16/TF32 mma.sync); " +
                   gpu;
        }
        if (format == TensorFormat::fp8_e4m3 && cc < 89)
        {
            return "FP8 tensor cores need compute capability 8.9 or newer; " + gpu;
        }
        return {};
    }

    // The kernel `automatic` stands for on this GPU, when its code is there (see
    // TensorGemmRun::kernel for what ran).
    [[nodiscard]] constexpr auto preferred_tensor_kernel(int cc_major, int cc_minor) -> TensorKernel
    {
        return cc_major == 9 && cc_minor == 0 ? TensorKernel::wgmma : TensorKernel::mma_sync;
    }

    // Why m x n x k cannot be multiplied in `format`; empty when it can. Rows of A and B are
    // read in 16-byte pieces (cp.async; TMA wants 16-byte row strides), so k * element bytes
    // must be a multiple of 16; sizes stay within int and the index arithmetic.
    [[nodiscard]] inline auto tensor_shape_error(TensorFormat format, long long m, long long n,
                                                 long long k) -> std::string
    {
        if (m <= 0 || n <= 0 || k <= 0)
        {
            return "m, n and k must be positive";
        }
        constexpr long long limit = 1LL << 20;
        if (m > limit || n > limit || k > limit)
        {
            return "m, n and k must be at most 1048576";
        }
        const long long row_bytes = k * element_bytes(format);
        if (row_bytes % 16 != 0)
        {
            return "k * " + std::to_string(element_bytes(format)) + " bytes (" +
                   std::string(to_string(format)) + ") must be a multiple of 16, so k must be a " +
                   "multiple of " + std::to_string(16 / element_bytes(format));
        }
        return {};
    }

    // Multiply-adds count twice.
    [[nodiscard]] constexpr auto gemm_flops(long long m, long long n, long long k) -> double
    {
        return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    }

    // One multiply on the caller's device buffers (for benchmarks that time it with their own
    // events beside a peer): A m x k and B n x k of the format's element type, C m x n FP32.
    // `kernel` automatic picks as run_tensor_gemm does. Checks the shape and the launch; the
    // buffers must be 16-byte aligned (cudaMalloc's are).
    [[nodiscard]] auto launch_tensor_gemm(TensorFormat format, TensorKernel kernel, const void* a,
                                          const void* b, float* c, int m, int n, int k,
                                          Stream stream) -> CudaStatus;

    // Fills `count` elements of the format with the values run_tensor_gemm computes on: uniform
    // in [-1, 1), rounded to the format (for benchmarks).
    [[nodiscard]] auto fill_tensor_input(TensorFormat format, void* data, std::size_t count,
                                         std::uint32_t seed, Stream stream) -> CudaStatus;

    // The kernel that `automatic` resolves to on the current device: wgmma on compute capability
    // 9.0 when the sm_90a code loads there, else mma_sync.
    [[nodiscard]] auto resolve_tensor_kernel(TensorKernel requested, TensorKernel& resolved)
      -> CudaStatus;

    struct TensorGemmPlan
    {
        TensorFormat format = TensorFormat::bf16;
        TensorKernel kernel = TensorKernel::automatic;
        int m = 4096;
        int n = 4096;
        int k = 4096;
        double min_warmup_ms = 20.0; // lets the clocks ramp up before timing
        int repeats = 10;
        int samples = 256; // entries checked against the CPU (corners and middle first)
        std::uint32_t seed = 1;
    };

    struct TensorGemmRun
    {
        CudaStatus status;
        // False when this GPU lacks the format or the requested kernel: then nothing ran and
        // `not_applicable` says why (report it as skipped, not failed).
        bool applicable = true;
        std::string not_applicable;
        TensorKernel kernel = TensorKernel::automatic; // the kernel that ran
        std::vector<float> times_ms;                   // one per timed repeat, after warm-up
        double median_ms = 0.0;
        double spread = 0.0;         // (max - min) / median of times_ms, as util::summarize has it
        double tflops = 0.0;         // at the median time
        double relative_error = 0.0; // as relative_error_bound defines it, over the samples
        double error_bound = 0.0;    // relative_error_bound(format)
        std::size_t sampled = 0;     // entries compared with the CPU's double-precision reference
        std::size_t unwritten = 0;   // output entries still holding the NaN poison

        // Measured, every entry written, and within the format's bound (NaN never is).
        [[nodiscard]] auto passed() const -> bool
        {
            return status.ok() && applicable && unwritten == 0 && sampled > 0 &&
                   relative_error <= error_bound;
        }
    };

    // Random A and B (from the seed, rounded to the format), C poisoned with NaN, warm-up,
    // `repeats` event-timed launches queued back to back, then verification on a freshly
    // poisoned C: every entry written, and sampled entries (corners, edges, random) against the
    // CPU's double-precision product of the same inputs.
    [[nodiscard]] auto run_tensor_gemm(const TensorGemmPlan& plan) -> TensorGemmRun;
}

#endif
