#include "kernels/detail/cuda_support.cuh"
#include "kernels/device.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;
    }

    auto runtime_info() -> RuntimeInfo
    {
        RuntimeInfo info;
        // Both version queries answer without a usable device; the count is the real test.
        cudaDriverGetVersion(&info.driver_version);
        cudaRuntimeGetVersion(&info.runtime_version);
        info.status = check(cudaGetDeviceCount(&info.device_count), "cudaGetDeviceCount");
        if (!info.status.ok())
        {
            info.device_count = 0;
        }
        return info;
    }

    auto select_device(int index) -> CudaStatus
    {
        if (auto status = check(cudaSetDevice(index), "cudaSetDevice"); !status.ok())
        {
            return status;
        }
        return check(cudaFree(nullptr), "cudaFree(0) (context creation)");
    }

    auto device_health() -> CudaStatus
    {
        if (auto status = check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); !status.ok())
        {
            return status;
        }
        return check(cudaGetLastError(), "cudaGetLastError");
    }
}
