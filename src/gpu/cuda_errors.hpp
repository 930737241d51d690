// What a CUDA runtime error code means for someone whose GPU does not work, keyed by the stable
// cudaError_t numbers (driver_types.h), so it is known without CUDA headers and testable on any
// machine. "No kernel image for this device" (209) is its own class: the GPU and driver work,
// this binary just carries no code the GPU can run.
#ifndef ENVCHECK_GPU_CUDA_ERRORS_HPP
#define ENVCHECK_GPU_CUDA_ERRORS_HPP

#include <string>
#include <string_view>
#include <vector>

namespace envcheck::gpu
{
    enum class CudaErrorClass
    {
        none,            // cudaSuccess
        no_kernel_image, // 209: the binary has no SASS or PTX this device can run
        ptx_rejected,    // 218, 221, 222: the driver cannot JIT-compile the binary's PTX
        driver_too_old,  // 35, 36: the driver is older than the runtime
        driver_broken,   // 3, 34, 803, 804: stub, mismatch, failed initialisation
        no_device,       // 100, 101: no device visible, or the ordinal does not exist
        device_busy,     // 46: exclusive-process mode held by another process, or unavailable
        out_of_memory,   // 2
        kernel_fault,    // 700, 714-716, 719: a kernel crashed; the context is lost
        hardware_error,  // 214, 220: uncorrectable ECC or NVLink error
        other,
    };

    [[nodiscard]] auto to_string(CudaErrorClass error_class) -> std::string_view;
    [[nodiscard]] auto classify_cuda_error(int code) -> CudaErrorClass;

    // One sentence for the user about an error class, and what to do.
    struct CudaErrorAdvice
    {
        std::string_view meaning;
        std::string_view fix;
    };

    [[nodiscard]] auto advice_for(CudaErrorClass error_class) -> CudaErrorAdvice;

    // The message a probe reports for a failed CUDA call. For 209 it names the device's
    // architecture and the ones this binary carries ("sm_90; envcheck carries sm_75 sm_80 and
    // PTX compute_120").
    [[nodiscard]] auto describe_cuda_failure(int code, std::string_view name, std::string_view call,
                                             std::string_view device_architecture,
                                             const std::vector<std::string>& built_sass,
                                             const std::vector<std::string>& built_ptx)
      -> std::string;
}

#endif
