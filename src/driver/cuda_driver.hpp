// The CUDA driver API (libcuda.so.1), dlopen()ed: never linked, and only ever loaded inside an
// fsio::run_child child. The function types are declared here from the documented signatures
// (cuda.h of CUDA 13; gpu-anchors.md §5.2): envcheck builds without the header. The one place
// that describes a device: `probe` (src/system) and `smoke` (src/gpu) both read their
// model::GpuDevice through describe().
#ifndef ENVCHECK_DRIVER_CUDA_DRIVER_HPP
#define ENVCHECK_DRIVER_CUDA_DRIVER_HPP

#include <optional>
#include <string>
#include <string_view>

#include "driver/dl.hpp"
#include "model/gpu_device.hpp"

namespace envcheck::driver
{
    class CudaDriver
    {
    public:
        // dlopen("libcuda.so.1"); nullopt with `error` set (dlerror()) when it cannot be loaded.
        [[nodiscard]] static auto open(std::string& error) -> std::optional<CudaDriver>;

        // The file that was loaded.
        [[nodiscard]] auto path() const -> std::string;
        // cuDriverGetVersion (encoded, 13000): answers without cuInit, even when init would fail.
        [[nodiscard]] auto driver_version() const -> std::optional<int>;
        [[nodiscard]] auto has_init() const -> bool;
        // cuInit(0)'s CUresult; has_init() must be true.
        [[nodiscard]] auto init() const -> int;
        // cuDeviceGetCount, after a successful init; nullopt when the call is missing or fails.
        [[nodiscard]] auto device_count() const -> std::optional<int>;
        // cuDeviceGet and every attribute of model::GpuDevice; nullopt when the ordinal cannot be
        // opened. Strings are bounded by their buffers, whatever the driver wrote.
        [[nodiscard]] auto describe(int ordinal) const -> std::optional<model::GpuDevice>;

    private:
        explicit CudaDriver(void* handle)
          : m_handle(handle)
        {
        }

        void* m_handle = nullptr;
    };
}

#endif
