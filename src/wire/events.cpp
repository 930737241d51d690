#include "wire/events.hpp"

#include "json_fields/reader.hpp"

namespace envcheck::wire
{
    namespace
    {
        using json_fields::item_path;
        using json_fields::json;
        using json_fields::Reader;

        template<class T>
        void put(json& out, const char* key, const std::optional<T>& value)
        {
            if (value)
            {
                out[key] = *value;
            }
        }

        // --- shared values ------------------------------------------------------------------

        auto library_json(const model::LibraryFile& library) -> json
        {
            json out{ { "name", library.name },           { "path", library.path },
                      { "real_path", library.real_path }, { "found_via", library.found_via },
                      { "stub", library.stub },           { "compat", library.compat } };
            put(out, "version", library.version);
            put(out, "size_bytes", library.size_bytes);
            return out;
        }

        void read_library(const json& in, model::LibraryFile& library, Reader& outer)
        {
            Reader reader(in, outer.path("library"));
            reader.required("name", library.name)
              .required("path", library.path)
              .required("real_path", library.real_path)
              .required("found_via", library.found_via)
              .required("stub", library.stub)
              .required("compat", library.compat)
              .optional("version", library.version)
              .optional("size_bytes", library.size_bytes);
            outer.fail(reader.error());
        }

        void read_optional_library(Reader& reader, std::optional<model::LibraryFile>& library)
        {
            if (const json* in = reader.object("library"))
            {
                library.emplace();
                read_library(*in, *library, reader);
            }
        }

        auto version_json(const std::optional<model::CudaVersion>& version) -> json
        {
            return version ? json(version->encoded()) : json(nullptr);
        }

        void read_version(Reader& reader, const char* key, std::optional<model::CudaVersion>& out)
        {
            std::optional<int> encoded;
            reader.optional(key, encoded);
            out = encoded ? model::decode_cuda_version(*encoded) : std::nullopt;
        }

        void put_compute_mode(json& out, const std::optional<model::ComputeMode>& mode)
        {
            if (mode)
            {
                out["compute_mode"] = std::string(model::to_string(*mode));
            }
        }

        void read_compute_mode(Reader& reader, std::optional<model::ComputeMode>& mode)
        {
            std::optional<std::string> text;
            reader.optional("compute_mode", text);
            mode.reset();
            if (text)
            {
                mode = model::parse_compute_mode(*text);
                if (!mode)
                {
                    reader.fail_at("compute_mode", "unknown compute mode '" + *text + "'");
                }
            }
        }

        // --- the one device type ------------------------------------------------------------

        auto device_json(const model::GpuDevice& device) -> json
        {
            json out{ { "index", device.index },
                      { "name", device.name },
                      { "uuid", device.uuid },
                      { "pci_bus_id", device.pci_bus_id } };
            put(out, "memory_bytes", device.memory_bytes);
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
            put(out, "sm_clock", device.sm_clock_mhz);
            put(out, "mem_clock", device.memory_clock_mhz);
            put_compute_mode(out, device.compute_mode);
            put(out, "ecc", device.ecc_enabled);
            return out;
        }

        auto read_device(const json& in, model::GpuDevice& device, std::string path) -> std::string
        {
            Reader reader(in, std::move(path));
            reader.required("index", device.index)
              .required("name", device.name)
              .required("uuid", device.uuid)
              .required("pci_bus_id", device.pci_bus_id)
              .optional("memory_bytes", device.memory_bytes)
              .optional("cc_major", device.compute_capability_major)
              .optional("cc_minor", device.compute_capability_minor)
              .optional("sms", device.multiprocessors)
              .optional("smem_block", device.shared_memory_per_block)
              .optional("smem_block_optin", device.shared_memory_per_block_optin)
              .optional("smem_sm", device.shared_memory_per_multiprocessor)
              .optional("smem_reserved", device.reserved_shared_memory_per_block)
              .optional("regs_block", device.registers_per_block)
              .optional("regs_sm", device.registers_per_multiprocessor)
              .optional("l2", device.l2_cache_bytes)
              .optional("threads_block", device.max_threads_per_block)
              .optional("threads_sm", device.max_threads_per_multiprocessor)
              .optional("warp", device.warp_size)
              .optional("concurrent_kernels", device.concurrent_kernels)
              .optional("async_engines", device.async_engine_count)
              .optional("unified_addressing", device.unified_addressing)
              .optional("bus_width", device.memory_bus_width_bits)
              .optional("sm_clock", device.sm_clock_mhz)
              .optional("mem_clock", device.memory_clock_mhz)
              .optional("ecc", device.ecc_enabled);
            read_compute_mode(reader, device.compute_mode);
            return reader.error();
        }

        // --- NVML ---------------------------------------------------------------------------

        // A list of whole numbers (absent: none).
        template<class Number>
        void read_numbers(Reader& reader, const char* key, std::vector<Number>& out)
        {
            out.clear();
            const json* list = reader.list(key);
            if (list == nullptr)
            {
                return;
            }
            for (const auto& item : *list)
            {
                Number number{};
                if (!json_fields::assign(item, number))
                {
                    reader.fail_at(key, "expected a list of whole numbers");
                    return;
                }
                out.push_back(number);
            }
        }

        auto gpu_json(const model::NvmlGpu& gpu) -> json
        {
            json out{ { "index", gpu.index },
                      { "name", gpu.name },
                      { "uuid", gpu.uuid },
                      { "pci_bus_id", gpu.pci_bus_id },
                      { "errors", gpu.errors } };
            put_compute_mode(out, gpu.compute_mode);
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
            put(out, "retired_sbe", gpu.retired_pages_single_bit);
            put(out, "retired_dbe", gpu.retired_pages_double_bit);
            put(out, "retired_pending", gpu.retired_pages_pending);
            put(out, "nvlink_links", gpu.nvlink_links);
            out["nvlink_down"] = gpu.nvlink_links_down;
            out["pids"] = gpu.compute_process_ids;
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

        auto read_gpu(const json& in, model::NvmlGpu& gpu, std::string path) -> std::string
        {
            Reader reader(in, std::move(path));
            reader.required("index", gpu.index)
              .required("name", gpu.name)
              .required("uuid", gpu.uuid)
              .required("pci_bus_id", gpu.pci_bus_id)
              .required("errors", gpu.errors)
              .optional("brand", gpu.brand)
              .optional("cc_major", gpu.compute_capability_major)
              .optional("cc_minor", gpu.compute_capability_minor)
              .optional("memory_total", gpu.memory_total_bytes)
              .optional("memory_used", gpu.memory_used_bytes)
              .optional("pcie_gen", gpu.pcie_generation_current)
              .optional("pcie_gen_max", gpu.pcie_generation_max)
              .optional("pcie_width", gpu.pcie_width_current)
              .optional("pcie_width_max", gpu.pcie_width_max)
              .optional("sm_clock", gpu.sm_clock_mhz)
              .optional("sm_clock_max", gpu.sm_clock_max_mhz)
              .optional("mem_clock", gpu.memory_clock_mhz)
              .optional("mem_clock_max", gpu.memory_clock_max_mhz)
              .optional("clock_events", gpu.clock_event_reasons)
              .optional("ecc", gpu.ecc_enabled)
              .optional("ecc_pending", gpu.ecc_pending)
              .optional("ecc_cv", gpu.ecc_corrected_volatile)
              .optional("ecc_uv", gpu.ecc_uncorrected_volatile)
              .optional("ecc_ca", gpu.ecc_corrected_aggregate)
              .optional("ecc_ua", gpu.ecc_uncorrected_aggregate)
              .optional("rows_c", gpu.remapped_rows_correctable)
              .optional("rows_u", gpu.remapped_rows_uncorrectable)
              .optional("remap_pending", gpu.remapping_pending)
              .optional("remap_failed", gpu.remapping_failed)
              .optional("retired_sbe", gpu.retired_pages_single_bit)
              .optional("retired_dbe", gpu.retired_pages_double_bit)
              .optional("retired_pending", gpu.retired_pages_pending)
              .optional("nvlink_links", gpu.nvlink_links)
              .optional("mig", gpu.mig_enabled)
              .optional("mig_pending", gpu.mig_pending)
              .optional("mig_devices", gpu.mig_devices)
              .optional("persistence", gpu.persistence_mode)
              .optional("temperature", gpu.temperature_c)
              .optional("power", gpu.power_w)
              .optional("power_limit", gpu.power_limit_w)
              .optional("processes", gpu.compute_processes);
            read_compute_mode(reader, gpu.compute_mode);
            read_numbers(reader, "nvlink_down", gpu.nvlink_links_down);
            read_numbers(reader, "pids", gpu.compute_process_ids);
            std::optional<std::string> fabric;
            reader.optional("fabric", fabric);
            gpu.fabric_state.reset();
            if (fabric)
            {
                gpu.fabric_state = model::parse_fabric_state(*fabric);
                if (!gpu.fabric_state)
                {
                    reader.fail_at("fabric", "unknown fabric state '" + *fabric + "'");
                }
            }
            return reader.error();
        }

        auto nvml_json(const NvmlProbe& probe) -> json
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
                opens.push_back(
                  { { "path", open.path }, { "ok", open.ok }, { "error", open.error } });
            }
            json out{ { "event", "nvml" },
                      { "load_error", facts.load_error },
                      { "gpus", std::move(gpus) },
                      { "opens", std::move(opens) },
                      { "cuda_driver_version", version_json(facts.cuda_driver_version) } };
            if (facts.library)
            {
                out["library"] = library_json(*facts.library);
            }
            put(out, "init_result", facts.init_result);
            put(out, "driver_version", facts.driver_version);
            put(out, "nvml_version", facts.nvml_version);
            put(out, "device_count", facts.device_count);
            return out;
        }

        auto read_nvml(const json& in, NvmlProbe& probe) -> std::string
        {
            auto& facts = probe.facts;
            Reader reader(in, "");
            reader.required("load_error", facts.load_error)
              .optional("init_result", facts.init_result)
              .optional("driver_version", facts.driver_version)
              .optional("nvml_version", facts.nvml_version)
              .optional("device_count", facts.device_count);
            read_optional_library(reader, facts.library);
            read_version(reader, "cuda_driver_version", facts.cuda_driver_version);
            const auto gpus = reader.objects("gpus");
            for (std::size_t i = 0; i < gpus.size(); ++i)
            {
                model::NvmlGpu gpu;
                if (auto error = read_gpu(*gpus[i], gpu, item_path("gpus", i)); !error.empty())
                {
                    return error;
                }
                facts.gpus.push_back(std::move(gpu));
            }
            const auto opens = reader.objects("opens");
            for (std::size_t i = 0; i < opens.size(); ++i)
            {
                NodeOpen open;
                Reader open_reader(*opens[i], item_path("opens", i));
                open_reader.required("path", open.path)
                  .required("ok", open.ok)
                  .required("error", open.error);
                if (!open_reader.ok())
                {
                    return open_reader.error();
                }
                probe.opens.push_back(std::move(open));
            }
            return reader.error();
        }

        // --- the CUDA driver ----------------------------------------------------------------

        auto cuda_json(const model::CudaDriverFacts& facts) -> json
        {
            json devices = json::array();
            for (const auto& device : facts.devices)
            {
                devices.push_back(device_json(device));
            }
            json out{ { "event", "cuda" },
                      { "load_error", facts.load_error },
                      { "devices", std::move(devices) },
                      { "driver_version", version_json(facts.driver_version) } };
            if (facts.library)
            {
                out["library"] = library_json(*facts.library);
            }
            put(out, "init_result", facts.init_result);
            put(out, "device_count", facts.device_count);
            return out;
        }

        auto read_cuda(const json& in, model::CudaDriverFacts& facts) -> std::string
        {
            Reader reader(in, "");
            reader.required("load_error", facts.load_error)
              .optional("init_result", facts.init_result)
              .optional("device_count", facts.device_count);
            read_optional_library(reader, facts.library);
            read_version(reader, "driver_version", facts.driver_version);
            const auto devices = reader.objects("devices");
            for (std::size_t i = 0; i < devices.size(); ++i)
            {
                model::GpuDevice device;
                if (auto error = read_device(*devices[i], device, item_path("devices", i));
                    !error.empty())
                {
                    return error;
                }
                facts.devices.push_back(std::move(device));
            }
            return reader.error();
        }

        // --- the GPU probe child ------------------------------------------------------------

        auto result_json(const model::ProbeResult& result) -> json
        {
            json metrics = json::array();
            for (const auto& metric : result.metrics)
            {
                metrics.push_back(json{ { "name", metric.name },
                                        { "value", metric.value },
                                        { "unit", metric.unit },
                                        { "spread", metric.spread },
                                        { "samples", metric.samples },
                                        { "direction", model::to_string(metric.direction) } });
            }
            return json{ { "id", result.id },
                         { "status", model::to_string(result.status) },
                         { "message", result.message },
                         { "metrics", std::move(metrics) },
                         { "duration_seconds", result.duration_seconds },
                         { "cuda_error",
                           result.cuda_error ? json(*result.cuda_error) : json(nullptr) } };
        }

        auto read_result(const json& object, model::ProbeResult& result) -> std::string
        {
            std::string status;
            Reader reader(object, "result");
            reader.required("id", result.id)
              .required("status", status)
              .required("message", result.message)
              .measured("duration_seconds", result.duration_seconds)
              .optional("cuda_error", result.cuda_error);
            if (!reader.ok())
            {
                return reader.error();
            }
            const auto parsed_status = model::parse_status(status);
            if (!parsed_status)
            {
                reader.fail_at("status", "unknown status '" + status + "'");
                return reader.error();
            }
            result.status = *parsed_status;
            reader.list("metrics", true);
            const auto metrics = reader.objects("metrics");
            if (!reader.ok())
            {
                return reader.error();
            }
            for (std::size_t i = 0; i < metrics.size(); ++i)
            {
                model::Metric metric;
                std::string direction;
                Reader metric_reader(*metrics[i], item_path(reader.path("metrics"), i));
                metric_reader.required("name", metric.name)
                  .measured("value", metric.value)
                  .required("unit", metric.unit)
                  .measured("spread", metric.spread)
                  .required("samples", metric.samples)
                  .required("direction", direction);
                if (!metric_reader.ok())
                {
                    return metric_reader.error();
                }
                const auto parsed_direction = model::parse_metric_direction(direction);
                if (!parsed_direction)
                {
                    metric_reader.fail_at("direction",
                                          "unknown metric direction '" + direction + "'");
                    return metric_reader.error();
                }
                metric.direction = *parsed_direction;
                result.metrics.push_back(std::move(metric));
            }
            return {};
        }

        struct Encoder
        {
            auto operator()(const StepEvent& event) const -> json
            {
                return json{ { "event", "step" }, { "step", event.step } };
            }
            auto operator()(const NvmlEvent& event) const -> json { return nvml_json(event.probe); }
            auto operator()(const CudaEvent& event) const -> json { return cuda_json(event.facts); }
            auto operator()(const DriverEvent& event) const -> json
            {
                return json{ { "event", "driver" },
                             { "loaded", event.loaded },
                             { "library", event.library },
                             { "error", event.error } };
            }
            auto operator()(const RuntimeEvent& event) const -> json
            {
                json error = nullptr;
                if (event.error)
                {
                    error = json{ { "code", event.error->code },
                                  { "name", event.error->name },
                                  { "message", event.error->message } };
                }
                return json{ { "event", "runtime" },
                             { "driver_version", event.driver_version },
                             { "runtime_version", event.runtime_version },
                             { "device_count", event.device_count },
                             { "error", std::move(error) } };
            }
            auto operator()(const DeviceEvent& event) const -> json
            {
                return json{ { "event", "device" }, { "device", device_json(event.device) } };
            }
            auto operator()(const StartEvent& event) const -> json
            {
                return json{ { "event", "start" },
                             { "device", event.device },
                             { "probe", event.probe } };
            }
            auto operator()(const ResultEvent& event) const -> json
            {
                return json{ { "event", "result" },
                             { "device", event.device },
                             { "result", result_json(event.result) } };
            }
            auto operator()(const FinishEvent&) const -> json
            {
                return json{ { "event", "finish" } };
            }
        };

        using Decoded = util::Result<Event, std::string>;

        auto failed(std::string error) -> Decoded
        {
            return util::unexpected(std::move(error));
        }

        auto decode_object(const json& object, const std::string& kind) -> Decoded
        {
            Reader reader(object, "");
            if (kind == "step")
            {
                StepEvent event;
                if (!reader.required("step", event.step).error().empty())
                {
                    return failed(reader.error());
                }
                return Event{ std::move(event) };
            }
            if (kind == "nvml")
            {
                NvmlEvent event;
                if (auto error = read_nvml(object, event.probe); !error.empty())
                {
                    return failed("nvml: " + error);
                }
                return Event{ std::move(event) };
            }
            if (kind == "cuda")
            {
                CudaEvent event;
                if (auto error = read_cuda(object, event.facts); !error.empty())
                {
                    return failed("cuda: " + error);
                }
                return Event{ std::move(event) };
            }
            if (kind == "driver")
            {
                DriverEvent event;
                reader.required("loaded", event.loaded)
                  .required("library", event.library)
                  .required("error", event.error);
                if (!reader.error().empty())
                {
                    return failed(reader.error());
                }
                return Event{ std::move(event) };
            }
            if (kind == "runtime")
            {
                RuntimeEvent event;
                reader.required("driver_version", event.driver_version)
                  .required("runtime_version", event.runtime_version)
                  .required("device_count", event.device_count);
                if (const json* error = reader.object("error"))
                {
                    model::CudaError cuda_error;
                    Reader error_reader(*error, "error");
                    error_reader.required("code", cuda_error.code)
                      .required("name", cuda_error.name)
                      .required("message", cuda_error.message);
                    if (!error_reader.error().empty())
                    {
                        return failed(error_reader.error());
                    }
                    event.error = std::move(cuda_error);
                }
                if (!reader.error().empty())
                {
                    return failed(reader.error());
                }
                return Event{ std::move(event) };
            }
            if (kind == "device")
            {
                DeviceEvent event;
                const json* device = reader.object("device");
                if (device == nullptr)
                {
                    return failed(reader.ok() ? "device: missing" : reader.error());
                }
                if (auto error = read_device(*device, event.device, "device"); !error.empty())
                {
                    return failed(error);
                }
                return Event{ std::move(event) };
            }
            if (kind == "start")
            {
                StartEvent event;
                if (!reader.required("device", event.device)
                       .required("probe", event.probe)
                       .error()
                       .empty())
                {
                    return failed(reader.error());
                }
                return Event{ std::move(event) };
            }
            if (kind == "result")
            {
                ResultEvent event;
                reader.required("device", event.device);
                const json* result = reader.object("result");
                if (!reader.error().empty())
                {
                    return failed(reader.error());
                }
                if (result == nullptr)
                {
                    return failed("result: missing");
                }
                if (auto error = read_result(*result, event.result); !error.empty())
                {
                    return failed(error);
                }
                return Event{ std::move(event) };
            }
            if (kind == "finish")
            {
                return Event{ FinishEvent{} };
            }
            return failed("unknown event '" + kind + "'");
        }
    }

    auto encode(const Event& event) -> std::string
    {
        // Replace invalid UTF-8 (a device name is the driver's bytes) rather than throw.
        return std::visit(Encoder{}, event).dump(-1, ' ', false, json::error_handler_t::replace);
    }

    auto decode(std::string_view line) -> util::Result<Event, std::string>
    {
        const json object = json::parse(line, nullptr, false);
        if (object.is_discarded() || !object.is_object())
        {
            return failed("not a JSON object");
        }
        std::string kind;
        if (auto error = Reader(object, "").required("event", kind).error(); !error.empty())
        {
            return failed(error);
        }
        try
        {
            return decode_object(object, kind);
        }
        catch (const std::exception& error)
        {
            return failed(std::string("malformed ") + kind + " event: " + error.what());
        }
    }

    auto encode(const GoAhead& go_ahead) -> std::string
    {
        json spared = json::array();
        for (const auto& [device, reason] : go_ahead.spared)
        {
            spared.push_back(json{ { "device", device }, { "reason", reason } });
        }
        return json{ { "event", "go" }, { "spared", std::move(spared) } }.dump(
          -1, ' ', false, json::error_handler_t::replace);
    }

    auto decode_go_ahead(std::string_view line) -> util::Result<GoAhead, std::string>
    {
        const json object = json::parse(line, nullptr, false);
        if (object.is_discarded() || !object.is_object())
        {
            return util::unexpected(std::string("not a JSON object"));
        }
        Reader reader(object, "");
        std::string kind;
        reader.required("event", kind);
        if (reader.ok() && kind != "go")
        {
            reader.fail_at("event", "expected 'go', got '" + kind + "'");
        }
        GoAhead go_ahead;
        std::size_t index = 0;
        for (const json* item : reader.objects("spared"))
        {
            Reader entry(*item, json_fields::item_path("spared", index++));
            int device = 0;
            std::string reason;
            entry.required("device", device).required("reason", reason);
            if (!entry.ok())
            {
                return util::unexpected(entry.error());
            }
            go_ahead.spared[device] = std::move(reason);
        }
        if (!reader.ok())
        {
            return util::unexpected(reader.error());
        }
        return go_ahead;
    }
}
