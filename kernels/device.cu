#include <cstdio>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/device.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        auto format_uuid(const cudaUUID_t& uuid) -> std::string
        {
            char text[64];
            const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
            std::snprintf(
              text, sizeof(text),
              "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
              b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
              b[14], b[15]);
            return text;
        }

        auto attribute(cudaDeviceAttr attr, int device, int& value, const char* call) -> CudaStatus
        {
            return check(cudaDeviceGetAttribute(&value, attr, device), call);
        }
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

    auto device_properties(int index) -> DeviceProperties
    {
        DeviceProperties props;
        cudaDeviceProp raw{};
        props.status = check(cudaGetDeviceProperties(&raw, index), "cudaGetDeviceProperties");
        if (!props.status.ok())
        {
            return props;
        }
        props.name = raw.name;
        props.uuid = format_uuid(raw.uuid);
        char bus_id[32] = {};
        props.status =
          check(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), index), "cudaDeviceGetPCIBusId");
        if (!props.status.ok())
        {
            return props;
        }
        props.pci_bus_id = bus_id;
        props.compute_capability_major = raw.major;
        props.compute_capability_minor = raw.minor;
        props.multiprocessors = raw.multiProcessorCount;
        props.memory_bytes = raw.totalGlobalMem;
        props.memory_bus_width_bits = raw.memoryBusWidth;
        props.l2_cache_bytes = raw.l2CacheSize;
        props.shared_memory_per_block_optin = static_cast<int>(raw.sharedMemPerBlockOptin);
        props.max_threads_per_multiprocessor = raw.maxThreadsPerMultiProcessor;
        props.async_engine_count = raw.asyncEngineCount;
        props.concurrent_kernels = raw.concurrentKernels != 0;
        props.ecc_enabled = raw.ECCEnabled != 0;
        // Clocks left cudaDeviceProp in CUDA 13: attributes work on every version.
        props.status = attribute(cudaDevAttrClockRate, index, props.sm_clock_khz,
                                 "cudaDeviceGetAttribute(ClockRate)");
        if (!props.status.ok())
        {
            return props;
        }
        props.status = attribute(cudaDevAttrMemoryClockRate, index, props.memory_clock_khz,
                                 "cudaDeviceGetAttribute(MemoryClockRate)");
        return props;
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
