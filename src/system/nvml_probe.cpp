// The NVML child of driver_probe.hpp. The function types are declared from the documented
// signatures (nvml.h of NVML API 13; gpu-anchors.md §5.1): envcheck builds without the header.
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <limits>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "driver/dl.hpp"
#include "fsio/files.hpp"
#include "system/driver_children.hpp"
#include "system/library_search.hpp"
#include "system/system_root.hpp"
#include "wire/events.hpp"

namespace envcheck::system
{
    namespace
    {
        // A process in exit (PF_EXITING in the flags of /proc/<pid>/stat) is leaving its GPU,
        // not computing on it: such as the probe child of an envcheck run a moment ago, whose
        // context the driver is still tearing down (fsio's ChildEnd::released). A process this
        // /proc does not show (another PID namespace) counts as computing.
        auto exiting(unsigned pid) -> bool
        {
            constexpr unsigned long pf_exiting = 0x4;
            const auto stat = fsio::read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
            if (!stat)
            {
                return false;
            }
            const auto close = stat->rfind(')');
            if (close == std::string::npos)
            {
                return false;
            }
            // After the command: state ppid pgrp session tty_nr tpgid flags ...
            std::string_view rest = std::string_view(*stat).substr(close + 1);
            for (int field = 0; field < 7; ++field)
            {
                const auto start = rest.find_first_not_of(' ');
                if (start == std::string_view::npos)
                {
                    return false;
                }
                rest.remove_prefix(start);
                const auto end = std::min(rest.find(' '), rest.size());
                if (field == 6)
                {
                    unsigned long flags = 0;
                    const auto parsed = std::from_chars(rest.data(), rest.data() + end, flags);
                    return parsed.ec == std::errc{} && (flags & pf_exiting) != 0;
                }
                rest.remove_prefix(end);
            }
            return false;
        }

        // nvml.h (NVML API 13), declared from the documented signatures.
        using Return = int; // nvmlReturn_t
        struct DeviceHandle;
        using Device = DeviceHandle*; // nvmlDevice_t

        constexpr Return nvml_success = 0;
        constexpr Return nvml_not_supported = 3;
        constexpr Return nvml_not_found = 6;
        constexpr Return nvml_insufficient_size = 7;
        constexpr Return nvml_function_not_found = 13;

        struct PciInfo // nvmlPciInfo_t, as filled by nvmlDeviceGetPciInfo_v3
        {
            char bus_id_legacy[16];
            unsigned domain;
            unsigned bus;
            unsigned device;
            unsigned pci_device_id;
            unsigned pci_subsystem_id;
            char bus_id[32];
        };

        struct Memory // nvmlMemory_t
        {
            unsigned long long total;
            unsigned long long free;
            unsigned long long used;
        };

        struct FabricInfo // nvmlGpuFabricInfo_t (v1)
        {
            unsigned char cluster_uuid[16];
            Return status;
            unsigned clique_id;
            unsigned char state;
        };

        struct ProcessInfo // nvmlProcessInfo_t (v2, as ..._v3 fills it)
        {
            unsigned pid;
            unsigned long long used_gpu_memory;
            unsigned gpu_instance_id;
            unsigned compute_instance_id;
        };

        constexpr unsigned nvlink_max_links = 18;  // NVML_NVLINK_MAX_LINKS
        constexpr unsigned max_process_ids = 256;  // the PIDs described per GPU
        constexpr int retirement_multiple_sbe = 0; // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_...
        constexpr int retirement_double_bit = 1;   // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_...
        constexpr int clock_sm = 1;                // NVML_CLOCK_SM
        constexpr int clock_memory = 2;            // NVML_CLOCK_MEM
        constexpr int errors_corrected = 0;        // NVML_MEMORY_ERROR_TYPE_CORRECTED
        constexpr int errors_uncorrected = 1;
        constexpr int counter_volatile = 0; // NVML_VOLATILE_ECC
        constexpr int counter_aggregate = 1;
        constexpr int temperature_gpu = 0; // NVML_TEMPERATURE_GPU

        using InitFn = Return (*)();
        using StringFn = Return (*)(char*, unsigned);
        using IntFn = Return (*)(int*);
        using UnsignedFn = Return (*)(unsigned*);
        using HandleByIndexFn = Return (*)(unsigned, Device*);
        using DeviceStringFn = Return (*)(Device, char*, unsigned);
        using DeviceUnsignedFn = Return (*)(Device, unsigned*);
        using DeviceIntFn = Return (*)(Device, int*);
        using DeviceIntPairFn = Return (*)(Device, int*, int*);
        using DeviceUnsignedPairFn = Return (*)(Device, unsigned*, unsigned*);
        using DevicePciFn = Return (*)(Device, PciInfo*);
        using DeviceMemoryFn = Return (*)(Device, Memory*);
        using DeviceClockFn = Return (*)(Device, int, unsigned*);
        using DeviceU64Fn = Return (*)(Device, unsigned long long*);
        using DeviceEccFn = Return (*)(Device, int, int, unsigned long long*);
        using DeviceRowsFn = Return (*)(Device, unsigned*, unsigned*, unsigned*, unsigned*);
        using DeviceMigHandleFn = Return (*)(Device, unsigned, Device*);
        using DeviceFabricFn = Return (*)(Device, FabricInfo*);
        using DeviceRetiredPagesFn = Return (*)(Device, int, unsigned*, unsigned long long*);
        using DeviceLinkStateFn = Return (*)(Device, unsigned, int*);
        using DeviceProcessInfoFn = Return (*)(Device, unsigned*, ProcessInfo*);

        class Nvml
        {
        public:
            explicit Nvml(void* handle)
              : m_handle(handle)
            {
            }

            template<class Function>
            auto get(const char* name) const -> Function
            {
                return driver::symbol<Function>(m_handle, name);
            }

        private:
            void* m_handle;
        };

        // Records a failed query, other than "not supported" or "absent from this driver".
        void note(model::NvmlGpu& gpu, const char* call, Return result)
        {
            if (result != nvml_success && result != nvml_not_supported &&
                result != nvml_function_not_found)
            {
                gpu.errors.push_back(std::string(call) + ": " + model::nvml_error_name(result));
            }
        }

        template<class Function, class... Args>
        auto call(const Nvml& nvml, model::NvmlGpu& gpu, const char* name, Args... args) -> bool
        {
            const auto function = nvml.get<Function>(name);
            if (function == nullptr)
            {
                return false;
            }
            const Return result = function(args...);
            note(gpu, name, result);
            return result == nvml_success;
        }

        auto as_int(unsigned value) -> int
        {
            return static_cast<int>(value);
        }

        // Name, UUID, PCI address, brand, compute capability.
        void query_identity(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            char text[256] = {};
            if (call<DeviceStringFn>(nvml, gpu, "nvmlDeviceGetName", device, text,
                                     unsigned{ sizeof(text) }))
            {
                gpu.name = driver::text_from(text);
            }
            if (call<DeviceStringFn>(nvml, gpu, "nvmlDeviceGetUUID", device, text,
                                     unsigned{ sizeof(text) }))
            {
                gpu.uuid = driver::text_from(text);
            }
            PciInfo pci{};
            if (call<DevicePciFn>(nvml, gpu, "nvmlDeviceGetPciInfo_v3", device, &pci))
            {
                gpu.pci_bus_id = driver::text_from(pci.bus_id);
            }
            int first = 0;
            int second = 0;
            if (call<DeviceIntFn>(nvml, gpu, "nvmlDeviceGetBrand", device, &first))
            {
                gpu.brand = first;
            }
            if (call<DeviceIntPairFn>(nvml, gpu, "nvmlDeviceGetCudaComputeCapability", device,
                                      &first, &second))
            {
                gpu.compute_capability_major = first;
                gpu.compute_capability_minor = second;
            }
        }

        // Memory, PCIe links, clocks and why they are held down.
        void query_memory_links_clocks(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            Memory memory{};
            if (call<DeviceMemoryFn>(nvml, gpu, "nvmlDeviceGetMemoryInfo", device, &memory))
            {
                gpu.memory_total_bytes = memory.total;
                gpu.memory_used_bytes = memory.used;
            }
            unsigned value = 0;
            const auto read_unsigned = [&](const char* name, std::optional<int>& out)
            {
                if (call<DeviceUnsignedFn>(nvml, gpu, name, device, &value))
                {
                    out = as_int(value);
                }
            };
            read_unsigned("nvmlDeviceGetCurrPcieLinkGeneration", gpu.pcie_generation_current);
            read_unsigned("nvmlDeviceGetMaxPcieLinkGeneration", gpu.pcie_generation_max);
            read_unsigned("nvmlDeviceGetCurrPcieLinkWidth", gpu.pcie_width_current);
            read_unsigned("nvmlDeviceGetMaxPcieLinkWidth", gpu.pcie_width_max);
            const auto read_clock = [&](const char* name, int type, std::optional<int>& out)
            {
                if (call<DeviceClockFn>(nvml, gpu, name, device, type, &value))
                {
                    out = as_int(value);
                }
            };
            read_clock("nvmlDeviceGetClockInfo", clock_sm, gpu.sm_clock_mhz);
            read_clock("nvmlDeviceGetMaxClockInfo", clock_sm, gpu.sm_clock_max_mhz);
            read_clock("nvmlDeviceGetClockInfo", clock_memory, gpu.memory_clock_mhz);
            read_clock("nvmlDeviceGetMaxClockInfo", clock_memory, gpu.memory_clock_max_mhz);
            unsigned long long reasons = 0;
            // ...ClocksEventReasons since driver 535; ...ThrottleReasons before (same bits).
            if (nvml.get<DeviceU64Fn>("nvmlDeviceGetCurrentClocksEventReasons") != nullptr)
            {
                if (call<DeviceU64Fn>(nvml, gpu, "nvmlDeviceGetCurrentClocksEventReasons", device,
                                      &reasons))
                {
                    gpu.clock_event_reasons = reasons;
                }
            }
            else if (call<DeviceU64Fn>(nvml, gpu, "nvmlDeviceGetCurrentClocksThrottleReasons",
                                       device, &reasons))
            {
                gpu.clock_event_reasons = reasons;
            }
        }

        // ECC mode, its error counters, and remapped rows.
        void query_ecc(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            int first = 0;
            int second = 0;
            if (call<DeviceIntPairFn>(nvml, gpu, "nvmlDeviceGetEccMode", device, &first, &second))
            {
                gpu.ecc_enabled = first != 0;
                gpu.ecc_pending = second != 0;
            }
            if (gpu.ecc_enabled.value_or(false))
            {
                const auto read_ecc = [&](int type, int counter, std::optional<std::uint64_t>& out)
                {
                    unsigned long long count = 0;
                    if (call<DeviceEccFn>(nvml, gpu, "nvmlDeviceGetTotalEccErrors", device, type,
                                          counter, &count))
                    {
                        out = count;
                    }
                };
                read_ecc(errors_corrected, counter_volatile, gpu.ecc_corrected_volatile);
                read_ecc(errors_uncorrected, counter_volatile, gpu.ecc_uncorrected_volatile);
                read_ecc(errors_corrected, counter_aggregate, gpu.ecc_corrected_aggregate);
                read_ecc(errors_uncorrected, counter_aggregate, gpu.ecc_uncorrected_aggregate);
            }
            std::array<unsigned, 4> rows{};
            if (call<DeviceRowsFn>(nvml, gpu, "nvmlDeviceGetRemappedRows", device, &rows[0],
                                   &rows[1], &rows[2], &rows[3]))
            {
                gpu.remapped_rows_correctable = as_int(rows[0]);
                gpu.remapped_rows_uncorrectable = as_int(rows[1]);
                gpu.remapping_pending = rows[2] != 0;
                gpu.remapping_failed = rows[3] != 0;
            }
            // Page retirement (before Ampere): with no buffer NVML reports the count.
            const auto retired = [&](int cause, std::optional<int>& out)
            {
                const auto function = nvml.get<DeviceRetiredPagesFn>("nvmlDeviceGetRetiredPages");
                if (function == nullptr)
                {
                    return;
                }
                unsigned count = 0;
                const Return result = function(device, cause, &count, nullptr);
                if (result == nvml_success || result == nvml_insufficient_size)
                {
                    out = as_int(std::min<unsigned>(count, 1u << 30));
                }
                else
                {
                    note(gpu, "nvmlDeviceGetRetiredPages", result);
                }
            };
            retired(retirement_multiple_sbe, gpu.retired_pages_single_bit);
            retired(retirement_double_bit, gpu.retired_pages_double_bit);
            if (call<DeviceIntFn>(nvml, gpu, "nvmlDeviceGetRetiredPagesPendingStatus", device,
                                  &first))
            {
                gpu.retired_pages_pending = first != 0;
            }
        }

        // NVLink: the state of every link NVML knows; "not supported" for all of them means
        // the GPU has no NVLink.
        void query_nvlink(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            const auto state = nvml.get<DeviceLinkStateFn>("nvmlDeviceGetNvLinkState");
            if (state == nullptr)
            {
                return;
            }
            int links = 0;
            for (unsigned link = 0; link < nvlink_max_links; ++link)
            {
                int active = 0;
                const Return result = state(device, link, &active);
                if (result == nvml_success)
                {
                    ++links;
                    if (active == 0)
                    {
                        gpu.nvlink_links_down.push_back(as_int(link));
                    }
                }
                else if (result != nvml_not_supported && result != 2 /* INVALID_ARGUMENT */)
                {
                    note(gpu, "nvmlDeviceGetNvLinkState", result);
                }
            }
            gpu.nvlink_links = links;
        }

        // Compute mode and MIG (with the MIG devices that exist).
        void query_modes(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            int first = 0;
            if (call<DeviceIntFn>(nvml, gpu, "nvmlDeviceGetComputeMode", device, &first))
            {
                gpu.compute_mode = model::compute_mode_from_code(first);
            }
            unsigned current = 0;
            unsigned pending = 0;
            if (call<DeviceUnsignedPairFn>(nvml, gpu, "nvmlDeviceGetMigMode", device, &current,
                                           &pending))
            {
                gpu.mig_enabled = current != 0;
                gpu.mig_pending = pending != 0;
            }
            if (gpu.mig_enabled.value_or(false))
            {
                unsigned slots = 0;
                const auto handle_at =
                  nvml.get<DeviceMigHandleFn>("nvmlDeviceGetMigDeviceHandleByIndex");
                if (handle_at != nullptr &&
                    call<DeviceUnsignedFn>(nvml, gpu, "nvmlDeviceGetMaxMigDeviceCount", device,
                                           &slots))
                {
                    int existing = 0;
                    for (unsigned slot = 0; slot < slots; ++slot)
                    {
                        Device mig = nullptr;
                        const Return result = handle_at(device, slot, &mig);
                        existing += result == nvml_success ? 1 : 0;
                        if (result != nvml_success && result != nvml_not_found)
                        {
                            note(gpu, "nvmlDeviceGetMigDeviceHandleByIndex", result);
                        }
                    }
                    gpu.mig_devices = existing;
                }
            }
        }

        // Persistence, temperature, power, compute processes, fabric state.
        void query_power_and_load(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            int first = 0;
            unsigned value = 0;
            if (call<DeviceIntFn>(nvml, gpu, "nvmlDeviceGetPersistenceMode", device, &first))
            {
                gpu.persistence_mode = first != 0;
            }
            if (call<DeviceClockFn>(nvml, gpu, "nvmlDeviceGetTemperature", device, temperature_gpu,
                                    &value))
            {
                gpu.temperature_c = as_int(value);
            }
            if (call<DeviceUnsignedFn>(nvml, gpu, "nvmlDeviceGetPowerUsage", device, &value))
            {
                gpu.power_w = value / 1000.0;
            }
            if (call<DeviceUnsignedFn>(nvml, gpu, "nvmlDeviceGetEnforcedPowerLimit", device,
                                       &value))
            {
                gpu.power_limit_w = value / 1000.0;
            }
            // With no buffer NVML reports the count: SUCCESS for none, INSUFFICIENT_SIZE else;
            // then the PIDs, into a buffer with room for processes that started in between.
            if (const auto processes =
                  nvml.get<DeviceProcessInfoFn>("nvmlDeviceGetComputeRunningProcesses_v3"))
            {
                unsigned count = 0;
                const Return result = processes(device, &count, nullptr);
                if (result == nvml_success || result == nvml_insufficient_size)
                {
                    gpu.compute_processes = as_int(std::min<unsigned>(count, 1u << 30));
                }
                else
                {
                    note(gpu, "nvmlDeviceGetComputeRunningProcesses_v3", result);
                }
                if (count > 0)
                {
                    std::vector<ProcessInfo> infos(std::min(count + 8, max_process_ids));
                    unsigned room = static_cast<unsigned>(infos.size());
                    if (processes(device, &room, infos.data()) == nvml_success)
                    {
                        for (std::size_t i = 0; i < std::min<std::size_t>(room, infos.size()); ++i)
                        {
                            if (exiting(infos[i].pid))
                            {
                                continue;
                            }
                            gpu.compute_process_ids.push_back(infos[i].pid);
                        }
                        gpu.compute_processes = static_cast<int>(gpu.compute_process_ids.size());
                    }
                }
            }
            FabricInfo fabric{};
            if (call<DeviceFabricFn>(nvml, gpu, "nvmlDeviceGetGpuFabricInfo", device, &fabric) &&
                fabric.state <= 3)
            {
                gpu.fabric_state = static_cast<model::FabricState>(fabric.state);
            }
        }

        void query_gpu(const Nvml& nvml, Device device, model::NvmlGpu& gpu)
        {
            query_identity(nvml, device, gpu);
            query_memory_links_clocks(nvml, device, gpu);
            query_ecc(nvml, device, gpu);
            query_nvlink(nvml, device, gpu);
            query_modes(nvml, device, gpu);
            query_power_and_load(nvml, device, gpu);
        }

        void say(fsio::LineWriter& out, const wire::Event& event)
        {
            out.write_line(wire::encode(event));
        }

        void step(fsio::LineWriter& out, std::string text)
        {
            say(out, wire::StepEvent{ std::move(text) });
        }

        // The findings, then the end of the answer. No nvmlShutdown: the process _exits right
        // after, and a shutdown that hung would only hold the probe to its deadline.
        auto finish(fsio::LineWriter& out, const wire::NvmlProbe& probe) -> int
        {
            say(out, wire::NvmlEvent{ probe });
            say(out, wire::FinishEvent{});
            return 0;
        }
    }

    auto nvml_child(const std::vector<std::string>& nodes, fsio::LineWriter& out) -> int
    {
        wire::NvmlProbe probe;
        for (const auto& path : nodes)
        {
            step(out, "open " + path);
            const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
            probe.opens.push_back(
              { path, fd >= 0, fd >= 0 ? std::string{} : fsio::describe_errno(errno) });
            if (fd >= 0)
            {
                ::close(fd);
            }
        }
        auto& facts = probe.facts;
        step(out, "dlopen " + std::string(driver::libnvidia_ml_name));
        std::string error;
        void* handle = driver::open_library(std::string(driver::libnvidia_ml_name).c_str(), error);
        if (handle == nullptr)
        {
            facts.load_error = error;
            return finish(out, probe);
        }
        facts.library = describe_library(SystemRoot("/"), driver::libnvidia_ml_name,
                                         driver::loaded_path(handle), "dlopen");
        const Nvml nvml(handle);
        const auto init = nvml.get<InitFn>("nvmlInit_v2");
        if (init == nullptr)
        {
            facts.load_error = "nvmlInit_v2 not found in " + facts.library->real_path;
            return finish(out, probe);
        }
        // Loaded: if nvmlInit hangs, the parent still knows which library it was.
        say(out, wire::NvmlEvent{ probe });
        step(out, "nvmlInit_v2");
        facts.init_result = init();
        if (*facts.init_result != nvml_success)
        {
            return finish(out, probe);
        }
        char text[256] = {};
        step(out, "nvmlSystemGetDriverVersion");
        if (const auto get = nvml.get<StringFn>("nvmlSystemGetDriverVersion");
            get && get(text, sizeof(text)) == 0)
        {
            facts.driver_version = driver::text_from(text);
        }
        if (const auto get = nvml.get<StringFn>("nvmlSystemGetNVMLVersion");
            get && get(text, sizeof(text)) == 0)
        {
            facts.nvml_version = driver::text_from(text);
        }
        int encoded = 0;
        if (const auto get = nvml.get<IntFn>("nvmlSystemGetCudaDriverVersion_v2");
            get && get(&encoded) == 0)
        {
            facts.cuda_driver_version = model::decode_cuda_version(encoded);
        }
        unsigned count = 0;
        const auto get_count = nvml.get<UnsignedFn>("nvmlDeviceGetCount_v2");
        const auto handle_at = nvml.get<HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2");
        say(out, wire::NvmlEvent{ probe });
        step(out, "nvmlDeviceGetCount_v2");
        if (get_count != nullptr && handle_at != nullptr && get_count(&count) == 0)
        {
            // A driver claiming more GPUs than exist (INT_MAX) gets its first ones queried.
            facts.device_count = static_cast<int>(
              std::min<unsigned>(count, static_cast<unsigned>(std::numeric_limits<int>::max())));
            const unsigned queried = std::min(count, static_cast<unsigned>(wire::max_devices));
            for (unsigned index = 0; index < queried; ++index)
            {
                model::NvmlGpu gpu;
                gpu.index = static_cast<int>(index);
                Device device = nullptr;
                step(out, "NVML queries of GPU " + std::to_string(index));
                const Return result = handle_at(index, &device);
                if (result == nvml_success)
                {
                    query_gpu(nvml, device, gpu);
                }
                else
                {
                    note(gpu, "nvmlDeviceGetHandleByIndex_v2", result);
                }
                facts.gpus.push_back(std::move(gpu));
            }
        }
        return finish(out, probe);
    }
}
