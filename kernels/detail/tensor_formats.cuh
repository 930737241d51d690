// The element types of the tensor-core formats and the input values the probe computes on, the
// same bits on host and device (the CPU reference recomputes any input element from its seed).
// Included by the .cu files only (it includes the CUDA headers).
#ifndef ENVCHECK_KERNELS_DETAIL_TENSOR_FORMATS_CUH
#define ENVCHECK_KERNELS_DETAIL_TENSOR_FORMATS_CUH

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/tensor_gemm.cuh"

namespace envcheck::kernels::detail
{
    template<TensorFormat F>
    struct TensorElement;

    template<>
    struct TensorElement<TensorFormat::bf16>
    {
        using type = __nv_bfloat16;
        __host__ __device__ static auto from_float(float x) -> type
        {
            return __float2bfloat16_rn(x);
        }
        __host__ __device__ static auto to_float(type x) -> float { return __bfloat162float(x); }
    };

    template<>
    struct TensorElement<TensorFormat::fp16>
    {
        using type = __half;
        __host__ __device__ static auto from_float(float x) -> type { return __float2half_rn(x); }
        __host__ __device__ static auto to_float(type x) -> float { return __half2float(x); }
    };

    // Stored as FP32 with all 24 bits: the tensor cores drop to TF32 themselves.
    template<>
    struct TensorElement<TensorFormat::tf32>
    {
        using type = float;
        __host__ __device__ static auto from_float(float x) -> type { return x; }
        __host__ __device__ static auto to_float(type x) -> float { return x; }
    };

    template<>
    struct TensorElement<TensorFormat::fp8_e4m3>
    {
        using type = __nv_fp8_e4m3;
        __host__ __device__ static auto from_float(float x) -> type { return __nv_fp8_e4m3(x); }
        __host__ __device__ static auto to_float(type x) -> float { return static_cast<float>(x); }
    };

    // Element `index` of an input drawn from `seed`: uniform in [-1, 1), rounded to the format.
    template<TensorFormat F>
    __host__ __device__ inline auto tensor_input(std::uint32_t seed, std::uint64_t index) ->
      typename TensorElement<F>::type
    {
        return TensorElement<F>::from_float(random_float(seed, index));
    }

    // The value the GPU multiplies, as the CPU reference sees it.
    template<TensorFormat F>
    inline auto tensor_input_value(std::uint32_t seed, std::uint64_t index) -> double
    {
        return static_cast<double>(TensorElement<F>::to_float(tensor_input<F>(seed, index)));
    }

    // Columns col and col + 1 of a row of the m x n FP32 output, each only where it is inside
    // (the edge tiles of both GEMM kernels).
    __device__ __forceinline__ void store_output_pair(float* __restrict__ c, int m, int n, int row,
                                                      int col, float x, float y)
    {
        if (row >= m)
        {
            return;
        }
        float* out = c + static_cast<std::size_t>(row) * n + col;
        if (col < n)
        {
            out[0] = x;
        }
        if (col + 1 < n)
        {
            out[1] = y;
        }
    }
}

#endif
