#include "report/smoke_json.hpp"

#include <array>
#include <cmath>

#include "json_fields/reader.hpp"
#include "util/strings.hpp"

namespace envcheck::report
{
    namespace
    {
        using nlohmann::json;
        using ordered = nlohmann::ordered_json;

        // JSON has no NaN or infinity: an unmeasurable value is null.
        template<class Json = json>
        auto number(double value) -> Json
        {
            return std::isfinite(value) ? Json(value) : Json(nullptr);
        }

        auto version(const std::optional<model::CudaVersion>& value) -> ordered
        {
            return value ? ordered(value->to_string()) : ordered(nullptr);
        }

        auto probe_json(const model::ProbeResult& probe) -> ordered
        {
            ordered metrics = ordered::object();
            ordered details = ordered::object();
            for (const auto& metric : probe.metrics)
            {
                metrics[metric.name] = number<ordered>(metric.value);
                details[metric.name] =
                  ordered{ { "unit", metric.unit },
                           { "spread", number<ordered>(metric.spread) },
                           { "samples", metric.samples },
                           { "direction", model::to_string(metric.direction) } };
            }
            return ordered{ { "id", probe.id },
                            { "status", model::to_string(probe.status) },
                            { "message", probe.message },
                            { "metrics", std::move(metrics) },
                            { "metric_info", std::move(details) },
                            { "duration_seconds", number<ordered>(probe.duration_seconds) },
                            { "cuda_error",
                              probe.cuda_error ? ordered(*probe.cuda_error) : ordered(nullptr) } };
        }

        auto device_json(const model::DeviceSmoke& smoke) -> ordered
        {
            const auto& device = smoke.device;
            ordered probes = ordered::array();
            for (const auto& probe : smoke.probes)
            {
                probes.push_back(probe_json(probe));
            }
            // What the driver did not say is null.
            const auto value = [](const auto& optional)
            { return optional ? ordered(*optional) : ordered(nullptr); };
            return ordered{ { "index", device.index },
                            { "name", device.name },
                            { "uuid", device.uuid },
                            { "pci_bus_id", device.pci_bus_id },
                            { "architecture", value(device.architecture()) },
                            { "compute_capability", value(device.compute_capability()) },
                            { "multiprocessors", value(device.multiprocessors) },
                            { "memory_bytes", value(device.memory_bytes) },
                            { "sm_clock_mhz", value(device.sm_clock_mhz) },
                            { "memory_clock_mhz", value(device.memory_clock_mhz) },
                            { "memory_bus_width_bits", value(device.memory_bus_width_bits) },
                            { "l2_cache_bytes", value(device.l2_cache_bytes) },
                            { "async_engine_count", value(device.async_engine_count) },
                            { "concurrent_kernels", value(device.concurrent_kernels) },
                            { "ecc_enabled", value(device.ecc_enabled) },
                            { "probes", std::move(probes) } };
        }

        auto parse_failure(std::string message, util::SourceLocation where = {}) -> util::Error
        {
            return util::make_error(
              util::ErrorKind::parse, std::move(message), std::move(where),
              "the performance baseline is written by 'envcheck lock'; relock to rewrite it");
        }
    }

    auto smoke_report_json(const model::SmokeReport& report) -> nlohmann::ordered_json
    {
        ordered devices = ordered::array();
        std::array<int, 5> counts{}; // pass warn fail skip error
        for (const auto& device : report.devices)
        {
            devices.push_back(device_json(device));
            for (const auto& probe : device.probes)
            {
                ++counts[static_cast<std::size_t>(probe.status)];
            }
        }
        ordered cuda_error = nullptr;
        if (report.cuda_error)
        {
            cuda_error = ordered{ { "code", report.cuda_error->code },
                                  { "name", report.cuda_error->name },
                                  { "message", report.cuda_error->message } };
        }
        return ordered{ { "schema_version", smoke_schema_version },
                        { "command", "smoke" },
                        { "mode", model::to_string(report.mode) },
                        { "passed", report.passed() },
                        { "availability", model::to_string(report.availability) },
                        { "diagnosis",
                          report.diagnosis.empty() ? ordered(nullptr) : ordered(report.diagnosis) },
                        { "cuda_error", std::move(cuda_error) },
                        { "cuda", ordered{ { "runtime", version(report.runtime_cuda) },
                                           { "driver", version(report.driver_cuda) } } },
                        { "duration_seconds", number<ordered>(report.duration_seconds) },
                        { "devices", std::move(devices) },
                        { "summary", ordered{ { "pass", counts[0] },
                                              { "fail", counts[2] },
                                              { "skip", counts[3] },
                                              { "error", counts[4] } } } };
    }

    auto render_smoke_json(const model::SmokeReport& report) -> std::string
    {
        return smoke_report_json(report).dump(2, ' ', false, ordered::error_handler_t::replace) +
               "\n";
    }

    auto perf_baseline_json(const model::PerfBaseline& baseline) -> json
    {
        json metrics = json::array();
        for (const auto& metric : baseline.metrics)
        {
            json item{ { "probe", metric.probe },
                       { "name", metric.name },
                       { "value", number(metric.value) },
                       { "spread", number(metric.spread) },
                       { "samples", metric.samples },
                       { "unit", metric.unit },
                       { "direction", model::to_string(metric.direction) } };
            if (!metric.informational.empty())
            {
                item["informational"] = metric.informational;
            }
            metrics.push_back(std::move(item));
        }
        return json{
            { "device_index", baseline.device_index },   { "device_name", baseline.device_name },
            { "device_uuid", baseline.device_uuid },     { "pci_bus_id", baseline.pci_bus_id },
            { "mode", model::to_string(baseline.mode) }, { "metrics", std::move(metrics) }
        };
    }

    auto perf_baseline_from_json(const json& object) -> util::Result<model::PerfBaseline>
    {
        model::PerfBaseline baseline;
        std::string mode;
        json_fields::Reader reader(object, "");
        reader.required("device_index", baseline.device_index)
          .required("device_name", baseline.device_name)
          .required("device_uuid", baseline.device_uuid)
          .required("pci_bus_id", baseline.pci_bus_id)
          .required("mode", mode);
        if (!reader.ok())
        {
            return util::unexpected(parse_failure(reader.error()));
        }
        const auto parsed_mode = model::parse_smoke_mode(mode);
        if (!parsed_mode)
        {
            return util::unexpected(
              parse_failure("mode: unknown smoke mode '" + mode + "' (quick or full)"));
        }
        baseline.mode = *parsed_mode;
        const json& metrics = *reader.list("metrics", true);
        if (!reader.ok())
        {
            return util::unexpected(parse_failure(reader.error()));
        }
        for (std::size_t i = 0; i < metrics.size(); ++i)
        {
            const std::string path = json_fields::item_path("metrics", i);
            model::BaselineMetric metric;
            std::string direction;
            json_fields::Reader metric_reader(metrics[i], path);
            metric_reader.required("probe", metric.probe)
              .required("name", metric.name)
              .required("value", metric.value)
              .required("spread", metric.spread)
              .required("samples", metric.samples)
              .required("unit", metric.unit)
              .required("direction", direction);
            std::optional<std::string> informational;
            metric_reader.optional("informational", informational);
            if (!metric_reader.ok())
            {
                return util::unexpected(parse_failure(metric_reader.error()));
            }
            const auto parsed_direction = model::parse_metric_direction(direction);
            if (!parsed_direction)
            {
                std::string message = path;
                message += ".direction: unknown direction '";
                message += direction;
                message += "'";
                return util::unexpected(parse_failure(std::move(message)));
            }
            metric.direction = *parsed_direction;
            metric.informational = informational.value_or("");
            baseline.metrics.push_back(std::move(metric));
        }
        return baseline;
    }

    auto parse_perf_baseline(std::string_view text, std::string_view source)
      -> util::Result<model::PerfBaseline>
    {
        json object;
        try
        {
            object = json::parse(text);
        }
        catch (const json::parse_error& error)
        {
            // nlohmann's byte is 1-based and points one past the offending character.
            const std::size_t offset =
              error.byte > 0 ? std::min<std::size_t>(error.byte - 1, text.size()) : 0;
            const auto position = util::line_column_at(text, offset);
            std::string message = error.what();
            if (const auto colon = message.rfind(": "); colon != std::string::npos)
            {
                message = message.substr(colon + 2);
            }
            return util::unexpected(parse_failure(
              "not JSON: " + message,
              util::SourceLocation{ std::string(source), position.line, position.column }));
        }
        auto baseline = perf_baseline_from_json(object);
        if (!baseline)
        {
            util::Error error = baseline.error();
            error.where.file = std::string(source);
            return util::unexpected(std::move(error));
        }
        return baseline;
    }
}
