#include "gpu/wire.hpp"

#include <limits>

#include <nlohmann/json.hpp>

namespace envcheck::gpu
{
    namespace
    {
        using nlohmann::json;

        // Reads typed fields out of one object, remembering the first problem.
        class Reader
        {
        public:
            explicit Reader(const json& object)
              : m_object(object)
            {
            }

            template<class T>
            auto get(const char* key, T& out) -> Reader&
            {
                if (!m_error.empty())
                {
                    return *this;
                }
                const auto found = m_object.find(key);
                if (found == m_object.end())
                {
                    m_error = std::string("missing field '") + key + "'";
                    return *this;
                }
                if (!assign(*found, out))
                {
                    m_error = std::string("field '") + key + "' has the wrong type";
                }
                return *this;
            }

            [[nodiscard]] auto error() const -> const std::string& { return m_error; }

        private:
            static auto assign(const json& value, std::string& out) -> bool
            {
                if (!value.is_string())
                {
                    return false;
                }
                out = value.get<std::string>();
                return true;
            }
            static auto assign(const json& value, bool& out) -> bool
            {
                if (!value.is_boolean())
                {
                    return false;
                }
                out = value.get<bool>();
                return true;
            }
            static auto assign(const json& value, int& out) -> bool
            {
                if (!value.is_number_integer())
                {
                    return false;
                }
                out = value.get<int>();
                return true;
            }
            static auto assign(const json& value, std::uint64_t& out) -> bool
            {
                if (!value.is_number_unsigned())
                {
                    return false;
                }
                out = value.get<std::uint64_t>();
                return true;
            }
            // NaN and infinities travel as null (JSON has no spelling for them).
            static auto assign(const json& value, double& out) -> bool
            {
                if (value.is_null())
                {
                    out = std::numeric_limits<double>::quiet_NaN();
                    return true;
                }
                if (!value.is_number())
                {
                    return false;
                }
                out = value.get<double>();
                return true;
            }

            const json& m_object;
            std::string m_error;
        };

        auto device_json(const model::GpuDevice& device) -> json
        {
            return json{ { "index", device.index },
                         { "name", device.name },
                         { "uuid", device.uuid },
                         { "pci_bus_id", device.pci_bus_id },
                         { "cc_major", device.compute_capability_major },
                         { "cc_minor", device.compute_capability_minor },
                         { "multiprocessors", device.multiprocessors },
                         { "memory_bytes", device.memory_bytes },
                         { "sm_clock_mhz", device.sm_clock_mhz },
                         { "memory_clock_mhz", device.memory_clock_mhz },
                         { "memory_bus_width_bits", device.memory_bus_width_bits },
                         { "l2_cache_bytes", device.l2_cache_bytes },
                         { "async_engine_count", device.async_engine_count },
                         { "concurrent_kernels", device.concurrent_kernels },
                         { "ecc_enabled", device.ecc_enabled } };
        }

        auto read_device(const json& object, model::GpuDevice& device) -> std::string
        {
            Reader reader(object);
            reader.get("index", device.index)
              .get("name", device.name)
              .get("uuid", device.uuid)
              .get("pci_bus_id", device.pci_bus_id)
              .get("cc_major", device.compute_capability_major)
              .get("cc_minor", device.compute_capability_minor)
              .get("multiprocessors", device.multiprocessors)
              .get("memory_bytes", device.memory_bytes)
              .get("sm_clock_mhz", device.sm_clock_mhz)
              .get("memory_clock_mhz", device.memory_clock_mhz)
              .get("memory_bus_width_bits", device.memory_bus_width_bits)
              .get("l2_cache_bytes", device.l2_cache_bytes)
              .get("async_engine_count", device.async_engine_count)
              .get("concurrent_kernels", device.concurrent_kernels)
              .get("ecc_enabled", device.ecc_enabled);
            return reader.error();
        }

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
            Reader reader(object);
            reader.get("id", result.id)
              .get("status", status)
              .get("message", result.message)
              .get("duration_seconds", result.duration_seconds);
            if (!reader.error().empty())
            {
                return reader.error();
            }
            const auto parsed_status = model::parse_status(status);
            if (!parsed_status)
            {
                return "unknown status '" + status + "'";
            }
            result.status = *parsed_status;
            const auto error = object.find("cuda_error");
            if (error != object.end() && error->is_number_integer())
            {
                result.cuda_error = error->get<int>();
            }
            const auto metrics = object.find("metrics");
            if (metrics == object.end() || !metrics->is_array())
            {
                return "missing field 'metrics'";
            }
            for (const auto& entry : *metrics)
            {
                if (!entry.is_object())
                {
                    return "a metric is not an object";
                }
                model::Metric metric;
                std::string direction;
                Reader metric_reader(entry);
                metric_reader.get("name", metric.name)
                  .get("value", metric.value)
                  .get("unit", metric.unit)
                  .get("spread", metric.spread)
                  .get("samples", metric.samples)
                  .get("direction", direction);
                if (!metric_reader.error().empty())
                {
                    return "metric: " + metric_reader.error();
                }
                const auto parsed_direction = model::parse_metric_direction(direction);
                if (!parsed_direction)
                {
                    return "unknown metric direction '" + direction + "'";
                }
                metric.direction = *parsed_direction;
                result.metrics.push_back(std::move(metric));
            }
            return {};
        }

        struct Encoder
        {
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
    }

    auto encode_event(const ChildEvent& event) -> std::string
    {
        // Replace invalid UTF-8 (a device name is the driver's bytes) rather than throw.
        return std::visit(Encoder{}, event).dump(-1, ' ', false, json::error_handler_t::replace);
    }

    auto decode_event(std::string_view line) -> util::Result<ChildEvent, std::string>
    {
        const json object = json::parse(line, nullptr, false);
        if (object.is_discarded() || !object.is_object())
        {
            return util::unexpected(std::string("not a JSON object"));
        }
        std::string kind;
        if (auto error = Reader(object).get("event", kind).error(); !error.empty())
        {
            return util::unexpected(error);
        }
        if (kind == "runtime")
        {
            RuntimeEvent event;
            Reader reader(object);
            reader.get("driver_version", event.driver_version)
              .get("runtime_version", event.runtime_version)
              .get("device_count", event.device_count);
            if (!reader.error().empty())
            {
                return util::unexpected(reader.error());
            }
            const auto error = object.find("error");
            if (error != object.end() && error->is_object())
            {
                model::CudaError cuda_error;
                Reader error_reader(*error);
                error_reader.get("code", cuda_error.code)
                  .get("name", cuda_error.name)
                  .get("message", cuda_error.message);
                if (!error_reader.error().empty())
                {
                    return util::unexpected("error: " + error_reader.error());
                }
                event.error = std::move(cuda_error);
            }
            return ChildEvent{ std::move(event) };
        }
        if (kind == "device")
        {
            DeviceEvent event;
            const auto device = object.find("device");
            if (device == object.end() || !device->is_object())
            {
                return util::unexpected(std::string("missing field 'device'"));
            }
            if (auto error = read_device(*device, event.device); !error.empty())
            {
                return util::unexpected("device: " + error);
            }
            return ChildEvent{ std::move(event) };
        }
        if (kind == "start")
        {
            StartEvent event;
            if (auto error =
                  Reader(object).get("device", event.device).get("probe", event.probe).error();
                !error.empty())
            {
                return util::unexpected(error);
            }
            return ChildEvent{ std::move(event) };
        }
        if (kind == "result")
        {
            ResultEvent event;
            if (auto error = Reader(object).get("device", event.device).error(); !error.empty())
            {
                return util::unexpected(error);
            }
            const auto result = object.find("result");
            if (result == object.end() || !result->is_object())
            {
                return util::unexpected(std::string("missing field 'result'"));
            }
            if (auto error = read_result(*result, event.result); !error.empty())
            {
                return util::unexpected("result: " + error);
            }
            return ChildEvent{ std::move(event) };
        }
        if (kind == "finish")
        {
            return ChildEvent{ FinishEvent{} };
        }
        return util::unexpected("unknown event '" + kind + "'");
    }
}
