#include "model/machine.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace envcheck::model
{
    namespace
    {
        constexpr std::array<std::pair<FabricState, std::string_view>, 4> fabric_state_names{ {
          { FabricState::not_supported, "not_supported" },
          { FabricState::not_started, "not_started" },
          { FabricState::in_progress, "in_progress" },
          { FabricState::completed, "completed" },
        } };

        // nvml.h nvmlClocksEventReasons (gpu-anchors.md §5.1), and the two later bits.
        constexpr std::array<std::pair<std::uint64_t, std::string_view>, 9> clock_event_bits{ {
          { 0x1, "gpu_idle" },
          { 0x2, "applications_clocks_setting" },
          { 0x4, "sw_power_cap" },
          { 0x8, "hw_slowdown" },
          { 0x10, "sync_boost" },
          { 0x20, "sw_thermal_slowdown" },
          { 0x40, "hw_thermal_slowdown" },
          { 0x80, "hw_power_brake_slowdown" },
          { 0x100, "display_clock_setting" },
        } };

        // nvml.h nvmlReturn_t.
        constexpr std::array<std::pair<int, std::string_view>, 22> nvml_errors{ {
          { 0, "NVML_SUCCESS" },
          { 1, "NVML_ERROR_UNINITIALIZED" },
          { 2, "NVML_ERROR_INVALID_ARGUMENT" },
          { 3, "NVML_ERROR_NOT_SUPPORTED" },
          { 4, "NVML_ERROR_NO_PERMISSION" },
          { 5, "NVML_ERROR_ALREADY_INITIALIZED" },
          { 6, "NVML_ERROR_NOT_FOUND" },
          { 7, "NVML_ERROR_INSUFFICIENT_SIZE" },
          { 8, "NVML_ERROR_INSUFFICIENT_POWER" },
          { 9, "NVML_ERROR_DRIVER_NOT_LOADED" },
          { 10, "NVML_ERROR_TIMEOUT" },
          { 11, "NVML_ERROR_IRQ_ISSUE" },
          { 12, "NVML_ERROR_LIBRARY_NOT_FOUND" },
          { 13, "NVML_ERROR_FUNCTION_NOT_FOUND" },
          { 14, "NVML_ERROR_CORRUPTED_INFOROM" },
          { 15, "NVML_ERROR_GPU_IS_LOST" },
          { 16, "NVML_ERROR_RESET_REQUIRED" },
          { 17, "NVML_ERROR_OPERATING_SYSTEM" },
          { 18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH" },
          { 19, "NVML_ERROR_IN_USE" },
          { 20, "NVML_ERROR_MEMORY" },
          { 999, "NVML_ERROR_UNKNOWN" },
        } };

        // cuda.h CUresult: the codes cuInit, cuDriverGetVersion and device queries return.
        constexpr std::array<std::pair<int, std::string_view>, 18> cuda_errors{ {
          { 0, "CUDA_SUCCESS" },
          { 1, "CUDA_ERROR_INVALID_VALUE" },
          { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
          { 3, "CUDA_ERROR_NOT_INITIALIZED" },
          { 4, "CUDA_ERROR_DEINITIALIZED" },
          { 34, "CUDA_ERROR_STUB_LIBRARY" },
          { 36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER" },
          { 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" },
          { 100, "CUDA_ERROR_NO_DEVICE" },
          { 101, "CUDA_ERROR_INVALID_DEVICE" },
          { 102, "CUDA_ERROR_DEVICE_NOT_LICENSED" },
          { 304, "CUDA_ERROR_OPERATING_SYSTEM" },
          { 800, "CUDA_ERROR_NOT_PERMITTED" },
          { 801, "CUDA_ERROR_NOT_SUPPORTED" },
          { 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
          { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
          { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
          { 999, "CUDA_ERROR_UNKNOWN" },
        } };

        template<class Table, class Key>
        auto lookup(const Table& table, Key key) -> std::optional<std::string_view>
        {
            const auto* found = std::find_if(table.begin(), table.end(),
                                             [&](const auto& row) { return row.first == key; });
            return found == table.end() ? std::nullopt : std::optional(found->second);
        }

        template<class Table>
        auto reverse_lookup(const Table& table, std::string_view name)
          -> std::optional<typename Table::value_type::first_type>
        {
            const auto* found = std::find_if(table.begin(), table.end(),
                                             [&](const auto& row) { return row.second == name; });
            return found == table.end() ? std::nullopt : std::optional(found->first);
        }
    }

    auto PciFacts::gpu_count() const -> int
    {
        return static_cast<int>(std::count_if(devices.begin(), devices.end(),
                                              [](const PciDevice& d) { return d.is_gpu(); }));
    }

    auto PciFacts::has_nvswitch() const -> bool
    {
        return std::any_of(devices.begin(), devices.end(),
                           [](const PciDevice& d) { return d.is_nvswitch(); });
    }

    auto KernelDriverFacts::module(std::string_view name) const -> const KernelModule*
    {
        const auto found = std::find_if(modules.begin(), modules.end(),
                                        [&](const KernelModule& m) { return m.name == name; });
        return found == modules.end() ? nullptr : &*found;
    }

    auto KernelDriverFacts::loaded(std::string_view name) const -> bool
    {
        const auto* found = module(name);
        return found != nullptr && found->loaded;
    }

    auto MachineFacts::environment_value(std::string_view name) const -> std::optional<std::string>
    {
        const auto found =
          std::find_if(environment.begin(), environment.end(),
                       [&](const EnvironmentVariable& v) { return v.name == name; });
        return found == environment.end() ? std::nullopt : std::optional(found->value);
    }

    auto MachineFacts::device_node(std::string_view path) const -> const DeviceNode*
    {
        const auto found = std::find_if(device_nodes.begin(), device_nodes.end(),
                                        [&](const DeviceNode& n) { return n.path == path; });
        return found == device_nodes.end() ? nullptr : &*found;
    }

    auto MachineFacts::process_running(std::string_view name) const -> bool
    {
        return std::find(processes.begin(), processes.end(), name) != processes.end();
    }

    auto to_string(FabricState state) -> std::string_view
    {
        return lookup(fabric_state_names, state).value_or("unknown");
    }

    auto parse_fabric_state(std::string_view text) -> std::optional<FabricState>
    {
        return reverse_lookup(fabric_state_names, text);
    }

    auto driver_version(const MachineFacts& facts) -> std::optional<std::string>
    {
        if (facts.nvml.driver_version)
        {
            return facts.nvml.driver_version;
        }
        if (facts.kernel.version)
        {
            return facts.kernel.version;
        }
        // The first system libcuda (not a stub, not cuda-compat) names the installed driver.
        for (const auto& library : facts.libraries.libcuda)
        {
            if (!library.stub && !library.compat && library.version)
            {
                return library.version;
            }
        }
        return std::nullopt;
    }

    auto driver_cuda_version(const MachineFacts& facts) -> std::optional<CudaVersion>
    {
        return facts.cuda.driver_version ? facts.cuda.driver_version
                                         : facts.nvml.cuda_driver_version;
    }

    auto GpuSummary::compute_capability() const -> std::optional<std::string>
    {
        if (!compute_capability_major || !compute_capability_minor)
        {
            return std::nullopt;
        }
        return std::to_string(*compute_capability_major) + "." +
               std::to_string(*compute_capability_minor);
    }

    auto gpu_summaries(const MachineFacts& facts) -> std::vector<GpuSummary>
    {
        std::vector<GpuSummary> gpus;
        if (!facts.nvml.gpus.empty())
        {
            for (const auto& gpu : facts.nvml.gpus)
            {
                gpus.push_back({ gpu.index, gpu.name, gpu.uuid, gpu.pci_bus_id,
                                 gpu.compute_capability_major, gpu.compute_capability_minor,
                                 gpu.memory_total_bytes });
            }
            return gpus;
        }
        for (const auto& device : facts.cuda.devices)
        {
            gpus.push_back({ device.index, device.name, device.uuid, device.pci_bus_id,
                             device.compute_capability_major, device.compute_capability_minor,
                             device.memory_bytes });
        }
        return gpus;
    }

    auto clock_event_reason_names(std::uint64_t mask) -> std::vector<std::string>
    {
        std::vector<std::string> names;
        std::uint64_t known = 0;
        for (const auto& [bit, name] : clock_event_bits)
        {
            known |= bit;
            if ((mask & bit) != 0)
            {
                names.emplace_back(name);
            }
        }
        if (const auto unknown = mask & ~known; unknown != 0)
        {
            names.push_back(hex_id(unknown, 1));
        }
        return names;
    }

    auto nvml_error_name(int code) -> std::string
    {
        const auto name = lookup(nvml_errors, code);
        return name ? std::string(*name) : "NVML error " + std::to_string(code);
    }

    auto cuda_error_name(int code) -> std::string
    {
        const auto name = lookup(cuda_errors, code);
        return name ? std::string(*name) : "CUDA error " + std::to_string(code);
    }

    auto hex_id(std::uint64_t value, int digits) -> std::string
    {
        constexpr std::string_view hex = "0123456789abcdef";
        std::string out;
        do
        {
            out.insert(out.begin(), hex[value & 0xfu]);
            value >>= 4u;
        } while (value != 0);
        while (static_cast<int>(out.size()) < digits)
        {
            out.insert(out.begin(), '0');
        }
        return "0x" + out;
    }
}

namespace envcheck::model
{
    void add_xid_events(std::string_view text, KernelLogFacts& log)
    {
        constexpr std::string_view marker = "NVRM: Xid (PCI:";
        constexpr std::size_t max_message = 200;
        std::size_t start = 0;
        while (start < text.size())
        {
            auto end = text.find('\n', start);
            if (end == std::string_view::npos)
            {
                end = text.size();
            }
            const auto line = text.substr(start, end - start);
            start = end + 1;
            const auto at = line.find(marker);
            if (at == std::string_view::npos)
            {
                continue;
            }
            auto rest = line.substr(at + marker.size());
            const auto close = rest.find("):");
            if (close == std::string_view::npos || close == 0 || close > 32)
            {
                continue;
            }
            XidEvent event;
            event.pci_bus_id = std::string(rest.substr(0, close));
            rest.remove_prefix(close + 2);
            while (!rest.empty() && rest.front() == ' ')
            {
                rest.remove_prefix(1);
            }
            std::size_t digits = 0;
            int number = 0;
            while (digits < rest.size() && digits < 6 && rest[digits] >= '0' && rest[digits] <= '9')
            {
                number = number * 10 + (rest[digits] - '0');
                ++digits;
            }
            if (digits == 0)
            {
                continue;
            }
            event.xid = number;
            rest.remove_prefix(digits);
            if (!rest.empty() && rest.front() == ',')
            {
                rest.remove_prefix(1);
            }
            while (!rest.empty() && rest.front() == ' ')
            {
                rest.remove_prefix(1);
            }
            while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' '))
            {
                rest.remove_suffix(1);
            }
            // Printable ASCII only: the line goes into reports as it is.
            for (const char c : rest.substr(0, max_message))
            {
                event.message += (c >= ' ' && c <= '~') ? c : '?';
            }
            if (log.xids.size() >= max_xid_events)
            {
                log.truncated = true;
                continue;
            }
            log.xids.push_back(std::move(event));
        }
    }
}
