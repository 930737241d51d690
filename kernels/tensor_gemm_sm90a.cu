// Hopper tensor-core GEMM: wgmma.mma_async fed by the TMA engine, warp-specialised. Built for
// sm_90a only (kernels/CMakeLists.txt): wgmma and setmaxnreg exist in no other target.
//
// Block: 3 warpgroups. Warpgroup 0 is the producer: one thread issues, per stage, two TMA copies
// (a 128 x 128-byte slice of A, a tile_n x 128-byte slice of B) that complete on the stage's
// "full" mbarrier; it gives up registers (setmaxnreg.dec). Warpgroups 1 and 2 are consumers: each
// multiplies its 64 rows of A by all of B with four wgmma instructions per stage (each reads 32
// bytes of K: k16 for BF16/FP16, k8 for TF32, k32 for FP8), keeps one wgmma group in flight, and
// frees a stage (its "empty" mbarrier, one arrival per warp) once the group that read it is done.
// The 128-byte slices land in shared memory with the TMA's 128-byte swizzle, the layout wgmma's
// K-major 128B-swizzle descriptors read (8-row atoms 1024 bytes apart). The grid is persistent
// (one block per SM); both roles walk the same tiles in the same order, grouped 16 tiles along M
// so that the blocks running at once share A and B panels in L2; the producer fills the next
// tile's stages while the consumers store the last one.
#include <cstdint>

#include <cuda.h>         // CUtensorMap and its enums: types only, libcuda is not linked
#include <cudaTypedefs.h> // PFN_cuTensorMapEncodeTiled, reached through cudart's entry points

#include "kernels/detail/cuda_support.cuh"
#include "kernels/detail/tensor_formats.cuh"
#include "kernels/detail/tensor_gemm_sm90a.cuh"

// The accumulator operands of the wgmma asm statements: %0.. in the template, d[0].. bound.
#define ENVCHECK_ACC64_REGS                                                                        \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define ENVCHECK_ACC128_REGS                                                                       \
    ENVCHECK_ACC64_REGS                                                                            \
    ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "           \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "             \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "   \
    "%127"
#define ENVCHECK_ACC8(i)                                                                           \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define ENVCHECK_ACC64_OPERANDS                                                                    \
    ENVCHECK_ACC8(0), ENVCHECK_ACC8(8), ENVCHECK_ACC8(16), ENVCHECK_ACC8(24), ENVCHECK_ACC8(32),   \
      ENVCHECK_ACC8(40), ENVCHECK_ACC8(48), ENVCHECK_ACC8(56)
#define ENVCHECK_ACC128_OPERANDS                                                                   \
    ENVCHECK_ACC64_OPERANDS, ENVCHECK_ACC8(64), ENVCHECK_ACC8(72), ENVCHECK_ACC8(80),              \
      ENVCHECK_ACC8(88), ENVCHECK_ACC8(96), ENVCHECK_ACC8(104), ENVCHECK_ACC8(112),                \
      ENVCHECK_ACC8(120)

// One wgmma: INSTR with the accumulators, the two descriptors and scale-d (0 on a tile's first
// k-step: the accumulators start from zero), then TAIL (the immediates after scale-d).
#define ENVCHECK_WGMMA_N256(INSTR, TAIL)                                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" INSTR " {" ENVCHECK_ACC128_REGS     \
                 "}, %128, %129, p, " TAIL ";\n}\n"                                                \
                 : ENVCHECK_ACC128_OPERANDS                                                        \
                 : "l"(a), "l"(b), "r"(scale_d))
#define ENVCHECK_WGMMA_N128(INSTR, TAIL)                                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" INSTR " {" ENVCHECK_ACC64_REGS       \
                 "}, %64, %65, p, " TAIL ";\n}\n"                                                  \
                 : ENVCHECK_ACC64_OPERANDS                                                         \
                 : "l"(a), "l"(b), "r"(scale_d))

namespace envcheck::kernels::detail
{
    namespace
    {
        constexpr int warpgroup_threads = 128;
        constexpr int consumer_warpgroups = 2;
        constexpr int block_threads = warpgroup_threads * (1 + consumer_warpgroups);
        constexpr int tile_m = 64 * consumer_warpgroups; // a consumer owns 64 rows (wgmma's m64)
        constexpr int slice_bytes = 128;                 // K bytes per stage: one swizzle row
        constexpr int instructions_per_slice = 4;        // each reads 32 bytes of K
        constexpr int group_m = 16;                      // tiles walked together along M
        constexpr int producer_registers = 40;
        constexpr int consumer_registers = 232; // 128 x 40 + 256 x 232 <= 65536

        constexpr int a_stage_bytes = tile_m * slice_bytes;

        constexpr auto stages(int tile_n) -> int
        {
            return tile_n == 256 ? 4 : 6; // 192 KiB of the 227 either way
        }

        constexpr auto b_stage_bytes(int tile_n) -> int
        {
            return tile_n * slice_bytes;
        }

        // The stages, 2 x stages mbarriers, and room to align the start to 1024 bytes.
        constexpr auto shared_bytes(int tile_n) -> int
        {
            return stages(tile_n) * (a_stage_bytes + b_stage_bytes(tile_n)) +
                   2 * stages(tile_n) * 8 + 1024;
        }

        static_assert(shared_bytes(256) == 197696 && shared_bytes(128) == 197728);
        static_assert(shared_bytes(256) <= 227 * 1024 && shared_bytes(128) <= 227 * 1024);

        template<TensorFormat F, int N>
        struct Wgmma;

        template<>
        struct Wgmma<TensorFormat::bf16, 256>
        {
            __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N256("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
                                    "1, 1, 0, 0");
            }
        };
        template<>
        struct Wgmma<TensorFormat::bf16, 128>
        {
            __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N128("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
                                    "1, 1, 0, 0");
            }
        };
        template<>
        struct Wgmma<TensorFormat::fp16, 256>
        {
            __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N256("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
                                    "1, 1, 0, 0");
            }
        };
        template<>
        struct Wgmma<TensorFormat::fp16, 128>
        {
            __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N128("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
                                    "1, 1, 0, 0");
            }
        };
        // TF32 and FP8 wgmma read K-major operands only: no transpose immediates.
        template<>
        struct Wgmma<TensorFormat::tf32, 256>
        {
            __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N256("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1");
            }
        };
        template<>
        struct Wgmma<TensorFormat::tf32, 128>
        {
            __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N128("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", "1, 1");
            }
        };
        template<>
        struct Wgmma<TensorFormat::fp8_e4m3, 256>
        {
            __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N256("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
                                    "1, 1");
            }
        };
        template<>
        struct Wgmma<TensorFormat::fp8_e4m3, 128>
        {
            __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                       std::uint32_t scale_d)
            {
                ENVCHECK_WGMMA_N128("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3",
                                    "1, 1");
            }
        };

        __device__ __forceinline__ auto shared_address(const void* pointer) -> std::uint32_t
        {
            return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
        }

        __device__ __forceinline__ void barrier_init(std::uint32_t barrier, std::uint32_t count)
        {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(count)
                         : "memory");
        }

        // The producer's arrival, announcing the bytes the stage's TMA copies will deliver.
        __device__ __forceinline__ void barrier_expect_bytes(std::uint32_t barrier,
                                                             std::uint32_t bytes)
        {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
                         "r"(bytes)
                         : "memory");
        }

        __device__ __forceinline__ void barrier_arrive(std::uint32_t barrier)
        {
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier) : "memory");
        }

        __device__ __forceinline__ auto barrier_try_wait(std::uint32_t barrier,
                                                         std::uint32_t parity) -> bool
        {
            std::uint32_t done = 0;
            asm volatile("{\n.reg .pred p;\n"
                         "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                         "selp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done)
                         : "r"(barrier), "r"(parity)
                         : "memory");
            return done != 0;
        }

        // Until the phase of parity `parity` has completed (a fresh barrier counts its
        // "previous" phase, parity 1, as completed). A phase that never completes (a TMA copy
        // the driver refused, a lost arrival) traps after 2^35 cycles (17 s at 2 GHz): the
        // launch fails instead of hanging the GPU.
        __device__ __forceinline__ void barrier_wait(std::uint32_t barrier, std::uint32_t parity)
        {
            if (barrier_try_wait(barrier, parity))
            {
                return;
            }
            const long long start = clock64();
            while (!barrier_try_wait(barrier, parity))
            {
                if (clock64() - start > (1LL << 35))
                {
                    __trap();
                }
            }
        }

        // A box of the tensor map at element coordinates (x along K, y along rows) into shared
        // memory, completing on `barrier`. Coordinates past the matrix read as zeros.
        __device__ __forceinline__ void tma_load(std::uint32_t destination, const CUtensorMap* map,
                                                 std::uint32_t barrier, int x, int y)
        {
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx"
                         "::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(destination),
                         "l"(reinterpret_cast<std::uint64_t>(map)), "r"(barrier), "r"(x), "r"(y)
                         : "memory");
        }

        // wgmma shared-memory descriptor of a K-major operand in 128-byte swizzle: start address,
        // leading byte offset (unused with this swizzle; 1 by convention), stride byte offset
        // 1024 (between 8-row atoms), swizzle mode 1 (128 bytes) in bits 62-63. Adding 2 moves
        // the start 32 bytes along K, inside the swizzled row.
        __device__ __forceinline__ auto sw128_descriptor(std::uint32_t address) -> std::uint64_t
        {
            return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) |
                   (std::uint64_t{ 1 } << 16) | (std::uint64_t{ 1024 >> 4 } << 32) |
                   (std::uint64_t{ 1 } << 62);
        }

        __device__ __forceinline__ void wgmma_fence()
        {
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        }
        __device__ __forceinline__ void wgmma_commit()
        {
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        }
        template<int Pending>
        __device__ __forceinline__ void wgmma_wait()
        {
            asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
        }

        // Pins the accumulators at this point of the program: the compiler may not move their
        // reads or writes across it (they belong to the asynchronous wgmma in between).
        template<int Count>
        __device__ __forceinline__ void fence_accumulators(float (&d)[Count])
        {
#pragma unroll
            for (int i = 0; i < Count; ++i)
            {
                asm volatile("" : "+f"(d[i])::"memory");
            }
        }

        // Tile `tile` of the grid in groups of group_m tile rows, column by column inside a group.
        __device__ __forceinline__ void tile_coordinates(int tile, int tiles_m, int tiles_n,
                                                         int& tm, int& tn)
        {
            const int per_group = group_m * tiles_n;
            const int group = tile / per_group;
            const int first = group * group_m;
            const int rows = min(group_m, tiles_m - first);
            const int in_group = tile - group * per_group;
            tm = first + in_group % rows;
            tn = in_group / rows;
        }

        template<TensorFormat F, int TileN>
        __global__ void __launch_bounds__(block_threads, 1)
          wgmma_gemm(const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map, float* __restrict__ c, int m, int n,
                     int k_slices)
        {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
            constexpr int stage_count = stages(TileN);
            constexpr int a_bytes = a_stage_bytes;
            constexpr int b_bytes = b_stage_bytes(TileN);
            constexpr int slice_elements = slice_bytes / element_bytes(F);
            extern __shared__ unsigned char shared_raw[];
            // 128-byte swizzle atoms must start on 1024 bytes.
            const std::uint32_t base = (shared_address(shared_raw) + 1023u) & ~1023u;
            const std::uint32_t a_shared = base;
            const std::uint32_t b_shared = a_shared + stage_count * a_bytes;
            const std::uint32_t full = b_shared + stage_count * b_bytes; // 8 bytes per stage
            const std::uint32_t empty = full + stage_count * 8;

            const int warpgroup = static_cast<int>(threadIdx.x) / warpgroup_threads;
            const int tiles_m = (m + tile_m - 1) / tile_m;
            const int tiles_n = (n + TileN - 1) / TileN;
            const int tiles = tiles_m * tiles_n;

            if (threadIdx.x == 0)
            {
                for (int s = 0; s < stage_count; ++s)
                {
                    barrier_init(full + 8 * s, 1);
                    barrier_init(empty + 8 * s, consumer_warpgroups * 4);
                }
                // The TMA (the async proxy) must see the initialised barriers.
                asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            }
            __syncthreads();

            if (warpgroup == 0)
            {
                asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(producer_registers));
                if (threadIdx.x == 0)
                {
                    int stage = 0;
                    std::uint32_t phase = 0;
                    for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
                         tile += static_cast<int>(gridDim.x))
                    {
                        int tm = 0;
                        int tn = 0;
                        tile_coordinates(tile, tiles_m, tiles_n, tm, tn);
                        for (int slice = 0; slice < k_slices; ++slice)
                        {
                            barrier_wait(empty + 8 * stage, phase ^ 1u);
                            barrier_expect_bytes(full + 8 * stage, a_bytes + b_bytes);
                            tma_load(a_shared + stage * a_bytes, &a_map, full + 8 * stage,
                                     slice * slice_elements, tm * tile_m);
                            tma_load(b_shared + stage * b_bytes, &b_map, full + 8 * stage,
                                     slice * slice_elements, tn * TileN);
                            if (++stage == stage_count)
                            {
                                stage = 0;
                                phase ^= 1u;
                            }
                        }
                    }
                }
            }
            else
            {
                asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(consumer_registers));
                const int consumer = warpgroup - 1;
                const int warp = static_cast<int>(threadIdx.x / 32) % 4;
                const int lane = static_cast<int>(threadIdx.x % 32);
                float d[TileN / 2] = {};
                int stage = 0;
                std::uint32_t phase = 0;
                for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
                     tile += static_cast<int>(gridDim.x))
                {
                    int tm = 0;
                    int tn = 0;
                    tile_coordinates(tile, tiles_m, tiles_n, tm, tn);
                    int previous = 0;
                    for (int slice = 0; slice < k_slices; ++slice)
                    {
                        barrier_wait(full + 8 * stage, phase);
                        wgmma_fence();
                        const std::uint64_t a_desc = sw128_descriptor(a_shared + stage * a_bytes +
                                                                      consumer * 64 * slice_bytes);
                        const std::uint64_t b_desc = sw128_descriptor(b_shared + stage * b_bytes);
#pragma unroll
                        for (int i = 0; i < instructions_per_slice; ++i)
                        {
                            Wgmma<F, TileN>::mma(d, a_desc + 2 * i, b_desc + 2 * i,
                                                 slice > 0 || i > 0 ? 1u : 0u);
                        }
                        wgmma_commit();
                        // The previous slice's group is done: its stage can be refilled.
                        wgmma_wait<1>();
                        if (slice > 0 && lane == 0)
                        {
                            barrier_arrive(empty + 8 * previous);
                        }
                        previous = stage;
                        if (++stage == stage_count)
                        {
                            stage = 0;
                            phase ^= 1u;
                        }
                    }
                    wgmma_wait<0>();
                    fence_accumulators(d);
                    if (lane == 0)
                    {
                        barrier_arrive(empty + 8 * previous);
                    }

                    // d[4j..4j+3]: rows g and g + 8 of the warp's 16, columns 8j + 2t and + 1.
                    const int row = tm * tile_m + consumer * 64 + warp * 16 + lane / 4;
                    const int col = tn * TileN + 2 * (lane % 4);
                    const bool interior =
                      (tm + 1) * tile_m <= m && (tn + 1) * TileN <= n && n % 2 == 0;
                    if (interior)
                    {
                        // Evict-first: the output is written once, A and B stay in L2.
                        float* out = c + static_cast<std::size_t>(row) * n + col;
#pragma unroll
                        for (int j = 0; j < TileN / 8; ++j)
                        {
                            __stcs(reinterpret_cast<float2*>(out + 8 * j),
                                   make_float2(d[4 * j], d[4 * j + 1]));
                            __stcs(reinterpret_cast<float2*>(out + 8 * static_cast<std::size_t>(n) +
                                                             8 * j),
                                   make_float2(d[4 * j + 2], d[4 * j + 3]));
                        }
                    }
                    else
                    {
#pragma unroll
                        for (int j = 0; j < TileN / 8; ++j)
                        {
                            store_output_pair(c, m, n, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
                            store_output_pair(c, m, n, row + 8, col + 8 * j, d[4 * j + 2],
                                              d[4 * j + 3]);
                        }
                    }
                    fence_accumulators(d);
                }
            }
#else
            __trap(); // built for sm_90a only; never launched elsewhere
#endif
        }

        using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

        // cuTensorMapEncodeTiled from the driver that cudart loaded (libcuda is never linked).
        auto tensor_map_encoder(EncodeTiled& encode) -> CudaStatus
        {
            void* function = nullptr;
            cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
            if (auto status =
                  check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                         cudaEnableDefault, &found),
                        "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
                !status.ok())
            {
                return status;
            }
            if (found != cudaDriverEntryPointSuccess || function == nullptr)
            {
                return check(cudaErrorSymbolNotFound,
                             "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
            }
            encode = reinterpret_cast<EncodeTiled>(function);
            return {};
        }

        auto tensor_map_type(TensorFormat format) -> CUtensorMapDataType
        {
            switch (format)
            {
                case TensorFormat::bf16:
                    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
                case TensorFormat::fp16:
                    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
                case TensorFormat::tf32:
                    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
                case TensorFormat::fp8_e4m3:
                    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
            }
            return CU_TENSOR_MAP_DATA_TYPE_UINT8;
        }

        // A rows x k row-major matrix read in boxes of box_rows x 128 bytes, 128-byte swizzle,
        // zeros past its edges.
        auto make_tensor_map(EncodeTiled encode, TensorFormat format, const void* data, int rows,
                             int k, int box_rows, CUtensorMap& map) -> CudaStatus
        {
            const auto bytes = static_cast<cuuint64_t>(element_bytes(format));
            const cuuint64_t dims[2] = { static_cast<cuuint64_t>(k),
                                         static_cast<cuuint64_t>(rows) };
            const cuuint64_t strides[1] = { static_cast<cuuint64_t>(k) * bytes };
            const cuuint32_t box[2] = { static_cast<cuuint32_t>(slice_bytes / bytes),
                                        static_cast<cuuint32_t>(box_rows) };
            const cuuint32_t element_strides[2] = { 1, 1 };
            const CUresult result =
              encode(&map, tensor_map_type(format), 2, const_cast<void*>(data), dims, strides, box,
                     element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            if (result != CUDA_SUCCESS)
            {
                return CudaStatus{ static_cast<int>(cudaErrorInvalidValue),
                                   "cuTensorMapEncodeTiled", "cudaErrorInvalidValue",
                                   "the driver refused the tensor map (CUresult " +
                                     std::to_string(static_cast<int>(result)) + ")" };
            }
            return {};
        }

        template<TensorFormat F, int TileN>
        auto launch(const void* a, const void* b, float* c, int m, int n, int k,
                    cudaStream_t stream) -> CudaStatus
        {
            EncodeTiled encode = nullptr;
            if (auto status = tensor_map_encoder(encode); !status.ok())
            {
                return status;
            }
            CUtensorMap a_map{};
            CUtensorMap b_map{};
            if (auto status = make_tensor_map(encode, F, a, m, k, tile_m, a_map); !status.ok())
            {
                return status;
            }
            if (auto status = make_tensor_map(encode, F, b, n, k, TileN, b_map); !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaFuncSetAttribute(wgmma_gemm<F, TileN>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             shared_bytes(TileN)),
                        "cudaFuncSetAttribute(wgmma_gemm)");
                !status.ok())
            {
                return status;
            }
            int sms = 0;
            if (auto status = multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            const long long tiles =
              static_cast<long long>((m + tile_m - 1) / tile_m) * ((n + TileN - 1) / TileN);
            const auto blocks = static_cast<unsigned>(tiles < sms ? tiles : sms);
            const int k_slices = (k * element_bytes(F) + slice_bytes - 1) / slice_bytes;
            wgmma_gemm<F, TileN><<<blocks, block_threads, shared_bytes(TileN), stream>>>(
              a_map, b_map, c, m, n, k_slices);
            return check_launch(TileN == 256 ? "wgmma_gemm<256>" : "wgmma_gemm<128>");
        }

        template<int TileN>
        auto launch_tile(TensorFormat format, const void* a, const void* b, float* c, int m, int n,
                         int k, cudaStream_t stream) -> CudaStatus
        {
            switch (format)
            {
                case TensorFormat::bf16:
                    return launch<TensorFormat::bf16, TileN>(a, b, c, m, n, k, stream);
                case TensorFormat::fp16:
                    return launch<TensorFormat::fp16, TileN>(a, b, c, m, n, k, stream);
                case TensorFormat::tf32:
                    return launch<TensorFormat::tf32, TileN>(a, b, c, m, n, k, stream);
                case TensorFormat::fp8_e4m3:
                    return launch<TensorFormat::fp8_e4m3, TileN>(a, b, c, m, n, k, stream);
            }
            return check(cudaErrorInvalidValue, "launch_wgmma_gemm (unknown format)");
        }
    }

    auto wgmma_loadable(bool& loadable) -> CudaStatus
    {
        cudaFuncAttributes attributes{};
        const cudaError_t error =
          cudaFuncGetAttributes(&attributes, wgmma_gemm<TensorFormat::bf16, 256>);
        if (error == cudaErrorNoKernelImageForDevice || error == cudaErrorInvalidDeviceFunction)
        {
            cudaGetLastError(); // not sticky; keep it out of the next launch check
            loadable = false;
            return {};
        }
        loadable = error == cudaSuccess;
        return check(error, "cudaFuncGetAttributes(wgmma_gemm)");
    }

    auto launch_wgmma_gemm(TensorFormat format, int tile_n, const void* a, const void* b, float* c,
                           int m, int n, int k, cudaStream_t stream) -> CudaStatus
    {
        if (tile_n == 256)
        {
            return launch_tile<256>(format, a, b, c, m, n, k, stream);
        }
        if (tile_n == 128)
        {
            return launch_tile<128>(format, a, b, c, m, n, k, stream);
        }
        return check(cudaErrorInvalidValue, "launch_wgmma_gemm (tile width)");
    }
}
