#include "report/smoke_text.hpp"

#include <array>
#include <charconv>
#include <cmath>

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

        auto format(double value, std::chars_format style, int precision) -> std::string
        {
            std::array<char, 64> buffer{};
            const auto result =
              std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, style, precision);
            return std::string(buffer.data(), result.ptr);
        }

        auto gib(std::uint64_t bytes) -> std::string
        {
            return format(static_cast<double>(bytes) / static_cast<double>(1ull << 30),
                          std::chars_format::fixed, 1) +
                   " GiB";
        }

        // Three significant digits, no exponent below a million: 0.0123, 4.56, 41.3, 4251.
        auto metric_value(double value) -> std::string
        {
            if (!std::isfinite(value))
            {
                return "n/a";
            }
            const double magnitude = std::fabs(value);
            if (magnitude != 0.0 && (magnitude < 1e-3 || magnitude >= 1e6))
            {
                return format(value, std::chars_format::scientific, 2);
            }
            if (magnitude >= 100.0)
            {
                return format(value, std::chars_format::fixed, 0);
            }
            return format(value, std::chars_format::general, 3);
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
                   " SMs, " + (device.memory_bytes ? gib(*device.memory_bytes) : "? GiB") +
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
                                format(100.0 * metric.spread, std::chars_format::fixed, 1) +
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
               format(report.duration_seconds, std::chars_format::fixed, 2) + " s" + "\n";
        return out;
    }
}
