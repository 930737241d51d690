// 16-byte global loads and stores with the cache hints the memory probes compare (bandwidth's
// SM copy, hbm's read and write kernels). Device code; included by the .cu files only.
#ifndef ENVCHECK_KERNELS_DETAIL_VECTOR_ACCESS_CUH
#define ENVCHECK_KERNELS_DETAIL_VECTOR_ACCESS_CUH

#include <cuda_runtime_api.h>

namespace envcheck::kernels::detail
{
    enum class Hint
    {
        none,
        streaming,   // evict-first loads and stores (__ldcs/__stcs): leave L2 to others
        prefetch256, // loads ask L2 to fetch 256-byte blocks (sm_80+), stores evict-first
    };

    template<Hint H>
    __device__ __forceinline__ auto load(const uint4* p) -> uint4
    {
        if constexpr (H == Hint::streaming)
        {
            return __ldcs(p);
        }
        else if constexpr (H == Hint::prefetch256)
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            uint4 v;
            asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                : "l"(p));
            return v;
#else
            return __ldcs(p);
#endif
        }
        else
        {
            return *p;
        }
    }

    template<Hint H>
    __device__ __forceinline__ void store(uint4* p, const uint4& v)
    {
        if constexpr (H == Hint::none)
        {
            *p = v;
        }
        else
        {
            __stcs(p, v);
        }
    }
}

#endif
