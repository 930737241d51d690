#include "model/smoke.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "util/enum_text.hpp"
#include "util/statistics.hpp"
#include "util/strings.hpp"

namespace envcheck::model
{
    auto to_string(SmokeMode mode) -> std::string_view
    {
        switch (mode)
        {
            case SmokeMode::quick:
                return "quick";
            case SmokeMode::full:
                return "full";
        }
        return "quick";
    }

    auto parse_smoke_mode(std::string_view text) -> std::optional<SmokeMode>
    {
        return util::parse_enum(text, { SmokeMode::quick, SmokeMode::full });
    }

    auto to_string(MetricDirection direction) -> std::string_view
    {
        switch (direction)
        {
            case MetricDirection::higher_is_better:
                return "higher_is_better";
            case MetricDirection::lower_is_better:
                return "lower_is_better";
            case MetricDirection::informational:
                return "informational";
        }
        return "informational";
    }

    auto parse_metric_direction(std::string_view text) -> std::optional<MetricDirection>
    {
        return util::parse_enum(text, { MetricDirection::higher_is_better,
                                        MetricDirection::lower_is_better,
                                        MetricDirection::informational });
    }

    auto to_string(GpuAvailability availability) -> std::string_view
    {
        switch (availability)
        {
            case GpuAvailability::available:
                return "available";
            case GpuAvailability::built_without_cuda:
                return "built_without_cuda";
            case GpuAvailability::no_driver:
                return "no_driver";
            case GpuAvailability::no_usable_device:
                return "no_usable_device";
            case GpuAvailability::no_such_device:
                return "no_such_device";
            case GpuAvailability::probe_process_failed:
                return "probe_process_failed";
        }
        return "probe_process_failed";
    }

    auto parse_gpu_availability(std::string_view text) -> std::optional<GpuAvailability>
    {
        return util::parse_enum(
          text, { GpuAvailability::available, GpuAvailability::built_without_cuda,
                  GpuAvailability::no_driver, GpuAvailability::no_usable_device,
                  GpuAvailability::no_such_device, GpuAvailability::probe_process_failed });
    }

    auto ProbeResult::metric(std::string_view wanted) const -> const Metric*
    {
        const auto found =
          std::find_if(metrics.begin(), metrics.end(),
                       [&](const Metric& metric) { return metric.name == wanted; });
        return found == metrics.end() ? nullptr : &*found;
    }

    auto SmokeReport::passed() const -> bool
    {
        if (availability != GpuAvailability::available || devices.empty())
        {
            return false;
        }
        return std::all_of(devices.begin(), devices.end(),
                           [](const DeviceSmoke& device)
                           {
                               return std::none_of(device.probes.begin(), device.probes.end(),
                                                   [](const ProbeResult& probe)
                                                   { return is_failure(probe.status); });
                           });
    }

    auto SmokeReport::device(int index) const -> const DeviceSmoke*
    {
        const auto found =
          std::find_if(devices.begin(), devices.end(),
                       [&](const DeviceSmoke& measured) { return measured.device.index == index; });
        return found == devices.end() ? nullptr : &*found;
    }

    auto SmokeReport::device(int index) -> DeviceSmoke*
    {
        return const_cast<DeviceSmoke*>(std::as_const(*this).device(index));
    }

    auto to_check_run(const SmokeReport& report) -> CheckRun
    {
        CheckRun run;
        run.command = "smoke";
        run.duration_seconds = report.duration_seconds;
        if (report.availability != GpuAvailability::available)
        {
            CheckOutcome outcome;
            outcome.id = "smoke.gpu";
            // Not the machine's fault (an ordinal it does not have, an envcheck without kernels):
            // the check could not run, which NPD reads as Unknown rather than a node problem.
            const bool not_the_machine = report.availability == GpuAvailability::no_such_device ||
                                         report.availability == GpuAvailability::built_without_cuda;
            outcome.status = not_the_machine ? Status::error : Status::fail;
            outcome.message = report.diagnosis;
            outcome.fix = "run 'envcheck doctor' for the cause";
            run.outcomes.push_back(std::move(outcome));
            return run;
        }
        for (const auto& device : report.devices)
        {
            for (const auto& probe : device.probes)
            {
                CheckOutcome outcome;
                outcome.id = "smoke." + probe.id;
                outcome.status = probe.status;
                outcome.message = probe.message;
                for (const auto& metric : probe.metrics)
                {
                    outcome.metrics[metric.name] = metric.value;
                }
                outcome.labels = { { "gpu", std::to_string(device.device.index) },
                                   { "gpu_name", device.device.name },
                                   { "gpu_uuid", device.device.uuid } };
                run.outcomes.push_back(std::move(outcome));
            }
        }
        return run;
    }

    auto BaselineMetric::key() const -> std::string
    {
        return probe + "." + name;
    }

    auto make_baseline(std::span<const DeviceSmoke> runs, SmokeMode mode) -> PerfBaseline
    {
        PerfBaseline baseline;
        baseline.mode = mode;
        if (runs.empty())
        {
            return baseline;
        }
        const auto& first = runs.front();
        baseline.device_index = first.device.index;
        baseline.device_name = first.device.name;
        baseline.device_uuid = first.device.uuid;
        baseline.pci_bus_id = first.device.pci_bus_id;
        for (const auto& probe : first.probes)
        {
            for (const auto& metric : probe.metrics)
            {
                if (metric.direction == MetricDirection::informational)
                {
                    continue;
                }
                std::vector<double> values;
                std::vector<double> spreads;
                int samples = 0;
                for (const auto& run : runs)
                {
                    const auto found =
                      std::find_if(run.probes.begin(), run.probes.end(),
                                   [&](const ProbeResult& other) { return other.id == probe.id; });
                    const Metric* same = found == run.probes.end() || found->status != Status::pass
                                           ? nullptr
                                           : found->metric(metric.name);
                    if (same == nullptr)
                    {
                        break;
                    }
                    values.push_back(same->value);
                    spreads.push_back(same->spread);
                    samples += same->samples;
                }
                if (values.size() != runs.size())
                {
                    continue; // not measured in every run: no baseline to hold it to
                }
                // What a check compares is a run's median, so the spread that matters is
                // between the runs' medians; one run has only its repeats' spread to go by.
                const auto between = util::summarize(values);
                const double spread = runs.size() > 1 ? between.spread : spreads.front();
                BaselineMetric kept{ probe.id, metric.name, between.median,   spread,
                                     samples,  metric.unit, metric.direction, {} };
                if (spread > stable_spread)
                {
                    kept.informational = "its spread (" + util::format_percent(spread, 1) +
                                         " over " + std::to_string(runs.size()) +
                                         (runs.size() == 1 ? " run" : " runs") + ") is above " +
                                         util::format_percent(stable_spread) +
                                         ", too noisy to show a 5% drop";
                }
                baseline.metrics.push_back(std::move(kept));
            }
        }
        return baseline;
    }
}
