#include "report/smoke_json.hpp"

#include <array>
#include <cmath>

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
}
