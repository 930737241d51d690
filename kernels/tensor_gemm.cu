// Tensor-core GEMM for sm_80 and later (mma.sync), the dispatch to the Hopper kernels
// (kernels/tensor_gemm_sm90a.cu) and the probe's run: inputs, timing, verification.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/detail/tensor_formats.cuh"
#include "kernels/detail/tensor_gemm_sm90a.cuh"
#include "kernels/detail/timing.cuh"
#include "kernels/device.cuh"
#include "kernels/tensor_gemm.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        // ---------------------------------------------------------------------------------
        // mma.sync: a 128x128 block tile, 8 warps of 64x32, 128-byte K slices in a 3-stage
        // cp.async ring (96 KiB: fits the 99 KiB of sm_86/89/120). Everything is counted in
        // bytes of K, so one kernel serves every format: an mma k-step reads 32 bytes of K
        // (k16 BF16/FP16, k8 TF32, k32 FP8), and ldmatrix's 8x8 b16 tiles are 8 rows x 16 bytes
        // whichever the element. A 16-byte chunk c of shared row r sits at chunk c ^ (r % 8): the
        // 8 rows one ldmatrix phase reads, and the rows one cp.async wave writes, fall on all 32
        // banks.
        // ---------------------------------------------------------------------------------
        constexpr int mma_threads = 256;
        constexpr int mma_tile_m = 128;
        constexpr int mma_tile_n = 128;
        constexpr int mma_slice_bytes = 128;
        constexpr int mma_stages = 3;
        constexpr int mma_stage_bytes = (mma_tile_m + mma_tile_n) * mma_slice_bytes;
        constexpr int mma_shared_bytes = mma_stages * mma_stage_bytes;

// The device helpers exist where the kernel has a body (sm_80+; the host pass keeps them for
// the parser): an sm_75 pass would report them unused.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
        __device__ __forceinline__ auto swizzled(int row, int chunk) -> std::uint32_t
        {
            return static_cast<std::uint32_t>(row * mma_slice_bytes + ((chunk ^ (row & 7)) << 4));
        }

        __device__ __forceinline__ void cp_async16(std::uint32_t destination, const void* source,
                                                   int source_bytes)
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            // source_bytes 0: the 16 bytes are zero-filled (rows and K past the matrix).
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(destination),
                         "l"(source), "r"(source_bytes)
                         : "memory");
#endif
        }

        __device__ __forceinline__ void cp_async_commit()
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            asm volatile("cp.async.commit_group;" ::: "memory");
#endif
        }

        template<int Pending>
        __device__ __forceinline__ void cp_async_wait()
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
        }

        __device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address)
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                         : "r"(address)
                         : "memory");
#endif
        }

        // d += a * b for one m16n8 tile and one 32-byte k-step of the format.
        template<TensorFormat F>
        __device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                            const std::uint32_t (&b)[2])
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define ENVCHECK_MMA(INSTR)                                                                        \
    asm volatile(INSTR " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"          \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
            if constexpr (F == TensorFormat::bf16)
            {
                ENVCHECK_MMA("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
            }
            else if constexpr (F == TensorFormat::fp16)
            {
                ENVCHECK_MMA("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
            }
            else if constexpr (F == TensorFormat::tf32)
            {
                ENVCHECK_MMA("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
            }
            else
            {
#if __CUDA_ARCH__ >= 890
                ENVCHECK_MMA("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
#else
                __trap(); // FP8 is refused on these GPUs before any launch
#endif
            }
#undef ENVCHECK_MMA
#endif
        }

#endif

        template<TensorFormat F>
        __global__ void __launch_bounds__(mma_threads)
          mma_sync_gemm(const unsigned char* __restrict__ a, const unsigned char* __restrict__ b,
                        float* __restrict__ c, int m, int n, int k_bytes)
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            constexpr int mma_a_bytes = mma_tile_m * mma_slice_bytes;
            constexpr int mma_chunks_per_thread = mma_tile_m * (mma_slice_bytes / 16) / mma_threads;
            extern __shared__ __align__(128) unsigned char shared[];
            const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
            const int tid = static_cast<int>(threadIdx.x);
            const int warp = tid / 32;
            const int lane = tid % 32;
            const int warp_m = warp % 2; // 64 rows each
            const int warp_n = warp / 2; // 32 columns each
            const int block_row = static_cast<int>(blockIdx.y) * mma_tile_m;
            const int block_col = static_cast<int>(blockIdx.x) * mma_tile_n;
            const int slices = (k_bytes + mma_slice_bytes - 1) / mma_slice_bytes;

            const auto load_slice = [&](int stage, int slice)
            {
                const std::uint32_t a_stage = base + stage * mma_stage_bytes;
                const std::uint32_t b_stage = a_stage + mma_a_bytes;
#pragma unroll
                for (int i = 0; i < mma_chunks_per_thread; ++i)
                {
                    const int index = tid + i * mma_threads;
                    const int row = index / 8;
                    const int chunk = index % 8;
                    const int k_byte = slice * mma_slice_bytes + chunk * 16;
                    const bool a_in = block_row + row < m && k_byte < k_bytes;
                    const bool b_in = block_col + row < n && k_byte < k_bytes;
                    cp_async16(
                      a_stage + swizzled(row, chunk),
                      a_in ? a + static_cast<std::size_t>(block_row + row) * k_bytes + k_byte : a,
                      a_in ? 16 : 0);
                    cp_async16(
                      b_stage + swizzled(row, chunk),
                      b_in ? b + static_cast<std::size_t>(block_col + row) * k_bytes + k_byte : b,
                      b_in ? 16 : 0);
                }
            };

            float acc[4][4][4] = {};
#pragma unroll
            for (int s = 0; s < mma_stages - 1; ++s)
            {
                if (s < slices)
                {
                    load_slice(s, s);
                }
                cp_async_commit(); // empty groups keep the count uniform
            }
            for (int slice = 0; slice < slices; ++slice)
            {
                cp_async_wait<mma_stages - 2>();
                // Every thread's part of this slice has landed, and every warp is done with the
                // stage the next load overwrites (the one of the previous slice).
                __syncthreads();
                const int next = slice + mma_stages - 1;
                if (next < slices)
                {
                    load_slice(next % mma_stages, next);
                }
                cp_async_commit();
                const std::uint32_t a_stage = base + (slice % mma_stages) * mma_stage_bytes;
                const std::uint32_t b_stage = a_stage + mma_a_bytes;
#pragma unroll
                for (int step = 0; step < mma_slice_bytes / 32; ++step)
                {
                    // A: matrices (rows 0-7, low 16 bytes), (rows 8-15, low), (0-7, high),
                    // (8-15, high): the m16 fragment's a0..a3. B: (n 0-7, low), (n 0-7, high),
                    // (n 8-15, low), (n 8-15, high): b0, b1 of two n8 tiles.
                    std::uint32_t af[4][4];
                    std::uint32_t bf[4][2];
#pragma unroll
                    for (int mi = 0; mi < 4; ++mi)
                    {
                        const int row = warp_m * 64 + mi * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
                        ldmatrix_x4(af[mi], a_stage + swizzled(row, step * 2 + (lane >> 4)));
                    }
#pragma unroll
                    for (int nj = 0; nj < 2; ++nj)
                    {
                        const int row = warp_n * 32 + nj * 16 + (lane & 7) + (lane >> 4) * 8;
                        std::uint32_t r[4];
                        ldmatrix_x4(r, b_stage + swizzled(row, step * 2 + ((lane >> 3) & 1)));
                        bf[2 * nj][0] = r[0];
                        bf[2 * nj][1] = r[1];
                        bf[2 * nj + 1][0] = r[2];
                        bf[2 * nj + 1][1] = r[3];
                    }
#pragma unroll
                    for (int mi = 0; mi < 4; ++mi)
                    {
#pragma unroll
                        for (int ni = 0; ni < 4; ++ni)
                        {
                            mma<F>(acc[mi][ni], af[mi], bf[ni]);
                        }
                    }
                }
            }

            // acc[mi][ni]: rows g and g + 8 of the m16 tile, columns 2t and 2t + 1 of the n8.
            const bool interior =
              block_row + mma_tile_m <= m && block_col + mma_tile_n <= n && n % 2 == 0;
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
            {
                const int row = block_row + warp_m * 64 + mi * 16 + lane / 4;
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                {
                    const int col = block_col + warp_n * 32 + ni * 8 + 2 * (lane % 4);
                    const float* v = acc[mi][ni];
                    if (interior)
                    {
                        float* out = c + static_cast<std::size_t>(row) * n + col;
                        __stcs(reinterpret_cast<float2*>(out), make_float2(v[0], v[1]));
                        __stcs(reinterpret_cast<float2*>(out + 8 * static_cast<std::size_t>(n)),
                               make_float2(v[2], v[3]));
                    }
                    else
                    {
                        detail::store_output_pair(c, m, n, row, col, v[0], v[1]);
                        detail::store_output_pair(c, m, n, row + 8, col, v[2], v[3]);
                    }
                }
            }
#else
            __trap(); // sm_75: refused before any launch (tensor_unsupported_reason)
#endif
        }

        template<TensorFormat F>
        auto launch_mma_sync(const void* a, const void* b, float* c, int m, int n, int k,
                             cudaStream_t stream) -> CudaStatus
        {
            if (auto status = check(cudaFuncSetAttribute(
                                      mma_sync_gemm<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      mma_shared_bytes),
                                    "cudaFuncSetAttribute(mma_sync_gemm)");
                !status.ok())
            {
                return status;
            }
            const dim3 grid(static_cast<unsigned>((n + mma_tile_n - 1) / mma_tile_n),
                            static_cast<unsigned>((m + mma_tile_m - 1) / mma_tile_m));
            mma_sync_gemm<F><<<grid, mma_threads, mma_shared_bytes, stream>>>(
              static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), c, m, n,
              k * element_bytes(F));
            return detail::check_launch("mma_sync_gemm");
        }

        template<TensorFormat F>
        __global__ void fill_input_kernel(typename detail::TensorElement<F>::type* data,
                                          std::size_t count, std::uint32_t seed)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                data[i] = detail::tensor_input<F>(seed, i);
            }
        }

        template<TensorFormat F>
        auto fill_input(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream)
          -> CudaStatus
        {
            int sms = 0;
            if (auto status = detail::multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            constexpr int threads = 256;
            const std::size_t wanted = (count + threads - 1) / threads;
            const auto blocks = static_cast<unsigned>(
              std::max<std::size_t>(1, std::min<std::size_t>(wanted, std::size_t(sms) * 8)));
            fill_input_kernel<F><<<blocks, threads, 0, stream>>>(
              static_cast<typename detail::TensorElement<F>::type*>(data), count, seed);
            return detail::check_launch("fill_input_kernel");
        }

        template<TensorFormat F>
        using FormatTag = std::integral_constant<TensorFormat, F>;

        // Calls f(FormatTag<format>{}): the format as a compile-time value (C++17, for nvcc).
        template<class Function>
        auto with_format(TensorFormat format, Function&& f) -> CudaStatus
        {
            switch (format)
            {
                case TensorFormat::bf16:
                    return f(FormatTag<TensorFormat::bf16>{});
                case TensorFormat::fp16:
                    return f(FormatTag<TensorFormat::fp16>{});
                case TensorFormat::tf32:
                    return f(FormatTag<TensorFormat::tf32>{});
                case TensorFormat::fp8_e4m3:
                    return f(FormatTag<TensorFormat::fp8_e4m3>{});
            }
            return check(cudaErrorInvalidValue, "tensor format");
        }

        auto refused(const char* call, std::string reason) -> CudaStatus
        {
            return CudaStatus{ static_cast<int>(cudaErrorNotSupported), call,
                               "cudaErrorNotSupported", std::move(reason) };
        }

        // The kernel to run and, when none can, why (an ok status with a reason: not
        // applicable).
        auto choose_kernel(TensorFormat format, TensorKernel requested, TensorKernel& chosen,
                           std::string& reason) -> CudaStatus
        {
            const auto capability = current_compute_capability();
            if (!capability.status.ok())
            {
                return capability.status;
            }
            const int major = capability.major;
            const int minor = capability.minor;
            reason = tensor_unsupported_reason(format, requested, major, minor);
            if (!reason.empty())
            {
                return {};
            }
            chosen = requested;
            const bool hopper = preferred_tensor_kernel(major, minor) == TensorKernel::wgmma;
            if (requested == TensorKernel::automatic || requested == TensorKernel::wgmma ||
                requested == TensorKernel::wgmma_n128)
            {
                bool loadable = false;
                if (hopper)
                {
                    if (auto status = detail::wgmma_loadable(loadable); !status.ok())
                    {
                        return status;
                    }
                }
                if (requested == TensorKernel::automatic)
                {
                    chosen = loadable ? TensorKernel::wgmma : TensorKernel::mma_sync;
                }
                else if (!loadable)
                {
                    reason = "this build has no sm_90a code that loads on this GPU";
                }
            }
            return {};
        }

        auto launch_chosen(TensorFormat format, TensorKernel kernel, const void* a, const void* b,
                           float* c, int m, int n, int k, cudaStream_t stream) -> CudaStatus
        {
            switch (kernel)
            {
                case TensorKernel::wgmma:
                    return detail::launch_wgmma_gemm(format, 256, a, b, c, m, n, k, stream);
                case TensorKernel::wgmma_n128:
                    return detail::launch_wgmma_gemm(format, 128, a, b, c, m, n, k, stream);
                case TensorKernel::mma_sync:
                case TensorKernel::automatic:
                    break;
            }
            return with_format(
              format, [&](auto tag)
              { return launch_mma_sync<decltype(tag)::value>(a, b, c, m, n, k, stream); });
        }

        struct ReferenceEntry
        {
            double value = 0.0;     // sum of a * b
            double magnitude = 0.0; // sum of |a * b|
        };

        // Entry (i, j) of A * B^T in double precision over the very inputs the GPU read.
        template<TensorFormat F>
        auto reference_entry(int i, int j, int k, std::uint32_t seed_a, std::uint32_t seed_b)
          -> ReferenceEntry
        {
            ReferenceEntry entry;
            const auto row_a = static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(k);
            const auto row_b = static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(k);
            for (int kk = 0; kk < k; ++kk)
            {
                const double product = detail::tensor_input_value<F>(seed_a, row_a + kk) *
                                       detail::tensor_input_value<F>(seed_b, row_b + kk);
                entry.value += product;
                entry.magnitude += std::fabs(product);
            }
            return entry;
        }

        auto tensor_gemm(const TensorGemmPlan& plan, TensorGemmRun& run) -> CudaStatus
        {
            if (const auto error = tensor_shape_error(plan.format, plan.m, plan.n, plan.k);
                !error.empty() || plan.repeats < 1 || plan.samples < 1)
            {
                return CudaStatus{ static_cast<int>(cudaErrorInvalidValue), "run_tensor_gemm",
                                   "cudaErrorInvalidValue",
                                   error.empty() ? "repeats and samples must be positive" : error };
            }
            TensorKernel kernel = TensorKernel::mma_sync;
            if (auto status = choose_kernel(plan.format, plan.kernel, kernel, run.not_applicable);
                !status.ok() || !run.not_applicable.empty())
            {
                run.applicable = run.not_applicable.empty();
                return status;
            }
            run.kernel = kernel;
            run.error_bound = relative_error_bound(plan.format);
            const auto m = static_cast<std::size_t>(plan.m);
            const auto n = static_cast<std::size_t>(plan.n);
            const auto k = static_cast<std::size_t>(plan.k);
            const auto bytes = static_cast<std::size_t>(element_bytes(plan.format));
            const std::uint32_t seed_a = plan.seed;
            const std::uint32_t seed_b = plan.seed + 1;
            detail::StreamOwner stream;
            detail::DeviceBuffer<unsigned char> a;
            detail::DeviceBuffer<unsigned char> b;
            detail::DeviceBuffer<float> c;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            if (auto status = a.allocate(m * k * bytes); !status.ok())
            {
                return status;
            }
            if (auto status = b.allocate(n * k * bytes); !status.ok())
            {
                return status;
            }
            if (auto status = c.allocate(m * n); !status.ok())
            {
                return status;
            }
            for (const auto& [buffer, count, seed] :
                 { std::tuple{ a.get(), m * k, seed_a }, std::tuple{ b.get(), n * k, seed_b } })
            {
                if (auto status = fill_tensor_input(plan.format, buffer, count, seed, stream.get());
                    !status.ok())
                {
                    return status;
                }
            }
            if (auto status =
                  check(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream.get()), "cudaMemsetAsync");
                !status.ok())
            {
                return status;
            }
            const auto launch = [&]
            {
                return launch_chosen(plan.format, kernel, a.get(), b.get(), c.get(), plan.m, plan.n,
                                     plan.k, stream.get());
            };

            if (auto status = detail::time_launches(stream.get(), launch, plan.min_warmup_ms,
                                                    plan.repeats, run.times_ms);
                !status.ok())
            {
                return status;
            }
            detail::median_and_spread(run.times_ms, run.median_ms, run.spread);
            run.tflops = run.median_ms > 0.0
                           ? gemm_flops(plan.m, plan.n, plan.k) / (run.median_ms * 1e-3) / 1e12
                           : 0.0;

            // Verification on a freshly poisoned output: a launch that skips entries leaves NaN.
            if (auto status =
                  check(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream.get()), "cudaMemsetAsync");
                !status.ok())
            {
                return status;
            }
            if (auto status = launch(); !status.ok())
            {
                return status;
            }
            if (auto status = detail::count_nonfinite(c.get(), m * n, stream.get(), run.unwritten);
                !status.ok())
            {
                return status;
            }
            // Corners and the middle (partial tiles sit on the far edges), then random entries.
            std::vector<std::pair<int, int>> samples = { { 0, 0 },
                                                         { 0, plan.n - 1 },
                                                         { plan.m - 1, 0 },
                                                         { plan.m - 1, plan.n - 1 },
                                                         { plan.m / 2, plan.n / 2 } };
            samples.resize(std::min(samples.size(), static_cast<std::size_t>(plan.samples)));
            for (std::uint64_t s = 0; samples.size() < static_cast<std::size_t>(plan.samples); ++s)
            {
                const auto h = detail::mix((std::uint64_t{ plan.seed } << 32) ^ (s + 0x7E5));
                samples.emplace_back(static_cast<int>(h % m), static_cast<int>((h >> 32) % n));
            }
            double error_squared = 0.0;
            double reference_squared = 0.0;
            double magnitude_squared = 0.0;
            for (const auto& sample : samples)
            {
                const int i = sample.first;
                const int j = sample.second;
                float out = 0.0f;
                if (auto status =
                      detail::copy_to_host(&out, c.get() + static_cast<std::size_t>(i) * n + j,
                                           sizeof(float), stream.get());
                    !status.ok())
                {
                    return status;
                }
                ReferenceEntry reference;
                (void)with_format(plan.format,
                                  [&](auto tag)
                                  {
                                      reference = reference_entry<decltype(tag)::value>(
                                        i, j, plan.k, seed_a, seed_b);
                                      return CudaStatus{};
                                  });
                error_squared += (out - reference.value) * (out - reference.value);
                reference_squared += reference.value * reference.value;
                magnitude_squared += reference.magnitude * reference.magnitude;
            }
            // Relative to the result, or to the size a sum of k random-signed products has
            // (sqrt(k) times a product) where cancellation made the result smaller: a short dot
            // product that cancels must not fail on the rounding of its terms.
            const double scale = std::max(std::sqrt(reference_squared),
                                          std::sqrt(magnitude_squared / static_cast<double>(k)));
            run.sampled = samples.size();
            run.relative_error =
              scale > 0.0 ? std::sqrt(error_squared) / scale : std::sqrt(error_squared);
            if (std::isnan(run.relative_error))
            {
                run.relative_error = INFINITY;
            }
            return {};
        }
    }

    auto fill_tensor_input(TensorFormat format, void* data, std::size_t count, std::uint32_t seed,
                           Stream stream) -> CudaStatus
    {
        return with_format(format, [&](auto tag)
                           { return fill_input<decltype(tag)::value>(data, count, seed, stream); });
    }

    auto resolve_tensor_kernel(TensorKernel requested, TensorKernel& resolved) -> CudaStatus
    {
        std::string reason;
        resolved = requested;
        return choose_kernel(TensorFormat::bf16, requested, resolved, reason);
    }

    auto launch_tensor_gemm(TensorFormat format, TensorKernel kernel, const void* a, const void* b,
                            float* c, int m, int n, int k, Stream stream) -> CudaStatus
    {
        if (const auto error = tensor_shape_error(format, m, n, k); !error.empty())
        {
            return CudaStatus{ static_cast<int>(cudaErrorInvalidValue), "launch_tensor_gemm",
                               "cudaErrorInvalidValue", error };
        }
        TensorKernel chosen = kernel;
        std::string reason;
        if (auto status = choose_kernel(format, kernel, chosen, reason); !status.ok())
        {
            return status;
        }
        if (!reason.empty())
        {
            return refused("launch_tensor_gemm", reason);
        }
        return launch_chosen(format, chosen, a, b, c, m, n, k, stream);
    }

    auto run_tensor_gemm(const TensorGemmPlan& plan) -> TensorGemmRun
    {
        TensorGemmRun run;
        run.status = tensor_gemm(plan, run);
        return run;
    }
}
