// The CUDA driver API half of driver_probe.hpp.
#include <array>
#include <cstdio>

#include "system/child.hpp"
#include "system/dl.hpp"
#include "system/driver_probe.hpp"
#include "system/library_search.hpp"

namespace envcheck::system
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

        void query_device(void* handle, Device device, model::CudaDevice& out)
        {
            char text[256] = {};
            if (const auto name = symbol<NameFn>(handle, "cuDeviceGetName");
                name && name(text, sizeof(text), device) == 0)
            {
                out.name = text;
            }
            std::size_t bytes = 0;
            if (const auto total = symbol<TotalMemFn>(handle, "cuDeviceTotalMem_v2");
                total && total(&bytes, device) == 0)
            {
                out.memory_total_bytes = bytes;
            }
            auto uuid_fn = symbol<UuidFn>(handle, "cuDeviceGetUuid_v2");
            if (uuid_fn == nullptr)
            {
                uuid_fn = symbol<UuidFn>(handle, "cuDeviceGetUuid");
            }
            Uuid uuid{};
            if (uuid_fn != nullptr && uuid_fn(&uuid, device) == 0)
            {
                out.uuid = format_uuid(uuid);
            }
            if (const auto bus_id = symbol<NameFn>(handle, "cuDeviceGetPCIBusId");
                bus_id && bus_id(text, sizeof(text), device) == 0)
            {
                out.pci_bus_id = text;
            }
            const auto attribute_fn = symbol<AttributeFn>(handle, "cuDeviceGetAttribute");
            if (attribute_fn == nullptr)
            {
                return;
            }
            const auto attribute = [&](Attribute id) -> std::optional<int>
            {
                int value = 0;
                return attribute_fn(&value, id, device) == 0 ? std::optional<int>(value)
                                                             : std::nullopt;
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
            out.l2_cache_bytes = attribute(l2_cache_size);
            out.max_threads_per_block = attribute(max_threads_per_block);
            out.max_threads_per_multiprocessor = attribute(max_threads_per_multiprocessor);
            out.warp_size = attribute(warp_size);
            out.concurrent_kernels = flag(concurrent_kernels);
            out.async_engine_count = attribute(async_engine_count);
            out.unified_addressing = flag(unified_addressing);
            out.memory_bus_width_bits = attribute(global_memory_bus_width);
            out.clock_mhz = megahertz(clock_rate);
            out.memory_clock_mhz = megahertz(memory_clock_rate);
            if (const auto mode = attribute(compute_mode))
            {
                out.compute_mode = model::compute_mode_from_code(*mode);
            }
            out.ecc_enabled = flag(ecc_enabled);
        }

        auto cuda_child(const LineWriter& write_line) -> int
        {
            model::CudaDriverFacts facts;
            write_line(encode_step("dlopen " + std::string(libcuda_name)));
            void* handle = ::dlopen(std::string(libcuda_name).c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle == nullptr)
            {
                facts.load_error = last_dl_error();
                write_line(encode_cuda(facts));
                return 0;
            }
            facts.library = loaded_library(handle, libcuda_name);
            // cuDriverGetVersion needs no cuInit: it answers even when init would fail.
            int encoded = 0;
            if (const auto version = symbol<IntOutFn>(handle, "cuDriverGetVersion");
                version && version(&encoded) == 0)
            {
                facts.driver_version = model::decode_cuda_version(encoded);
            }
            const auto init = symbol<InitFn>(handle, "cuInit");
            if (init == nullptr)
            {
                facts.load_error = "cuInit not found in " + facts.library->real_path;
                write_line(encode_cuda(facts));
                return 0;
            }
            write_line(encode_step("cuInit"));
            facts.init_result = init(0);
            if (*facts.init_result != 0)
            {
                write_line(encode_cuda(facts));
                return 0;
            }
            int count = 0;
            const auto get_count = symbol<IntOutFn>(handle, "cuDeviceGetCount");
            const auto get_device = symbol<DeviceGetFn>(handle, "cuDeviceGet");
            write_line(encode_step("cuDeviceGetCount"));
            if (get_count != nullptr && get_device != nullptr && get_count(&count) == 0)
            {
                facts.device_count = count;
                for (int ordinal = 0; ordinal < count; ++ordinal)
                {
                    model::CudaDevice device;
                    device.ordinal = ordinal;
                    Device handle_device = 0;
                    write_line(encode_step("CUDA queries of device " + std::to_string(ordinal)));
                    if (get_device(&handle_device, ordinal) == 0)
                    {
                        query_device(handle, handle_device, device);
                    }
                    facts.devices.push_back(std::move(device));
                }
            }
            write_line(encode_cuda(facts));
            return 0;
        }
    }

    auto probe_cuda_driver(std::chrono::milliseconds timeout) -> model::CudaDriverFacts
    {
        const auto child = run_in_child(
          [](const LineWriter& write_line) { return cuda_child(write_line); }, timeout);
        auto report = read_child_report<model::CudaDriverFacts>(child.lines, decode_cuda);
        model::CudaDriverFacts facts = report.findings.value_or(model::CudaDriverFacts{});
        facts.attempted = true;
        if (!report.findings)
        {
            facts.failure.timed_out = child.timed_out;
            facts.failure.step = report.step;
            facts.failure.message = "the CUDA driver probe " + child.describe(timeout) +
                                    (report.step.empty() ? "" : " in " + report.step);
        }
        return facts;
    }
}
