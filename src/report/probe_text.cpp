#include "report/probe_text.hpp"

#include <array>
#include <cmath>
#include <vector>

#include "util/strings.hpp"

namespace envcheck::report
{
    namespace
    {
        constexpr std::size_t label_width = 11;

        void line(std::string& out, std::string_view label, std::string_view text)
        {
            out += label;
            out.append(label.size() < label_width ? label_width - label.size() : 1, ' ');
            out += text;
            out += '\n';
        }

        template<class T>
        auto or_unknown(const std::optional<T>& item) -> std::string
        {
            if (!item)
            {
                return "?";
            }
            if constexpr (std::is_same_v<T, std::string>)
            {
                return *item;
            }
            else
            {
                return std::to_string(*item);
            }
        }

        auto count(std::optional<int> number, std::string_view one, std::string_view many)
          -> std::string
        {
            if (!number)
            {
                return "? " + std::string(many);
            }
            return std::to_string(*number) + " " + std::string(*number == 1 ? one : many);
        }

        auto list_or_none(const std::vector<std::string>& items) -> std::string
        {
            return items.empty() ? std::string("none") : util::join(items, " ");
        }

        // Long values (NVIDIA_REQUIRE_CUDA lists dozens of driver ranges) are cut in the text
        // form; the JSON form keeps them whole.
        auto shortened(const std::string& text) -> std::string
        {
            constexpr std::size_t limit = 100;
            return text.size() <= limit ? text : text.substr(0, limit) + "...";
        }

        auto yes_no(const std::optional<bool>& item) -> std::string
        {
            return item ? (*item ? "on" : "off") : "?";
        }

        auto watts(double value) -> std::string
        {
            return std::to_string(static_cast<long long>(std::lround(value)));
        }

        auto library_text(const model::LibraryFile& library) -> std::string
        {
            std::string text = library.path;
            if (library.real_path != library.path && !library.real_path.empty())
            {
                text += " -> " + library.real_path;
            }
            if (library.version)
            {
                text += " (" + *library.version + ")";
            }
            if (library.stub)
            {
                text += " [stub]";
            }
            if (library.compat)
            {
                text += " [cuda-compat]";
            }
            return text;
        }

        void libraries(std::string& out, std::string_view label, const model::LibrarySearch& search,
                       const std::vector<model::LibraryFile>& found)
        {
            if (found.empty())
            {
                line(out, label,
                     "not found in " + count(static_cast<int>(search.search_dirs.size()),
                                             "search directory", "search directories"));
                return;
            }
            for (std::size_t i = 0; i < found.size(); ++i)
            {
                line(out, i == 0 ? label : "",
                     library_text(found[i]) + " via " + found[i].found_via);
            }
        }

        auto nvml_gpu_text(const model::NvmlGpu& gpu) -> std::string
        {
            std::vector<std::string> parts{ gpu.name, gpu.uuid, gpu.pci_bus_id };
            if (gpu.compute_capability_major && gpu.compute_capability_minor)
            {
                parts.push_back("cc " + std::to_string(*gpu.compute_capability_major) + "." +
                                std::to_string(*gpu.compute_capability_minor));
            }
            if (gpu.memory_total_bytes)
            {
                parts.push_back(format_bytes(*gpu.memory_total_bytes) +
                                (gpu.memory_used_bytes
                                   ? " (" + format_bytes(*gpu.memory_used_bytes) + " used)"
                                   : ""));
            }
            parts.push_back("PCIe gen " + or_unknown(gpu.pcie_generation_current) + "/" +
                            or_unknown(gpu.pcie_generation_max) + " x" +
                            or_unknown(gpu.pcie_width_current) + "/" +
                            or_unknown(gpu.pcie_width_max));
            parts.push_back("SM " + or_unknown(gpu.sm_clock_mhz) + "/" +
                            or_unknown(gpu.sm_clock_max_mhz) + " MHz");
            parts.push_back("mem " + or_unknown(gpu.memory_clock_mhz) + "/" +
                            or_unknown(gpu.memory_clock_max_mhz) + " MHz");
            if (gpu.clock_event_reasons)
            {
                const auto names = model::clock_event_reason_names(*gpu.clock_event_reasons);
                parts.push_back("clock events: " +
                                (names.empty() ? std::string("none") : util::join(names, ",")));
            }
            std::string ecc = "ECC " + yes_no(gpu.ecc_enabled);
            if (gpu.ecc_uncorrected_volatile || gpu.ecc_corrected_volatile)
            {
                ecc += " (volatile " + or_unknown(gpu.ecc_corrected_volatile) + " corrected, " +
                       or_unknown(gpu.ecc_uncorrected_volatile) + " uncorrected)";
            }
            parts.push_back(ecc);
            if (gpu.remapped_rows_uncorrectable || gpu.remapping_failed)
            {
                parts.push_back(
                  "remapped rows " + or_unknown(gpu.remapped_rows_correctable) + "/" +
                  or_unknown(gpu.remapped_rows_uncorrectable) +
                  (gpu.remapping_failed.value_or(false) ? " (remapping failed)" : ""));
            }
            parts.push_back("mode " + (gpu.compute_mode
                                         ? std::string(model::to_string(*gpu.compute_mode))
                                         : "?"));
            parts.push_back("MIG " + yes_no(gpu.mig_enabled));
            parts.push_back("persistence " + yes_no(gpu.persistence_mode));
            if (gpu.temperature_c)
            {
                parts.push_back(std::to_string(*gpu.temperature_c) + " C");
            }
            if (gpu.power_w)
            {
                parts.push_back(watts(*gpu.power_w) +
                                (gpu.power_limit_w ? "/" + watts(*gpu.power_limit_w) : "") + " W");
            }
            if (gpu.compute_processes)
            {
                parts.push_back(count(gpu.compute_processes, "process", "processes"));
            }
            if (gpu.fabric_state)
            {
                parts.push_back("fabric " + std::string(model::to_string(*gpu.fabric_state)));
            }
            for (const auto& error : gpu.errors)
            {
                parts.push_back("error " + error);
            }
            return util::join(parts, " · ");
        }

        auto cuda_device_text(const model::GpuDevice& device) -> std::string
        {
            std::vector<std::string> parts{ device.name };
            if (device.compute_capability_major && device.compute_capability_minor)
            {
                parts.push_back("cc " + std::to_string(*device.compute_capability_major) + "." +
                                std::to_string(*device.compute_capability_minor));
            }
            if (device.memory_bytes)
            {
                parts.push_back(format_bytes(*device.memory_bytes));
            }
            parts.push_back(or_unknown(device.multiprocessors) + " SMs");
            const auto kib = [](const std::optional<int>& bytes)
            { return bytes ? format_bytes(static_cast<std::uint64_t>(*bytes)) : std::string("?"); };
            parts.push_back("shared " + kib(device.shared_memory_per_block) + "/block, " +
                            kib(device.shared_memory_per_block_optin) + " opt-in, " +
                            kib(device.shared_memory_per_multiprocessor) + "/SM, " +
                            kib(device.reserved_shared_memory_per_block) + " reserved");
            parts.push_back("regs " + or_unknown(device.registers_per_block) + "/block " +
                            or_unknown(device.registers_per_multiprocessor) + "/SM");
            parts.push_back("L2 " + (device.l2_cache_bytes ? format_bytes(*device.l2_cache_bytes)
                                                           : std::string("?")));
            parts.push_back("threads " + or_unknown(device.max_threads_per_block) + "/block " +
                            or_unknown(device.max_threads_per_multiprocessor) + "/SM");
            parts.push_back("warp " + or_unknown(device.warp_size));
            parts.push_back(or_unknown(device.memory_bus_width_bits) + "-bit bus");
            parts.push_back("clocks " + or_unknown(device.sm_clock_mhz) + "/" +
                            or_unknown(device.memory_clock_mhz) + " MHz");
            parts.push_back("copy engines " + or_unknown(device.async_engine_count));
            parts.push_back("concurrent kernels " + yes_no(device.concurrent_kernels));
            parts.push_back("UVA " + yes_no(device.unified_addressing));
            return util::join(parts, " · ");
        }

        void host_lines(std::string& out, const model::MachineFacts& facts)
        {
            std::vector<std::string> host;
            if (!facts.hostname.empty())
            {
                host.push_back(facts.hostname);
            }
            host.push_back(facts.os.pretty_name.empty() ? "unknown OS" : facts.os.pretty_name);
            host.push_back("kernel " + (facts.os.kernel_release.empty() ? std::string("?")
                                                                        : facts.os.kernel_release));
            host.push_back("glibc " + or_unknown(facts.os.glibc_version));
            if (!facts.os.architecture.empty())
            {
                host.push_back(facts.os.architecture);
            }
            line(out, "host", util::join(host, " · "));
            line(out, "cpu",
                 (facts.cpu.model.empty() ? std::string("?") : facts.cpu.model) +
                   (facts.cpu.logical_cpus
                      ? " · " + count(facts.cpu.logical_cpus, "logical CPU", "logical CPUs")
                      : ""));
            line(out, "container",
                 facts.container.detected()
                   ? "yes (" + util::join(facts.container.markers, "; ") + ")"
                   : "no");
            if (facts.os.wsl())
            {
                line(out, "wsl", util::join(facts.os.wsl_markers, "; "));
            }
        }

        void pci_lines(std::string& out, const model::MachineFacts& facts)
        {
            if (!facts.pci.sysfs_visible)
            {
                line(out, "pci", "/sys/bus/pci is not visible");
            }
            else if (facts.pci.devices.empty())
            {
                line(out, "pci", "no NVIDIA device");
            }
            for (std::size_t i = 0; i < facts.pci.devices.size(); ++i)
            {
                const auto& device = facts.pci.devices[i];
                std::string text = device.address +
                                   " 10de:" + model::hex_id(device.device_id, 4).substr(2) +
                                   " class " + model::hex_id(device.class_code, 6) + " driver " +
                                   device.driver.value_or("none");
                if (device.current_link_speed || device.current_link_width)
                {
                    text += " · link " + device.current_link_speed.value_or("?") + " x" +
                            or_unknown(device.current_link_width) + " (max " +
                            device.max_link_speed.value_or("?") + " x" +
                            or_unknown(device.max_link_width) + ")";
                }
                line(out, i == 0 ? "pci" : "", text);
            }
        }

        void kernel_line(std::string& out, const model::MachineFacts& facts)
        {
            std::vector<std::string> kernel;
            kernel.push_back(facts.kernel.version ? "nvidia " + *facts.kernel.version + " (" +
                                                      facts.kernel.version_source + ")"
                                                  : "no NVIDIA kernel module version");
            std::vector<std::string> loaded;
            for (const auto& module : facts.kernel.modules)
            {
                if (module.loaded)
                {
                    loaded.push_back(module.name);
                }
            }
            kernel.push_back("modules loaded: " +
                             (loaded.empty() ? std::string("none") : util::join(loaded, " ")));
            line(out, "kernel", util::join(kernel, " · "));
        }

        void device_nodes_line(std::string& out, const model::MachineFacts& facts)
        {
            std::vector<std::string> nodes;
            for (const auto& node : facts.device_nodes)
            {
                std::string text = node.path;
                if (!node.exists)
                {
                    text += " missing";
                }
                else if (node.accessible == false)
                {
                    text += " no access";
                }
                else if (node.openable == false)
                {
                    text += " open fails (" + node.open_error + ")";
                }
                nodes.push_back(text);
            }
            line(out, "devices", util::join(nodes, ", "));
        }

        void nvml_lines(std::string& out, const model::MachineFacts& facts)
        {
            const auto& nvml = facts.nvml;
            if (!nvml.attempted)
            {
                line(out, "nvml", "not loaded (--root)");
            }
            else if (nvml.failure.failed())
            {
                line(out, "nvml", nvml.failure.message);
            }
            else if (!nvml.library)
            {
                line(out, "nvml", "cannot load libnvidia-ml.so.1: " + nvml.load_error);
            }
            else
            {
                std::string text = nvml.library->real_path + " · init " +
                                   model::nvml_error_name(nvml.init_result.value_or(-1));
                if (nvml.initialized())
                {
                    text +=
                      " · driver " + or_unknown(nvml.driver_version) + " · CUDA " +
                      (nvml.cuda_driver_version ? nvml.cuda_driver_version->to_string() : "?") +
                      " · NVML " + or_unknown(nvml.nvml_version) + " · " +
                      count(nvml.device_count, "GPU", "GPUs");
                }
                line(out, "nvml", text);
                for (const auto& gpu : nvml.gpus)
                {
                    line(out, "  gpu " + std::to_string(gpu.index), nvml_gpu_text(gpu));
                }
            }
        }

        void cuda_lines(std::string& out, const model::MachineFacts& facts)
        {
            const auto& cuda = facts.cuda;
            if (!cuda.attempted)
            {
                line(out, "cuda", "not loaded (--root)");
            }
            else if (cuda.failure.failed())
            {
                line(out, "cuda", cuda.failure.message);
            }
            else if (!cuda.library)
            {
                line(out, "cuda", "cannot load libcuda.so.1: " + cuda.load_error);
            }
            else
            {
                std::string text = cuda.library->real_path + " · driver supports CUDA " +
                                   (cuda.driver_version ? cuda.driver_version->to_string() : "?");
                if (cuda.init_result)
                {
                    text += " · cuInit " + model::cuda_error_name(*cuda.init_result);
                }
                if (cuda.device_count)
                {
                    text += " · " + count(cuda.device_count, "device", "devices");
                }
                line(out, "cuda", text);
                for (const auto& device : cuda.devices)
                {
                    line(out, "  device " + std::to_string(device.index), cuda_device_text(device));
                }
            }
        }

        void runtime_lines(std::string& out, const model::MachineFacts& facts)
        {
            if (facts.runtime.cuda_enabled)
            {
                line(out, "runtime",
                     "envcheck carries CUDA runtime " +
                       (facts.runtime.runtime ? facts.runtime.runtime->to_string()
                                              : std::string("?")) +
                       " · SASS " + list_or_none(facts.runtime.sass_architectures) + " · PTX " +
                       list_or_none(facts.runtime.ptx_architectures));
            }
            else
            {
                line(out, "runtime", "envcheck was built without CUDA");
            }
            if (!facts.processes.empty())
            {
                line(out, "daemons", util::join(facts.processes, ", "));
            }
        }

        void environment_lines(std::string& out, const model::MachineFacts& facts)
        {
            std::vector<std::string> variables;
            for (const auto& variable : facts.environment)
            {
                if (variable.name != "PATH")
                {
                    variables.push_back(variable.name + "=" + shortened(variable.value));
                }
            }
            if (!variables.empty())
            {
                for (std::size_t i = 0; i < variables.size(); ++i)
                {
                    line(out, i == 0 ? "env" : "", variables[i]);
                }
            }
        }
    }

    auto render_probe_text(const model::MachineFacts& facts) -> std::string
    {
        std::string out;
        line(out, "envcheck",
             std::string("probe of ") + (facts.live ? "this machine" : "the root " + facts.root) +
               (facts.live ? "" : " (files only: nothing loaded)"));
        host_lines(out, facts);
        pci_lines(out, facts);
        kernel_line(out, facts);
        device_nodes_line(out, facts);
        libraries(out, "libcuda", facts.libraries, facts.libraries.libcuda);
        libraries(out, "libnvml", facts.libraries, facts.libraries.libnvidia_ml);
        nvml_lines(out, facts);
        cuda_lines(out, facts);
        runtime_lines(out, facts);
        environment_lines(out, facts);
        return out;
    }
}
