#include "system/wire.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace envcheck::system
{
    namespace
    {
        using nlohmann::json;

        template<class T>
        void put(json& out, const char* key, const std::optional<T>& value)
        {
            if (value)
            {
                out[key] = *value;
            }
        }

        template<class T>
        void get(const json& in, const char* key, std::optional<T>& value)
        {
            if (const auto found = in.find(key); found != in.end() && !found->is_null())
            {
                value = found->get<T>();
            }
        }

        template<class T>
        void get(const json& in, const char* key, T& value)
        {
            if (const auto found = in.find(key); found != in.end() && !found->is_null())
            {
                value = found->get<T>();
            }
        }

        // The list under `key`; a value of another type is a malformed message.
        auto list(const json& in, const char* key) -> json
        {
            const auto found = in.find(key);
            if (found == in.end() || found->is_null())
            {
                return json::array();
            }
            if (!found->is_array())
            {
                throw std::runtime_error(std::string("'") + key + "' is not a list");
            }
            for (const auto& item : *found)
            {
                if (!item.is_object())
                {
                    throw std::runtime_error(std::string("an entry of '") + key +
                                             "' is not an object");
                }
            }
            return *found;
        }

        auto library_json(const model::LibraryFile& library) -> json
        {
            json out{ { "name", library.name },           { "path", library.path },
                      { "real_path", library.real_path }, { "found_via", library.found_via },
                      { "stub", library.stub },           { "compat", library.compat } };
            put(out, "version", library.version);
            put(out, "size_bytes", library.size_bytes);
            return out;
        }

        auto library_from(const json& in) -> model::LibraryFile
        {
            model::LibraryFile library;
            get(in, "name", library.name);
            get(in, "path", library.path);
            get(in, "real_path", library.real_path);
            get(in, "found_via", library.found_via);
            get(in, "stub", library.stub);
            get(in, "compat", library.compat);
            get(in, "version", library.version);
            get(in, "size_bytes", library.size_bytes);
            return library;
        }

        auto version_json(const std::optional<model::CudaVersion>& version) -> json
        {
            return version ? json(version->encoded()) : json(nullptr);
        }

        auto version_from(const json& in, const char* key) -> std::optional<model::CudaVersion>
        {
            std::optional<int> encoded;
            get(in, key, encoded);
            return encoded ? model::decode_cuda_version(*encoded) : std::nullopt;
        }

        auto compute_mode_json(const std::optional<model::ComputeMode>& mode) -> json
        {
            return mode ? json(std::string(model::to_string(*mode))) : json(nullptr);
        }

        auto compute_mode_from(const json& in) -> std::optional<model::ComputeMode>
        {
            std::optional<std::string> text;
            get(in, "compute_mode", text);
            return text ? model::parse_compute_mode(*text) : std::nullopt;
        }

        auto gpu_json(const model::NvmlGpu& gpu) -> json
        {
            json out{
                { "index", gpu.index },   { "name", gpu.name },
                { "uuid", gpu.uuid },     { "pci_bus_id", gpu.pci_bus_id },
                { "errors", gpu.errors }, { "compute_mode", compute_mode_json(gpu.compute_mode) }
            };
            put(out, "brand", gpu.brand);
            put(out, "cc_major", gpu.compute_capability_major);
            put(out, "cc_minor", gpu.compute_capability_minor);
            put(out, "memory_total", gpu.memory_total_bytes);
            put(out, "memory_used", gpu.memory_used_bytes);
            put(out, "pcie_gen", gpu.pcie_generation_current);
            put(out, "pcie_gen_max", gpu.pcie_generation_max);
            put(out, "pcie_width", gpu.pcie_width_current);
            put(out, "pcie_width_max", gpu.pcie_width_max);
            put(out, "sm_clock", gpu.sm_clock_mhz);
            put(out, "sm_clock_max", gpu.sm_clock_max_mhz);
            put(out, "mem_clock", gpu.memory_clock_mhz);
            put(out, "mem_clock_max", gpu.memory_clock_max_mhz);
            put(out, "clock_events", gpu.clock_event_reasons);
            put(out, "ecc", gpu.ecc_enabled);
            put(out, "ecc_pending", gpu.ecc_pending);
            put(out, "ecc_cv", gpu.ecc_corrected_volatile);
            put(out, "ecc_uv", gpu.ecc_uncorrected_volatile);
            put(out, "ecc_ca", gpu.ecc_corrected_aggregate);
            put(out, "ecc_ua", gpu.ecc_uncorrected_aggregate);
            put(out, "rows_c", gpu.remapped_rows_correctable);
            put(out, "rows_u", gpu.remapped_rows_uncorrectable);
            put(out, "remap_pending", gpu.remapping_pending);
            put(out, "remap_failed", gpu.remapping_failed);
            put(out, "mig", gpu.mig_enabled);
            put(out, "mig_pending", gpu.mig_pending);
            put(out, "mig_devices", gpu.mig_devices);
            put(out, "persistence", gpu.persistence_mode);
            put(out, "temperature", gpu.temperature_c);
            put(out, "power", gpu.power_w);
            put(out, "power_limit", gpu.power_limit_w);
            put(out, "processes", gpu.compute_processes);
            if (gpu.fabric_state)
            {
                out["fabric"] = std::string(model::to_string(*gpu.fabric_state));
            }
            return out;
        }

        auto gpu_from(const json& in) -> model::NvmlGpu
        {
            model::NvmlGpu gpu;
            get(in, "index", gpu.index);
            get(in, "name", gpu.name);
            get(in, "uuid", gpu.uuid);
            get(in, "pci_bus_id", gpu.pci_bus_id);
            get(in, "errors", gpu.errors);
            gpu.compute_mode = compute_mode_from(in);
            get(in, "brand", gpu.brand);
            get(in, "cc_major", gpu.compute_capability_major);
            get(in, "cc_minor", gpu.compute_capability_minor);
            get(in, "memory_total", gpu.memory_total_bytes);
            get(in, "memory_used", gpu.memory_used_bytes);
            get(in, "pcie_gen", gpu.pcie_generation_current);
            get(in, "pcie_gen_max", gpu.pcie_generation_max);
            get(in, "pcie_width", gpu.pcie_width_current);
            get(in, "pcie_width_max", gpu.pcie_width_max);
            get(in, "sm_clock", gpu.sm_clock_mhz);
            get(in, "sm_clock_max", gpu.sm_clock_max_mhz);
            get(in, "mem_clock", gpu.memory_clock_mhz);
            get(in, "mem_clock_max", gpu.memory_clock_max_mhz);
            get(in, "clock_events", gpu.clock_event_reasons);
            get(in, "ecc", gpu.ecc_enabled);
            get(in, "ecc_pending", gpu.ecc_pending);
            get(in, "ecc_cv", gpu.ecc_corrected_volatile);
            get(in, "ecc_uv", gpu.ecc_uncorrected_volatile);
            get(in, "ecc_ca", gpu.ecc_corrected_aggregate);
            get(in, "ecc_ua", gpu.ecc_uncorrected_aggregate);
            get(in, "rows_c", gpu.remapped_rows_correctable);
            get(in, "rows_u", gpu.remapped_rows_uncorrectable);
            get(in, "remap_pending", gpu.remapping_pending);
            get(in, "remap_failed", gpu.remapping_failed);
            get(in, "mig", gpu.mig_enabled);
            get(in, "mig_pending", gpu.mig_pending);
            get(in, "mig_devices", gpu.mig_devices);
            get(in, "persistence", gpu.persistence_mode);
            get(in, "temperature", gpu.temperature_c);
            get(in, "power", gpu.power_w);
            get(in, "power_limit", gpu.power_limit_w);
            get(in, "processes", gpu.compute_processes);
            std::optional<std::string> fabric;
            get(in, "fabric", fabric);
            gpu.fabric_state = fabric ? model::parse_fabric_state(*fabric) : std::nullopt;
            return gpu;
        }

        auto device_json(const model::CudaDevice& device) -> json
        {
            json out{ { "ordinal", device.ordinal },
                      { "name", device.name },
                      { "uuid", device.uuid },
                      { "pci_bus_id", device.pci_bus_id },
                      { "compute_mode", compute_mode_json(device.compute_mode) } };
            put(out, "memory_total", device.memory_total_bytes);
            put(out, "cc_major", device.compute_capability_major);
            put(out, "cc_minor", device.compute_capability_minor);
            put(out, "sms", device.multiprocessors);
            put(out, "smem_block", device.shared_memory_per_block);
            put(out, "smem_block_optin", device.shared_memory_per_block_optin);
            put(out, "smem_sm", device.shared_memory_per_multiprocessor);
            put(out, "smem_reserved", device.reserved_shared_memory_per_block);
            put(out, "regs_block", device.registers_per_block);
            put(out, "regs_sm", device.registers_per_multiprocessor);
            put(out, "l2", device.l2_cache_bytes);
            put(out, "threads_block", device.max_threads_per_block);
            put(out, "threads_sm", device.max_threads_per_multiprocessor);
            put(out, "warp", device.warp_size);
            put(out, "concurrent_kernels", device.concurrent_kernels);
            put(out, "async_engines", device.async_engine_count);
            put(out, "unified_addressing", device.unified_addressing);
            put(out, "bus_width", device.memory_bus_width_bits);
            put(out, "clock", device.clock_mhz);
            put(out, "mem_clock", device.memory_clock_mhz);
            put(out, "ecc", device.ecc_enabled);
            return out;
        }

        auto device_from(const json& in) -> model::CudaDevice
        {
            model::CudaDevice device;
            get(in, "ordinal", device.ordinal);
            get(in, "name", device.name);
            get(in, "uuid", device.uuid);
            get(in, "pci_bus_id", device.pci_bus_id);
            device.compute_mode = compute_mode_from(in);
            get(in, "memory_total", device.memory_total_bytes);
            get(in, "cc_major", device.compute_capability_major);
            get(in, "cc_minor", device.compute_capability_minor);
            get(in, "sms", device.multiprocessors);
            get(in, "smem_block", device.shared_memory_per_block);
            get(in, "smem_block_optin", device.shared_memory_per_block_optin);
            get(in, "smem_sm", device.shared_memory_per_multiprocessor);
            get(in, "smem_reserved", device.reserved_shared_memory_per_block);
            get(in, "regs_block", device.registers_per_block);
            get(in, "regs_sm", device.registers_per_multiprocessor);
            get(in, "l2", device.l2_cache_bytes);
            get(in, "threads_block", device.max_threads_per_block);
            get(in, "threads_sm", device.max_threads_per_multiprocessor);
            get(in, "warp", device.warp_size);
            get(in, "concurrent_kernels", device.concurrent_kernels);
            get(in, "async_engines", device.async_engine_count);
            get(in, "unified_addressing", device.unified_addressing);
            get(in, "bus_width", device.memory_bus_width_bits);
            get(in, "clock", device.clock_mhz);
            get(in, "mem_clock", device.memory_clock_mhz);
            get(in, "ecc", device.ecc_enabled);
            return device;
        }

        template<class T, class Decode>
        auto decode(std::string_view text, Decode&& body) -> util::Result<T>
        {
            try
            {
                const auto in = json::parse(text);
                if (!in.is_object())
                {
                    return util::unexpected(
                      util::make_error(util::ErrorKind::parse, "probe result is not an object"));
                }
                return body(in);
            }
            catch (const std::exception& error)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, std::string("malformed probe result: ") + error.what()));
            }
        }
    }

    auto encode_nvml(const NvmlProbe& probe) -> std::string
    {
        const auto& facts = probe.facts;
        json gpus = json::array();
        for (const auto& gpu : facts.gpus)
        {
            gpus.push_back(gpu_json(gpu));
        }
        json opens = json::array();
        for (const auto& open : probe.opens)
        {
            opens.push_back({ { "path", open.path }, { "ok", open.ok }, { "error", open.error } });
        }
        json out{ { "load_error", facts.load_error },
                  { "gpus", gpus },
                  { "opens", opens },
                  { "cuda_driver_version", version_json(facts.cuda_driver_version) } };
        if (facts.library)
        {
            out["library"] = library_json(*facts.library);
        }
        put(out, "init_result", facts.init_result);
        put(out, "driver_version", facts.driver_version);
        put(out, "nvml_version", facts.nvml_version);
        put(out, "device_count", facts.device_count);
        return out.dump();
    }

    auto decode_nvml(std::string_view text) -> util::Result<NvmlProbe>
    {
        return decode<NvmlProbe>(
          text,
          [](const json& in)
          {
              NvmlProbe probe;
              auto& facts = probe.facts;
              facts.attempted = true;
              get(in, "load_error", facts.load_error);
              if (const auto library = in.find("library"); library != in.end())
              {
                  facts.library = library_from(*library);
              }
              get(in, "init_result", facts.init_result);
              get(in, "driver_version", facts.driver_version);
              get(in, "nvml_version", facts.nvml_version);
              get(in, "device_count", facts.device_count);
              facts.cuda_driver_version = version_from(in, "cuda_driver_version");
              for (const auto& gpu : list(in, "gpus"))
              {
                  facts.gpus.push_back(gpu_from(gpu));
              }
              for (const auto& open : list(in, "opens"))
              {
                  probe.opens.push_back(
                    { open.value("path", ""), open.value("ok", false), open.value("error", "") });
              }
              return probe;
          });
    }

    auto encode_cuda(const model::CudaDriverFacts& facts) -> std::string
    {
        json devices = json::array();
        for (const auto& device : facts.devices)
        {
            devices.push_back(device_json(device));
        }
        json out{ { "load_error", facts.load_error },
                  { "devices", devices },
                  { "driver_version", version_json(facts.driver_version) } };
        if (facts.library)
        {
            out["library"] = library_json(*facts.library);
        }
        put(out, "init_result", facts.init_result);
        put(out, "device_count", facts.device_count);
        return out.dump();
    }

    auto decode_cuda(std::string_view text) -> util::Result<model::CudaDriverFacts>
    {
        return decode<model::CudaDriverFacts>(
          text,
          [](const json& in)
          {
              model::CudaDriverFacts facts;
              facts.attempted = true;
              get(in, "load_error", facts.load_error);
              if (const auto library = in.find("library"); library != in.end())
              {
                  facts.library = library_from(*library);
              }
              facts.driver_version = version_from(in, "driver_version");
              get(in, "init_result", facts.init_result);
              get(in, "device_count", facts.device_count);
              for (const auto& device : list(in, "devices"))
              {
                  facts.devices.push_back(device_from(device));
              }
              return facts;
          });
    }

    auto encode_step(std::string_view step) -> std::string
    {
        return json{ { "step", std::string(step) } }.dump();
    }

    auto decode_step(std::string_view line) -> std::string
    {
        const auto in = json::parse(line, nullptr, false);
        if (!in.is_object())
        {
            return {};
        }
        const auto found = in.find("step");
        return found != in.end() && found->is_string() ? found->get<std::string>() : std::string{};
    }
}
