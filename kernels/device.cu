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

    auto current_compute_capability() -> ComputeCapability
    {
        ComputeCapability out;
        int device = 0;
        out.status = check(cudaGetDevice(&device), "cudaGetDevice");
        if (out.status.ok())
        {
            out.status =
              check(cudaDeviceGetAttribute(&out.major, cudaDevAttrComputeCapabilityMajor, device),
                    "cudaDeviceGetAttribute(ComputeCapabilityMajor)");
        }
        if (out.status.ok())
        {
            out.status =
              check(cudaDeviceGetAttribute(&out.minor, cudaDevAttrComputeCapabilityMinor, device),
                    "cudaDeviceGetAttribute(ComputeCapabilityMinor)");
        }
        return out;
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
