// What the CUDA runtime says about the driver, and opening a device. Plain C++ launchers: the
// caller (src/gpu, in the probe child process) never includes a CUDA header. What a device is
// (model::GpuDevice) comes from the CUDA driver API, src/driver/cuda_driver.hpp: one query for
// `probe` and `smoke`.
#ifndef ENVCHECK_KERNELS_DEVICE_CUH
#define ENVCHECK_KERNELS_DEVICE_CUH

#include <cstddef>
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

    // The first CUDA runtime call of the process (the probe child has loaded libcuda already).
    [[nodiscard]] auto runtime_info() -> RuntimeInfo;

    // cudaSetDevice and create the context now, so the first probe does not pay for it.
    [[nodiscard]] auto select_device(int index) -> CudaStatus;

    // Touches `bytes` of host memory on a thread of its own, starting now, with no CUDA call:
    // the pinned buffers the copy probes ask for later are then this memory registered
    // (cudaHostRegister) instead of new pinned memory (cudaHostAlloc). On the H200's host
    // registering touched pages takes 2 to 3 ms per 64 MiB, cudaHostAlloc 24 to 30 ms; the
    // probe child touches them while cuInit runs (tests/bench/RESULTS.md, device run 9). A
    // pinned buffer asked for meanwhile waits for the touching to end. Once per process.
    void reserve_host_memory(std::size_t bytes);
    // How much of it pinned buffers have taken so far (registered, page-rounded).
    [[nodiscard]] auto reserved_host_memory_taken() -> std::size_t;

    struct ComputeCapability
    {
        CudaStatus status;
        int major = 0;
        int minor = 0;
    };

    // Of the current device (cudaGetDevice): which tensor-core kernels it can run.
    [[nodiscard]] auto current_compute_capability() -> ComputeCapability;

    // Whether the current context still works: an earlier fault (illegal address, launch failure)
    // is sticky and fails every later call.
    [[nodiscard]] auto device_health() -> CudaStatus;
}

#endif
