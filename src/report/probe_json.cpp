#include "report/probe_json.hpp"

#include <cmath>

namespace envcheck::report
{
    namespace
    {
        using ordered = nlohmann::ordered_json;

        template<class T>
        auto value(const std::optional<T>& item) -> ordered
        {
            return item ? ordered(*item) : ordered(nullptr);
        }

        auto number(const std::optional<double>& item) -> ordered
        {
            return item && std::isfinite(*item) ? ordered(*item) : ordered(nullptr);
        }

        auto text_or_null(const std::string& text) -> ordered
        {
            return text.empty() ? ordered(nullptr) : ordered(text);
        }

        auto version(const std::optional<model::CudaVersion>& item) -> ordered
        {
            return item ? ordered(item->to_string()) : ordered(nullptr);
        }

        auto capability(const std::optional<int>& major, const std::optional<int>& minor) -> ordered
        {
            if (!major || !minor)
            {
                return nullptr;
            }
            return std::to_string(*major) + "." + std::to_string(*minor);
        }

        auto mode(const std::optional<model::ComputeMode>& item) -> ordered
        {
            return item ? ordered(std::string(model::to_string(*item))) : ordered(nullptr);
        }

        auto failure(const model::ProbeFailure& item) -> ordered
        {
            if (!item.failed())
            {
                return nullptr;
            }
            return ordered{ { "timed_out", item.timed_out },
                            { "step", text_or_null(item.step) },
                            { "message", item.message } };
        }

        auto octal(const std::optional<unsigned>& item) -> ordered
        {
            if (!item)
            {
                return nullptr;
            }
            std::string text;
            for (int shift = 9; shift >= 0; shift -= 3)
            {
                text += static_cast<char>('0' + ((*item >> static_cast<unsigned>(shift)) & 7u));
            }
            return text;
        }

        auto libraries(const std::vector<model::LibraryFile>& items) -> ordered
        {
            ordered list = ordered::array();
            for (const auto& item : items)
            {
                list.push_back(library_json(item));
            }
            return list;
        }

        auto pci_device(const model::PciDevice& device) -> ordered
        {
            return ordered{
                { "address", device.address },
                { "vendor_id", model::hex_id(device.vendor_id, 4) },
                { "device_id", model::hex_id(device.device_id, 4) },
                { "class_code", model::hex_id(device.class_code, 6) },
                { "kind", device.is_gpu()        ? "gpu"
                          : device.is_nvswitch() ? "nvswitch"
                                                 : "other" },
                { "driver", value(device.driver) },
                { "current_link_speed", value(device.current_link_speed) },
                { "max_link_speed", value(device.max_link_speed) },
                { "current_link_width", value(device.current_link_width) },
                { "max_link_width", value(device.max_link_width) },
                { "numa_node", value(device.numa_node) },
            };
        }

        auto device_node(const model::DeviceNode& node) -> ordered
        {
            return ordered{
                { "path", node.path },
                { "exists", node.exists },
                { "character_device", node.character_device },
                { "mode", octal(node.mode) },
                { "uid", value(node.uid) },
                { "gid", value(node.gid) },
                { "accessible", value(node.accessible) },
                { "openable", value(node.openable) },
                { "open_error", text_or_null(node.open_error) },
            };
        }

        auto nvml_gpu(const model::NvmlGpu& gpu) -> ordered
        {
            ordered reasons = ordered::array();
            if (gpu.clock_event_reasons)
            {
                for (const auto& name : model::clock_event_reason_names(*gpu.clock_event_reasons))
                {
                    reasons.push_back(name);
                }
            }
            return ordered{
                { "index", gpu.index },
                { "name", gpu.name },
                { "uuid", gpu.uuid },
                { "pci_bus_id", gpu.pci_bus_id },
                { "brand", value(gpu.brand) },
                { "compute_capability",
                  capability(gpu.compute_capability_major, gpu.compute_capability_minor) },
                { "memory_total_bytes", value(gpu.memory_total_bytes) },
                { "memory_used_bytes", value(gpu.memory_used_bytes) },
                { "pcie",
                  { { "generation_current", value(gpu.pcie_generation_current) },
                    { "generation_max", value(gpu.pcie_generation_max) },
                    { "width_current", value(gpu.pcie_width_current) },
                    { "width_max", value(gpu.pcie_width_max) } } },
                { "clocks",
                  { { "sm_mhz", value(gpu.sm_clock_mhz) },
                    { "sm_max_mhz", value(gpu.sm_clock_max_mhz) },
                    { "memory_mhz", value(gpu.memory_clock_mhz) },
                    { "memory_max_mhz", value(gpu.memory_clock_max_mhz) },
                    { "event_reasons", value(gpu.clock_event_reasons) },
                    { "event_reason_names", reasons } } },
                { "ecc",
                  { { "enabled", value(gpu.ecc_enabled) },
                    { "pending", value(gpu.ecc_pending) },
                    { "corrected_volatile", value(gpu.ecc_corrected_volatile) },
                    { "uncorrected_volatile", value(gpu.ecc_uncorrected_volatile) },
                    { "corrected_aggregate", value(gpu.ecc_corrected_aggregate) },
                    { "uncorrected_aggregate", value(gpu.ecc_uncorrected_aggregate) } } },
                { "remapped_rows",
                  { { "correctable", value(gpu.remapped_rows_correctable) },
                    { "uncorrectable", value(gpu.remapped_rows_uncorrectable) },
                    { "pending", value(gpu.remapping_pending) },
                    { "failed", value(gpu.remapping_failed) } } },
                { "retired_pages",
                  { { "single_bit", value(gpu.retired_pages_single_bit) },
                    { "double_bit", value(gpu.retired_pages_double_bit) },
                    { "pending", value(gpu.retired_pages_pending) } } },
                { "nvlink",
                  { { "links", value(gpu.nvlink_links) }, { "down", gpu.nvlink_links_down } } },
                { "compute_mode", mode(gpu.compute_mode) },
                { "mig",
                  { { "enabled", value(gpu.mig_enabled) },
                    { "pending", value(gpu.mig_pending) },
                    { "devices", value(gpu.mig_devices) } } },
                { "persistence_mode", value(gpu.persistence_mode) },
                { "temperature_c", value(gpu.temperature_c) },
                { "power_w", number(gpu.power_w) },
                { "power_limit_w", number(gpu.power_limit_w) },
                { "compute_processes", value(gpu.compute_processes) },
                { "compute_process_ids", gpu.compute_process_ids },
                { "fabric_state", gpu.fabric_state
                                    ? ordered(std::string(model::to_string(*gpu.fabric_state)))
                                    : ordered(nullptr) },
                { "errors", gpu.errors },
            };
        }

        auto kernel_log(const model::KernelLogFacts& log) -> ordered
        {
            ordered xids = ordered::array();
            for (const auto& xid : log.xids)
            {
                xids.push_back(ordered{ { "pci_bus_id", xid.pci_bus_id },
                                        { "xid", xid.xid },
                                        { "message", xid.message } });
            }
            return ordered{ { "source", log.source },
                            { "readable", log.readable },
                            { "error", log.error },
                            { "xids", std::move(xids) },
                            { "truncated", log.truncated } };
        }

        auto cuda_device(const model::GpuDevice& device) -> ordered
        {
            return ordered{
                { "ordinal", device.index },
                { "name", device.name },
                { "uuid", text_or_null(device.uuid) },
                { "pci_bus_id", text_or_null(device.pci_bus_id) },
                { "compute_capability",
                  capability(device.compute_capability_major, device.compute_capability_minor) },
                { "memory_total_bytes", value(device.memory_bytes) },
                { "multiprocessors", value(device.multiprocessors) },
                { "shared_memory_per_block", value(device.shared_memory_per_block) },
                { "shared_memory_per_block_optin", value(device.shared_memory_per_block_optin) },
                { "shared_memory_per_multiprocessor",
                  value(device.shared_memory_per_multiprocessor) },
                { "reserved_shared_memory_per_block",
                  value(device.reserved_shared_memory_per_block) },
                { "registers_per_block", value(device.registers_per_block) },
                { "registers_per_multiprocessor", value(device.registers_per_multiprocessor) },
                { "l2_cache_bytes", value(device.l2_cache_bytes) },
                { "max_threads_per_block", value(device.max_threads_per_block) },
                { "max_threads_per_multiprocessor", value(device.max_threads_per_multiprocessor) },
                { "warp_size", value(device.warp_size) },
                { "concurrent_kernels", value(device.concurrent_kernels) },
                { "async_engine_count", value(device.async_engine_count) },
                { "unified_addressing", value(device.unified_addressing) },
                { "memory_bus_width_bits", value(device.memory_bus_width_bits) },
                { "clock_mhz", value(device.sm_clock_mhz) },
                { "memory_clock_mhz", value(device.memory_clock_mhz) },
                { "compute_mode", mode(device.compute_mode) },
                { "ecc_enabled", value(device.ecc_enabled) },
            };
        }

        auto optional_library(const std::optional<model::LibraryFile>& item) -> ordered
        {
            return item ? library_json(*item) : ordered(nullptr);
        }

        auto nvml(const model::NvmlFacts& facts) -> ordered
        {
            ordered gpus = ordered::array();
            for (const auto& gpu : facts.gpus)
            {
                gpus.push_back(nvml_gpu(gpu));
            }
            return ordered{
                { "attempted", facts.attempted },
                { "library", optional_library(facts.library) },
                { "load_error", text_or_null(facts.load_error) },
                { "init_result", value(facts.init_result) },
                { "init_result_name", facts.init_result
                                        ? ordered(model::nvml_error_name(*facts.init_result))
                                        : ordered(nullptr) },
                { "driver_version", value(facts.driver_version) },
                { "cuda_driver_version", version(facts.cuda_driver_version) },
                { "nvml_version", value(facts.nvml_version) },
                { "device_count", value(facts.device_count) },
                { "failure", failure(facts.failure) },
                { "gpus", gpus },
            };
        }

        auto cuda(const model::CudaDriverFacts& facts) -> ordered
        {
            ordered devices = ordered::array();
            for (const auto& device : facts.devices)
            {
                devices.push_back(cuda_device(device));
            }
            return ordered{
                { "attempted", facts.attempted },
                { "library", optional_library(facts.library) },
                { "load_error", text_or_null(facts.load_error) },
                { "driver_version", version(facts.driver_version) },
                { "init_result", value(facts.init_result) },
                { "init_result_name", facts.init_result
                                        ? ordered(model::cuda_error_name(*facts.init_result))
                                        : ordered(nullptr) },
                { "device_count", value(facts.device_count) },
                { "failure", failure(facts.failure) },
                { "devices", devices },
            };
        }
    }

    auto library_json(const model::LibraryFile& library) -> nlohmann::ordered_json
    {
        return ordered{
            { "name", library.name },
            { "path", library.path },
            { "real_path", library.real_path },
            { "found_via", library.found_via },
            { "version", value(library.version) },
            { "size_bytes", value(library.size_bytes) },
            { "stub", library.stub },
            { "compat", library.compat },
        };
    }

    auto probe_json(const model::MachineFacts& facts) -> nlohmann::ordered_json
    {
        ordered environment = ordered::array();
        for (const auto& variable : facts.environment)
        {
            environment.push_back({ { "name", variable.name },
                                    { "value", variable.value },
                                    { "redacted", variable.redacted } });
        }
        ordered pci_devices = ordered::array();
        for (const auto& device : facts.pci.devices)
        {
            pci_devices.push_back(pci_device(device));
        }
        ordered modules = ordered::array();
        for (const auto& module : facts.kernel.modules)
        {
            modules.push_back({ { "name", module.name },
                                { "loaded", module.loaded },
                                { "version", value(module.version) } });
        }
        ordered nodes = ordered::array();
        for (const auto& node : facts.device_nodes)
        {
            nodes.push_back(device_node(node));
        }
        ordered gpus = ordered::array();
        for (const auto& gpu : model::gpu_summaries(facts))
        {
            gpus.push_back({ { "index", gpu.index },
                             { "name", gpu.name },
                             { "uuid", text_or_null(gpu.uuid) },
                             { "pci_bus_id", text_or_null(gpu.pci_bus_id) },
                             { "compute_capability", value(gpu.compute_capability()) },
                             { "memory_total_bytes", value(gpu.memory_total_bytes) } });
        }
        return ordered{
            { "schema_version", probe_schema_version },
            { "root", facts.root },
            { "live", facts.live },
            { "hostname", text_or_null(facts.hostname) },
            { "summary",
              { { "driver_version", value(model::driver_version(facts)) },
                { "driver_cuda_version", version(model::driver_cuda_version(facts)) },
                { "gpus", gpus } } },
            { "os",
              { { "pretty_name", text_or_null(facts.os.pretty_name) },
                { "id", text_or_null(facts.os.id) },
                { "version_id", text_or_null(facts.os.version_id) },
                { "kernel_release", text_or_null(facts.os.kernel_release) },
                { "architecture", text_or_null(facts.os.architecture) },
                { "glibc_version", value(facts.os.glibc_version) },
                { "wsl", facts.os.wsl() },
                { "wsl_markers", facts.os.wsl_markers } } },
            { "cpu",
              { { "model", text_or_null(facts.cpu.model) },
                { "logical_cpus", value(facts.cpu.logical_cpus) } } },
            { "container",
              { { "detected", facts.container.detected() },
                { "markers", facts.container.markers } } },
            { "environment", environment },
            { "pci", { { "sysfs_visible", facts.pci.sysfs_visible }, { "devices", pci_devices } } },
            { "kernel_driver",
              { { "version", value(facts.kernel.version) },
                { "version_source", text_or_null(facts.kernel.version_source) },
                { "nvrm_line", value(facts.kernel.nvrm_line) },
                { "modules", modules },
                { "proc_gpus", facts.kernel.proc_gpus } } },
            { "device_nodes", nodes },
            { "libraries",
              { { "search_dirs", facts.libraries.search_dirs },
                { "libcuda", libraries(facts.libraries.libcuda) },
                { "libnvidia_ml", libraries(facts.libraries.libnvidia_ml) } } },
            { "nvml", nvml(facts.nvml) },
            { "cuda_driver", cuda(facts.cuda) },
            { "runtime",
              { { "cuda_enabled", facts.runtime.cuda_enabled },
                { "cuda_runtime_version", version(facts.runtime.runtime) },
                { "sass_architectures", facts.runtime.sass_architectures },
                { "ptx_architectures", facts.runtime.ptx_architectures } } },
            { "kernel_log", kernel_log(facts.kernel_log) },
            { "gpu_daemons", facts.processes },
        };
    }

    auto render_probe_json(const model::MachineFacts& facts) -> std::string
    {
        return probe_json(facts).dump(2, ' ', false,
                                      nlohmann::ordered_json::error_handler_t::replace) +
               "\n";
    }
}
