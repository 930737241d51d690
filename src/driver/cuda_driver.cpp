#include "driver/cuda_driver.hpp"

#include <cstddef>
#include <cstdio>

#include "driver/dl.hpp"

namespace envcheck::driver
{
    namespace
    {
        // cuda.h (CUDA 13), declared from the documented signatures.
        using Result = int; // CUresult
        using Device = int; // CUdevice

        struct Uuid // CUuuid
        {
            unsigned char bytes[16];
        };

        using InitFn = Result (*)(unsigned);
        using IntOutFn = Result (*)(int*);
        using DeviceGetFn = Result (*)(Device*, int);
        using NameFn = Result (*)(char*, int, Device);
        using TotalMemFn = Result (*)(std::size_t*, Device);
        using AttributeFn = Result (*)(int*, int, Device);
        using UuidFn = Result (*)(Uuid*, Device);

        // CUdevice_attribute values (cuda.h; gpu-anchors.md §5.2).
        enum Attribute : int
        {
            max_threads_per_block = 1,
            max_shared_memory_per_block = 8,
            warp_size = 10,
            max_registers_per_block = 12,
            clock_rate = 13, // kHz
            multiprocessor_count = 16,
            compute_mode = 20,
            concurrent_kernels = 31,
            ecc_enabled = 32,
            memory_clock_rate = 36, // kHz
            global_memory_bus_width = 37,
            l2_cache_size = 38,
            max_threads_per_multiprocessor = 39,
            async_engine_count = 40,
            unified_addressing = 41,
            compute_capability_major = 75,
            compute_capability_minor = 76,
            max_shared_memory_per_multiprocessor = 81,
            max_registers_per_multiprocessor = 82,
            max_shared_memory_per_block_optin = 97,
            reserved_shared_memory_per_block = 111,
        };

        auto format_uuid(const Uuid& uuid) -> std::string
        {
            // GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi and NVML print it.
            std::string out = "GPU-";
            char hex[3];
            for (std::size_t i = 0; i < 16; ++i)
            {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                {
                    out += '-';
                }
                std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned>(uuid.bytes[i]));
                out += hex;
            }
            return out;
        }
    }

    auto CudaDriver::open(std::string& error) -> std::optional<CudaDriver>
    {
        void* handle = open_library(std::string(libcuda_name).c_str(), error);
        if (handle == nullptr)
        {
            return std::nullopt;
        }
        return CudaDriver(handle);
    }

    auto CudaDriver::path() const -> std::string
    {
        return loaded_path(m_handle);
    }

    auto CudaDriver::driver_version() const -> std::optional<int>
    {
        int encoded = 0;
        const auto version = symbol<IntOutFn>(m_handle, "cuDriverGetVersion");
        if (version != nullptr && version(&encoded) == 0)
        {
            return encoded;
        }
        return std::nullopt;
    }

    auto CudaDriver::has_init() const -> bool
    {
        return symbol<InitFn>(m_handle, "cuInit") != nullptr;
    }

    auto CudaDriver::init() const -> int
    {
        return symbol<InitFn>(m_handle, "cuInit")(0);
    }

    auto CudaDriver::device_count() const -> std::optional<int>
    {
        int count = 0;
        const auto get_count = symbol<IntOutFn>(m_handle, "cuDeviceGetCount");
        if (get_count != nullptr && get_count(&count) == 0)
        {
            return count;
        }
        return std::nullopt;
    }

    auto CudaDriver::describe(int ordinal) const -> std::optional<model::GpuDevice>
    {
        const auto get_device = symbol<DeviceGetFn>(m_handle, "cuDeviceGet");
        Device device = 0;
        if (get_device == nullptr || get_device(&device, ordinal) != 0)
        {
            return std::nullopt;
        }
        model::GpuDevice out;
        out.index = ordinal;
        char text[256] = {};
        if (const auto name = symbol<NameFn>(m_handle, "cuDeviceGetName");
            name && name(text, sizeof(text), device) == 0)
        {
            out.name = text_from(text);
        }
        std::size_t bytes = 0;
        if (const auto total = symbol<TotalMemFn>(m_handle, "cuDeviceTotalMem_v2");
            total && total(&bytes, device) == 0)
        {
            out.memory_bytes = bytes;
        }
        auto uuid_fn = symbol<UuidFn>(m_handle, "cuDeviceGetUuid_v2");
        if (uuid_fn == nullptr)
        {
            uuid_fn = symbol<UuidFn>(m_handle, "cuDeviceGetUuid");
        }
        Uuid uuid{};
        if (uuid_fn != nullptr && uuid_fn(&uuid, device) == 0)
        {
            out.uuid = format_uuid(uuid);
        }
        char bus_id[32] = {};
        if (const auto get_bus_id = symbol<NameFn>(m_handle, "cuDeviceGetPCIBusId");
            get_bus_id && get_bus_id(bus_id, sizeof(bus_id), device) == 0)
        {
            out.pci_bus_id = text_from(bus_id);
        }
        const auto attribute_fn = symbol<AttributeFn>(m_handle, "cuDeviceGetAttribute");
        if (attribute_fn == nullptr)
        {
            return out;
        }
        const auto attribute = [&](Attribute id) -> std::optional<int>
        {
            int value = 0;
            return attribute_fn(&value, id, device) == 0 ? std::optional<int>(value) : std::nullopt;
        };
        const auto flag = [&](Attribute id) -> std::optional<bool>
        {
            const auto value = attribute(id);
            return value ? std::optional<bool>(*value != 0) : std::nullopt;
        };
        const auto megahertz = [&](Attribute id) -> std::optional<int>
        {
            const auto value = attribute(id);
            return value ? std::optional<int>(*value / 1000) : std::nullopt;
        };
        out.compute_capability_major = attribute(compute_capability_major);
        out.compute_capability_minor = attribute(compute_capability_minor);
        out.multiprocessors = attribute(multiprocessor_count);
        out.shared_memory_per_block = attribute(max_shared_memory_per_block);
        out.shared_memory_per_block_optin = attribute(max_shared_memory_per_block_optin);
        out.shared_memory_per_multiprocessor = attribute(max_shared_memory_per_multiprocessor);
        out.reserved_shared_memory_per_block = attribute(reserved_shared_memory_per_block);
        out.registers_per_block = attribute(max_registers_per_block);
        out.registers_per_multiprocessor = attribute(max_registers_per_multiprocessor);
        if (const auto l2 = attribute(l2_cache_size); l2 && *l2 >= 0)
        {
            out.l2_cache_bytes = static_cast<std::uint64_t>(*l2);
        }
        out.max_threads_per_block = attribute(max_threads_per_block);
        out.max_threads_per_multiprocessor = attribute(max_threads_per_multiprocessor);
        out.warp_size = attribute(warp_size);
        out.concurrent_kernels = flag(concurrent_kernels);
        out.async_engine_count = attribute(async_engine_count);
        out.unified_addressing = flag(unified_addressing);
        out.memory_bus_width_bits = attribute(global_memory_bus_width);
        out.sm_clock_mhz = megahertz(clock_rate);
        out.memory_clock_mhz = megahertz(memory_clock_rate);
        if (const auto mode = attribute(compute_mode))
        {
            out.compute_mode = model::compute_mode_from_code(*mode);
        }
        out.ecc_enabled = flag(ecc_enabled);
        return out;
    }
}
