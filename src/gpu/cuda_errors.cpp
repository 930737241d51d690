#include "gpu/cuda_errors.hpp"

#include <array>
#include <utility>

#include "util/strings.hpp"

namespace envcheck::gpu
{
    namespace
    {
        // cudaError_t values (CUDA 12 and 13 driver_types.h); stable across releases.
        constexpr std::array<std::pair<int, CudaErrorClass>, 25> classes{ {
          { 0, CudaErrorClass::none },
          { 2, CudaErrorClass::out_of_memory },
          { 3, CudaErrorClass::driver_broken },     // cudaErrorInitializationError
          { 34, CudaErrorClass::driver_broken },    // cudaErrorStubLibrary
          { 35, CudaErrorClass::driver_too_old },   // cudaErrorInsufficientDriver
          { 36, CudaErrorClass::driver_too_old },   // cudaErrorCallRequiresNewerDriver
          { 46, CudaErrorClass::device_busy },      // cudaErrorDevicesUnavailable
          { 100, CudaErrorClass::no_device },       // cudaErrorNoDevice
          { 101, CudaErrorClass::no_device },       // cudaErrorInvalidDevice
          { 209, CudaErrorClass::no_kernel_image }, // cudaErrorNoKernelImageForDevice
          { 214, CudaErrorClass::hardware_error },  // cudaErrorECCUncorrectable
          { 218, CudaErrorClass::ptx_rejected },    // cudaErrorInvalidPtx
          { 220, CudaErrorClass::hardware_error },  // cudaErrorNvlinkUncorrectable
          { 221, CudaErrorClass::ptx_rejected },    // cudaErrorJitCompilerNotFound
          { 222, CudaErrorClass::ptx_rejected },    // cudaErrorUnsupportedPtxVersion
          { 700, CudaErrorClass::kernel_fault },    // cudaErrorIllegalAddress
          { 702, CudaErrorClass::kernel_fault },    // cudaErrorLaunchTimeout
          { 714, CudaErrorClass::kernel_fault },    // cudaErrorHardwareStackError
          { 715, CudaErrorClass::kernel_fault },    // cudaErrorIllegalInstruction
          { 716, CudaErrorClass::kernel_fault },    // cudaErrorMisalignedAddress
          { 719, CudaErrorClass::kernel_fault },    // cudaErrorLaunchFailure
          { 802, CudaErrorClass::driver_broken },   // cudaErrorSystemNotReady (fabric manager)
          { 803, CudaErrorClass::driver_broken },   // cudaErrorSystemDriverMismatch
          { 804, CudaErrorClass::driver_broken },   // cudaErrorCompatNotSupportedOnDevice
          { 999, CudaErrorClass::other },           // cudaErrorUnknown
        } };
    }

    auto to_string(CudaErrorClass error_class) -> std::string_view
    {
        switch (error_class)
        {
            case CudaErrorClass::none:
                return "none";
            case CudaErrorClass::no_kernel_image:
                return "no_kernel_image";
            case CudaErrorClass::ptx_rejected:
                return "ptx_rejected";
            case CudaErrorClass::driver_too_old:
                return "driver_too_old";
            case CudaErrorClass::driver_broken:
                return "driver_broken";
            case CudaErrorClass::no_device:
                return "no_device";
            case CudaErrorClass::device_busy:
                return "device_busy";
            case CudaErrorClass::out_of_memory:
                return "out_of_memory";
            case CudaErrorClass::kernel_fault:
                return "kernel_fault";
            case CudaErrorClass::hardware_error:
                return "hardware_error";
            case CudaErrorClass::other:
                return "other";
        }
        return "other";
    }

    auto classify_cuda_error(int code) -> CudaErrorClass
    {
        for (const auto& [known, error_class] : classes)
        {
            if (known == code)
            {
                return error_class;
            }
        }
        return CudaErrorClass::other;
    }

    auto advice_for(CudaErrorClass error_class) -> CudaErrorAdvice
    {
        switch (error_class)
        {
            case CudaErrorClass::none:
                return { "no error", "" };
            case CudaErrorClass::no_kernel_image:
                return {
                    "no kernel image for this device: the binary carries no code this GPU can run",
                    "rebuild with the GPU's architecture in CMAKE_CUDA_ARCHITECTURES (or PTX for "
                    "an "
                    "older one)"
                };
            case CudaErrorClass::ptx_rejected:
                return {
                    "the driver cannot compile the binary's PTX for this GPU",
                    "update the NVIDIA driver, or rebuild with SASS for this GPU's architecture"
                };
            case CudaErrorClass::driver_too_old:
                return { "the NVIDIA driver is older than the CUDA runtime in this binary",
                         "update the NVIDIA driver (or use a build against an older CUDA)" };
            case CudaErrorClass::driver_broken:
                return {
                    "the CUDA driver could not initialise",
                    "run 'envcheck doctor' to find the broken link (stub libcuda, driver/module "
                    "mismatch, fabric manager)"
                };
            case CudaErrorClass::no_device:
                return { "no usable CUDA device is visible to this process",
                         "check CUDA_VISIBLE_DEVICES and the container's GPU access; run 'envcheck "
                         "doctor'" };
            case CudaErrorClass::device_busy:
                return { "the GPU is unavailable: in exclusive-process mode and held by another "
                         "process, "
                         "or marked unavailable",
                         "find the other process (nvidia-smi) or ask the administrator about the "
                         "compute mode" };
            case CudaErrorClass::out_of_memory:
                return { "the GPU is out of memory",
                         "free GPU memory held by other processes (nvidia-smi)" };
            case CudaErrorClass::kernel_fault:
                return { "a kernel crashed and the CUDA context is lost",
                         "rerun; if it repeats, report it with the GPU model and driver version" };
            case CudaErrorClass::hardware_error:
                return {
                    "the GPU reported an uncorrectable hardware error",
                    "drain the node and have the GPU checked (nvidia-smi -q -d ECC, dmesg Xid)"
                };
            case CudaErrorClass::other:
                return { "CUDA reported an unexpected error", "run 'envcheck doctor'" };
        }
        return { "CUDA reported an unexpected error", "run 'envcheck doctor'" };
    }

    auto describe_cuda_failure(int code, std::string_view name, std::string_view call,
                               std::string_view device_architecture,
                               const std::vector<std::string>& built_sass,
                               const std::vector<std::string>& built_ptx) -> std::string
    {
        const CudaErrorClass error_class = classify_cuda_error(code);
        std::string text = std::string(advice_for(error_class).meaning);
        text += " (" + std::string(call) + " returned " + std::to_string(code) + " " +
                std::string(name) + ")";
        if (error_class == CudaErrorClass::no_kernel_image)
        {
            text += "; the device is " + std::string(device_architecture) + ", envcheck carries " +
                    (built_sass.empty() ? std::string("no SASS") : util::join(built_sass, " "));
            if (!built_ptx.empty())
            {
                text += " and PTX " + util::join(built_ptx, " ");
            }
        }
        return text;
    }
}
