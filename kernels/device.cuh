// What the CUDA runtime says about the driver and the devices. Plain C++ launchers: the caller
// (src/gpu, in the probe child process) never includes a CUDA header.
#ifndef ENVCHECK_KERNELS_DEVICE_CUH
#define ENVCHECK_KERNELS_DEVICE_CUH

#include <cstdint>
#include <string>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    struct RuntimeInfo
    {
        CudaStatus status; // of cudaGetDeviceCount: 100 no device, 35 driver too old, ...
        int device_count = 0;
        int driver_version = 0;  // cudaDriverGetVersion: the newest CUDA the driver supports
        int runtime_version = 0; // cudaRuntimeGetVersion: the cudart linked in
    };

    // The first CUDA call of a process: loads the driver through cudart.
    [[nodiscard]] auto runtime_info() -> RuntimeInfo;

    struct DeviceProperties
    {
        CudaStatus status;
        std::string name;
        std::string uuid;       // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
        std::string pci_bus_id; // "0000:19:00.0"
        int compute_capability_major = 0;
        int compute_capability_minor = 0;
        int multiprocessors = 0;
        std::uint64_t memory_bytes = 0;
        int sm_clock_khz = 0;     // peak
        int memory_clock_khz = 0; // peak
        int memory_bus_width_bits = 0;
        int l2_cache_bytes = 0;
        int shared_memory_per_block_optin = 0;
        int max_threads_per_multiprocessor = 0;
        int async_engine_count = 0; // copy engines: 2 lets H2D and D2H overlap
        bool concurrent_kernels = false;
        bool ecc_enabled = false;
    };

    [[nodiscard]] auto device_properties(int index) -> DeviceProperties;

    // cudaSetDevice and create the context now, so the first probe does not pay for it.
    [[nodiscard]] auto select_device(int index) -> CudaStatus;

    // Whether the current context still works: an earlier fault (illegal address, launch failure)
    // is sticky and fails every later call.
    [[nodiscard]] auto device_health() -> CudaStatus;
}

#endif
