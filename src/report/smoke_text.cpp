#include "report/smoke_text.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "report/numbers.hpp"

namespace envcheck::report
{
    namespace
    {
        // Left-aligned in `width` columns, and always followed by at least one space.
        auto pad(std::string text, std::size_t width) -> std::string
        {
            text.append(text.size() < width ? width - text.size() : 1, ' ');
            return text;
        }

        auto driver_text(const model::SmokeReport& report) -> std::string
        {
            if (report.driver_cuda)
            {
                return "driver supports CUDA " + report.driver_cuda->to_string();
            }
            return report.availability == model::GpuAvailability::no_driver ? "no driver"
                                                                            : "driver unknown";
        }

        void render_device(const model::DeviceSmoke& smoke, const SmokeTextOptions& options,
                           std::string& out)
        {
            const auto& device = smoke.device;
            out += "GPU " + std::to_string(device.index) + "  " + device.name + "  " +
                   device.architecture().value_or("architecture unknown") + ", " +
                   (device.multiprocessors ? std::to_string(*device.multiprocessors) : "?") +
                   " SMs, " + (device.memory_bytes ? format_bytes(*device.memory_bytes) : "? GiB") +
                   ", PCI " + device.pci_bus_id + "\n";
            for (const auto& probe : smoke.probes)
            {
                out += "  " + pad(std::string(model::to_string(probe.status)), 7) +
                       pad(probe.id, 16) + probe.message + "\n";
                if (!options.metrics)
                {
                    continue;
                }
                for (const auto& metric : probe.metrics)
                {
                    std::string line =
                      "        " + pad(metric.name, 28) + pad(metric_value(metric.value), 10);
                    line += pad(metric.unit, 8);
                    if (metric.samples > 1)
                    {
                        line += "spread " +
                                format_number(100.0 * metric.spread, std::chars_format::fixed, 1) +
                                "% of " + std::to_string(metric.samples);
                    }
                    while (!line.empty() && line.back() == ' ')
                    {
                        line.pop_back();
                    }
                    out += line + "\n";
                }
            }
        }
    }

    auto render_smoke_text(const model::SmokeReport& report, const SmokeTextOptions& options)
      -> std::string
    {
        std::string out =
          "envcheck smoke (" + std::string(model::to_string(report.mode)) + "): CUDA runtime " +
          (report.runtime_cuda ? report.runtime_cuda->to_string() : std::string("none")) + ", " +
          driver_text(report) + "\n";
        if (report.availability != model::GpuAvailability::available)
        {
            out += "no GPU probes ran: " + report.diagnosis + "\n";
            return out;
        }
        std::array<int, 5> counts{}; // pass warn fail skip error
        for (const auto& device : report.devices)
        {
            render_device(device, options, out);
            for (const auto& probe : device.probes)
            {
                ++counts[static_cast<std::size_t>(probe.status)];
            }
        }
        out += std::to_string(counts[0]) + " passed, " + std::to_string(counts[2]) + " failed, " +
               std::to_string(counts[3]) + " skipped, " + std::to_string(counts[4]) +
               (counts[4] == 1 ? " error" : " errors") + " in " +
               format_number(report.duration_seconds, std::chars_format::fixed, 2) + " s" + "\n";
        return out;
    }
}
