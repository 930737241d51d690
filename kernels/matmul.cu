#include <cmath>
#include <vector>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/detail/timing.cuh"
#include "kernels/matmul.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        // ---------------------------------------------------------------------------------
        // Classic: one thread per output, 32x32 tiles of A and B in shared memory.
        // ---------------------------------------------------------------------------------
        constexpr int classic_tile = 32;

        template<int Pad>
        __global__ void matmul_classic(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k)
        {
            __shared__ float as[classic_tile][classic_tile + Pad];
            __shared__ float bs[classic_tile][classic_tile + Pad];
            const int tx = static_cast<int>(threadIdx.x);
            const int ty = static_cast<int>(threadIdx.y);
            const int row = static_cast<int>(blockIdx.y) * classic_tile + ty;
            const int col = static_cast<int>(blockIdx.x) * classic_tile + tx;
            float sum = 0.0f;
            for (int t = 0; t < k; t += classic_tile)
            {
                as[ty][tx] =
                  (row < m && t + tx < k) ? a[static_cast<std::size_t>(row) * k + t + tx] : 0.0f;
                bs[ty][tx] =
                  (t + ty < k && col < n) ? b[static_cast<std::size_t>(t + ty) * n + col] : 0.0f;
                __syncthreads();
#pragma unroll
                for (int kk = 0; kk < classic_tile; ++kk)
                {
                    sum = fmaf(as[ty][kk], bs[kk][tx], sum);
                }
                __syncthreads();
            }
            if (row < m && col < n)
            {
                c[static_cast<std::size_t>(row) * n + col] = sum;
            }
        }

        // ---------------------------------------------------------------------------------
        // Tuned: a 128x128 block tile, 256 threads, each computing 8x8 outputs held in
        // registers. Warps are 4 (rows) x 2 (columns), each owning a 32x64 warp tile; lanes are
        // 4 x 8 and each owns two 4-row and two 4-column strips 16 rows / 32 columns apart, so a
        // warp's float4 reads of a k-slice touch 4 (A) and 8 (B) distinct 16-byte words: one
        // shared-memory wavefront each, no bank conflicts. A is stored transposed (k-major) so
        // those reads are float4 too; its rows are padded by 4 floats so that the transposing
        // stores of a warp spread over all 32 banks. Two shared-memory stages: the next tile's
        // global loads are in registers while the current one is multiplied, one barrier per
        // k-step.
        // ---------------------------------------------------------------------------------
        constexpr int tuned_threads = 256;
        constexpr int tile_m = 128;
        constexpr int tile_n = 128;
        constexpr int a_pad = 4;

        // Four consecutive elements of a row-major matrix starting at (row, col), zero outside it.
        // Vec: cols is a multiple of 4 and the data 16-byte aligned, so a float4 is all in or out.
        template<bool Vec>
        __device__ __forceinline__ auto load4(const float* __restrict__ data, int row, int col,
                                              int rows, int cols) -> float4
        {
            if constexpr (Vec)
            {
                if (row < rows && col < cols)
                {
                    return *reinterpret_cast<const float4*>(
                      data + static_cast<std::size_t>(row) * cols + col);
                }
                return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            else
            {
                float v[4];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                {
                    v[i] = (row < rows && col + i < cols)
                             ? data[static_cast<std::size_t>(row) * cols + col + i]
                             : 0.0f;
                }
                return make_float4(v[0], v[1], v[2], v[3]);
            }
        }

        template<bool Vec>
        __device__ __forceinline__ void store4(float* __restrict__ data, int row, int col, int rows,
                                               int cols, const float* v)
        {
            if (row >= rows)
            {
                return;
            }
            float* out = data + static_cast<std::size_t>(row) * cols + col;
            if constexpr (Vec)
            {
                if (col < cols)
                {
                    *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
                }
            }
            else
            {
#pragma unroll
                for (int i = 0; i < 4; ++i)
                {
                    if (col + i < cols)
                    {
                        out[i] = v[i];
                    }
                }
            }
        }

        // MinBlocks 2 caps registers at 128 per thread; the 16-deep tile's extra prefetch
        // registers would spill there, so it runs one block per multiprocessor with up to 255.
        template<int TileK, bool Vec, int MinBlocks = (TileK == 8 ? 2 : 1)>
        __global__ void __launch_bounds__(tuned_threads, MinBlocks)
          matmul_tuned(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int m, int n, int k)
        {
            constexpr int a_loads = tile_m * TileK / 4 / tuned_threads; // float4 per thread
            constexpr int b_loads = TileK * tile_n / 4 / tuned_threads;
            static_assert(a_loads >= 1 && b_loads >= 1, "one float4 per thread at least");
            __shared__ __align__(16) float as[2][TileK][tile_m + a_pad];
            __shared__ __align__(16) float bs[2][TileK][tile_n];

            const int tid = static_cast<int>(threadIdx.x);
            const int warp = tid / 32;
            const int lane = tid % 32;
            const int row0 =
              (warp / 2) * 32 + (lane / 8) * 4; // this thread's rows: row0.., row0+16..
            const int col0 = (warp % 2) * 64 + (lane % 8) * 4; // its columns: col0.., col0+32..
            const int block_row = static_cast<int>(blockIdx.y) * tile_m;
            const int block_col = static_cast<int>(blockIdx.x) * tile_n;

            float4 a_next[a_loads];
            float4 b_next[b_loads];
            auto load_tiles = [&](int k0)
            {
#pragma unroll
                for (int i = 0; i < a_loads; ++i)
                {
                    const int f = tid + i * tuned_threads;
                    a_next[i] =
                      load4<Vec>(a, block_row + f / (TileK / 4), k0 + (f % (TileK / 4)) * 4, m, k);
                }
#pragma unroll
                for (int i = 0; i < b_loads; ++i)
                {
                    const int f = tid + i * tuned_threads;
                    b_next[i] = load4<Vec>(b, k0 + f / (tile_n / 4),
                                           block_col + (f % (tile_n / 4)) * 4, k, n);
                }
            };
            auto store_tiles = [&](int stage)
            {
#pragma unroll
                for (int i = 0; i < a_loads; ++i)
                {
                    const int f = tid + i * tuned_threads;
                    const int r = f / (TileK / 4);
                    const int kc = (f % (TileK / 4)) * 4;
                    as[stage][kc + 0][r] = a_next[i].x;
                    as[stage][kc + 1][r] = a_next[i].y;
                    as[stage][kc + 2][r] = a_next[i].z;
                    as[stage][kc + 3][r] = a_next[i].w;
                }
#pragma unroll
                for (int i = 0; i < b_loads; ++i)
                {
                    const int f = tid + i * tuned_threads;
                    *reinterpret_cast<float4*>(
                      &bs[stage][f / (tile_n / 4)][(f % (tile_n / 4)) * 4]) = b_next[i];
                }
            };

            float acc[8][8] = {};
            load_tiles(0);
            store_tiles(0);
            __syncthreads();
            int stage = 0;
            for (int k0 = 0; k0 < k; k0 += TileK)
            {
                const bool more = k0 + TileK < k;
                if (more)
                {
                    load_tiles(k0 + TileK);
                }
#pragma unroll
                for (int kk = 0; kk < TileK; ++kk)
                {
                    const float4 a_lo = *reinterpret_cast<const float4*>(&as[stage][kk][row0]);
                    const float4 a_hi = *reinterpret_cast<const float4*>(&as[stage][kk][row0 + 16]);
                    const float4 b_lo = *reinterpret_cast<const float4*>(&bs[stage][kk][col0]);
                    const float4 b_hi = *reinterpret_cast<const float4*>(&bs[stage][kk][col0 + 32]);
                    const float av[8] = { a_lo.x, a_lo.y, a_lo.z, a_lo.w,
                                          a_hi.x, a_hi.y, a_hi.z, a_hi.w };
                    const float bv[8] = { b_lo.x, b_lo.y, b_lo.z, b_lo.w,
                                          b_hi.x, b_hi.y, b_hi.z, b_hi.w };
#pragma unroll
                    for (int i = 0; i < 8; ++i)
                    {
#pragma unroll
                        for (int j = 0; j < 8; ++j)
                        {
                            acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
                        }
                    }
                }
                if (more)
                {
                    store_tiles(stage ^ 1);
                }
                __syncthreads();
                stage ^= 1;
            }

#pragma unroll
            for (int i = 0; i < 8; ++i)
            {
                const int row = block_row + row0 + (i < 4 ? i : 16 + i - 4);
                store4<Vec>(c, row, block_col + col0, m, n, &acc[i][0]);
                store4<Vec>(c, row, block_col + col0 + 32, m, n, &acc[i][4]);
            }
        }

        template<int TileK>
        auto launch_tuned(const float* a, const float* b, float* c, int m, int n, int k,
                          cudaStream_t stream) -> CudaStatus
        {
            const dim3 grid(static_cast<unsigned>((n + tile_n - 1) / tile_n),
                            static_cast<unsigned>((m + tile_m - 1) / tile_m));
            const auto aligned = [](const void* p)
            { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
            if (k % 4 == 0 && n % 4 == 0 && aligned(a) && aligned(b) && aligned(c))
            {
                matmul_tuned<TileK, true><<<grid, tuned_threads, 0, stream>>>(a, b, c, m, n, k);
            }
            else
            {
                matmul_tuned<TileK, false><<<grid, tuned_threads, 0, stream>>>(a, b, c, m, n, k);
            }
            return detail::check_launch(TileK == 8 ? "matmul_tuned<8>" : "matmul_tuned<16>");
        }

        // The CPU reference: entry (i, j) of A * B in double precision, recomputing A and B from
        // their seeds.
        auto reference_entry(int i, int j, int n, int k, std::uint32_t seed_a, std::uint32_t seed_b)
          -> double
        {
            double sum = 0.0;
            for (int kk = 0; kk < k; ++kk)
            {
                const double av =
                  detail::random_float(seed_a, static_cast<std::uint64_t>(i) * k + kk);
                const double bv =
                  detail::random_float(seed_b, static_cast<std::uint64_t>(kk) * n + j);
                sum += av * bv;
            }
            return sum;
        }

        auto matmul(const MatmulPlan& plan, MatmulRun& run) -> CudaStatus
        {
            const auto m = static_cast<std::size_t>(plan.m);
            const auto n = static_cast<std::size_t>(plan.n);
            const auto k = static_cast<std::size_t>(plan.k);
            const std::uint32_t seed_a = plan.seed;
            const std::uint32_t seed_b = plan.seed + 1;
            detail::StreamOwner stream;
            detail::DeviceBuffer<float> a;
            detail::DeviceBuffer<float> b;
            detail::DeviceBuffer<float> c;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            for (const auto& [buffer, count] :
                 { std::pair{ &a, m * k }, std::pair{ &b, k * n }, std::pair{ &c, m * n } })
            {
                if (auto status = buffer->allocate(count); !status.ok())
                {
                    return status;
                }
            }
            if (auto status = detail::fill_random_floats(a.get(), m * k, seed_a, stream.get());
                !status.ok())
            {
                return status;
            }
            if (auto status = detail::fill_random_floats(b.get(), k * n, seed_b, stream.get());
                !status.ok())
            {
                return status;
            }
            const auto launch = [&]
            {
                return launch_matmul(plan.kernel, a.get(), b.get(), c.get(), plan.m, plan.n, plan.k,
                                     stream.get());
            };

            if (auto status = detail::time_launches(stream.get(), launch, plan.min_warmup_ms,
                                                    plan.repeats, run.times_ms);
                !status.ok())
            {
                return status;
            }

            // Verification on a fresh, poisoned output: a launch that skips entries leaves NaN.
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
            std::vector<float> result(m * n);
            if (auto status =
                  check(cudaMemcpy(result.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost),
                        "cudaMemcpy(DeviceToHost)");
                !status.ok())
            {
                return status;
            }
            // Corners and edges (where tiles are partial) and random interior entries.
            std::vector<std::pair<int, int>> samples = { { 0, 0 },
                                                         { 0, plan.n - 1 },
                                                         { plan.m - 1, 0 },
                                                         { plan.m - 1, plan.n - 1 },
                                                         { plan.m / 2, plan.n / 2 } };
            for (std::uint64_t s = 0; samples.size() < 256; ++s)
            {
                const auto h = detail::mix((std::uint64_t{ plan.seed } << 32) ^ s);
                samples.emplace_back(static_cast<int>(h % m), static_cast<int>((h >> 32) % n));
            }
            double error_squared = 0.0;
            double reference_squared = 0.0;
            for (const auto& [i, j] : samples)
            {
                const double reference = reference_entry(i, j, plan.n, plan.k, seed_a, seed_b);
                const double out = result[static_cast<std::size_t>(i) * n + j];
                error_squared += (out - reference) * (out - reference);
                reference_squared += reference * reference;
            }
            run.sampled = samples.size();
            run.relative_error = reference_squared > 0.0
                                   ? std::sqrt(error_squared / reference_squared)
                                   : std::sqrt(error_squared);
            if (std::isnan(run.relative_error))
            {
                run.relative_error = INFINITY;
            }
            return {};
        }
    }

    auto to_string(MatmulKernel kernel) -> std::string_view
    {
        switch (kernel)
        {
            case MatmulKernel::classic:
                return "classic";
            case MatmulKernel::classic_padded:
                return "classic_padded";
            case MatmulKernel::tuned:
                return "tuned";
            case MatmulKernel::tuned_bk16:
                return "tuned_bk16";
        }
        return "unknown";
    }

    auto launch_matmul(MatmulKernel kernel, const float* a, const float* b, float* c, int m, int n,
                       int k, Stream stream) -> CudaStatus
    {
        if (m <= 0 || n <= 0 || k <= 0)
        {
            return check(cudaErrorInvalidValue, "launch_matmul (empty matrix)");
        }
        const dim3 classic_block(classic_tile, classic_tile);
        const dim3 classic_grid(static_cast<unsigned>((n + classic_tile - 1) / classic_tile),
                                static_cast<unsigned>((m + classic_tile - 1) / classic_tile));
        switch (kernel)
        {
            case MatmulKernel::classic:
                matmul_classic<0><<<classic_grid, classic_block, 0, stream>>>(a, b, c, m, n, k);
                return detail::check_launch("matmul_classic");
            case MatmulKernel::classic_padded:
                matmul_classic<1><<<classic_grid, classic_block, 0, stream>>>(a, b, c, m, n, k);
                return detail::check_launch("matmul_classic_padded");
            case MatmulKernel::tuned:
                return launch_tuned<8>(a, b, c, m, n, k, stream);
            case MatmulKernel::tuned_bk16:
                return launch_tuned<16>(a, b, c, m, n, k, stream);
        }
        return check(cudaErrorInvalidValue, "launch_matmul (unknown kernel)");
    }

    auto fill_random(float* data, std::size_t count, std::uint32_t seed, Stream stream)
      -> CudaStatus
    {
        return detail::fill_random_floats(data, count, seed, stream);
    }

    auto run_matmul(const MatmulPlan& plan) -> MatmulRun
    {
        MatmulRun run;
        run.status = matmul(plan, run);
        return run;
    }
}
