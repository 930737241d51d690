// The Hopper (sm_90a) half of the tensor-core probe, built only for sm_90a (wgmma and setmaxnreg
// exist in no other target): kernels/tensor_gemm_sm90a.cu. Used by kernels/tensor_gemm.cu.
#ifndef ENVCHECK_KERNELS_DETAIL_TENSOR_GEMM_SM90A_CUH
#define ENVCHECK_KERNELS_DETAIL_TENSOR_GEMM_SM90A_CUH

#include <cuda_runtime_api.h>

#include "kernels/status.cuh"
#include "kernels/tensor_gemm.cuh"

namespace envcheck::kernels::detail
{
    // Whether the current device can run the sm_90a kernels (compute capability 9.0 and the
    // module loads): false, with an ok status, where it has no code for the device.
    [[nodiscard]] auto wgmma_loadable(bool& loadable) -> CudaStatus;

    // C = A * B^T through wgmma; `tile_n` 256 (wgmma) or 128 (wgmma_n128). The shape is checked
    // by the caller (tensor_shape_error).
    [[nodiscard]] auto launch_wgmma_gemm(TensorFormat format, int tile_n, const void* a,
                                         const void* b, float* c, int m, int n, int k,
                                         cudaStream_t stream) -> CudaStatus;
}

#endif
