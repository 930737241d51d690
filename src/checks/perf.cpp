#include "checks/perf.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>

#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        // Reasons that mean the clocks are held back below what the GPU could run at. "gpu_idle"
        // is the normal state of a GPU between kernels and says nothing about a slow one.
        auto is_throttling(const std::string& reason) -> bool
        {
            return reason != "gpu_idle";
        }

        // Whole numbers from 100 up, three significant digits below: 4252, 41.3, 0.812.
        auto number(double value) -> std::string
        {
            return std::fabs(value) >= 100.0
                     ? util::format_number(value, std::chars_format::fixed, 0)
                     : util::format_number(value, std::chars_format::general, 3);
        }

        auto with_unit(double value, const std::string& unit) -> std::string
        {
            std::string text = number(value);
            if (!unit.empty())
            {
                text += ' ';
                text += unit;
            }
            return text;
        }

        auto link(int generation, int width) -> std::string
        {
            return "Gen" + std::to_string(generation) + " x" + std::to_string(width);
        }
    }

    namespace
    {
        // "15%" -> 0.15, "0.15" -> 0.15; nullopt unless strictly between 0 and 1.
        auto parse_fraction(std::string_view text) -> std::optional<double>
        {
            const bool percent = text.ends_with('%');
            if (percent)
            {
                text.remove_suffix(1);
            }
            double value = 0.0;
            const auto [end, error] =
              std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || end != text.data() + text.size())
            {
                return std::nullopt;
            }
            if (percent)
            {
                value /= 100.0;
            }
            if (!(value > 0.0 && value < 1.0))
            {
                return std::nullopt;
            }
            return value;
        }

        // A probe or metric name: lowercase letters, digits, '_' and '-'.
        auto is_metric_name(std::string_view part) -> bool
        {
            const auto allowed = [](char c)
            { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; };
            return !part.empty() && std::all_of(part.begin(), part.end(), allowed);
        }

        // "<probe>.<metric>", as BaselineMetric::key() writes it.
        auto is_metric_key(std::string_view key) -> bool
        {
            const auto dot = key.find('.');
            return dot != std::string_view::npos && is_metric_name(key.substr(0, dot)) &&
                   is_metric_name(key.substr(dot + 1));
        }
    }

    auto apply_perf_tolerance(PerfTolerance& tolerance, std::string_view text) -> util::Result<void>
    {
        const auto equals = text.find('=');
        const std::string_view key =
          equals == std::string_view::npos ? std::string_view{} : text.substr(0, equals);
        const std::string_view value =
          equals == std::string_view::npos ? text : text.substr(equals + 1);
        if (equals != std::string_view::npos && !is_metric_key(key))
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::usage,
                               "--perf-tolerance: '" + std::string(key) + "' is not a metric", {},
                               "name it as <probe>.<metric>, such as bandwidth.h2d_pinned_gbps "
                               "(envcheck smoke --format json lists them)"));
        }
        const auto fraction = parse_fraction(value);
        if (!fraction)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::usage,
                               "--perf-tolerance: '" + std::string(value) +
                                 "' is not an allowed drop between 0 and 1",
                               {}, "write a percentage such as 15% or a fraction such as 0.15"));
        }
        if (key.empty())
        {
            tolerance.relative = *fraction;
        }
        else
        {
            tolerance.per_metric[std::string(key)] = *fraction;
        }
        return {};
    }

    auto PerfTolerance::for_metric(const model::BaselineMetric& metric) const -> double
    {
        if (const auto found = per_metric.find(metric.key()); found != per_metric.end())
        {
            return found->second;
        }
        return std::max(relative, spread_factor * metric.spread);
    }

    auto crosses_host_link(const model::BaselineMetric& metric) -> bool
    {
        return metric.probe == "stream-overlap" || metric.name.starts_with("h2d_") ||
               metric.name.starts_with("d2h_");
    }

    namespace
    {
        // The SM clock held back, and by what, when the facts say so.
        auto clock_cause(const model::PerfContext& context) -> std::optional<std::string>
        {
            std::vector<std::string> reasons;
            const bool clock_known = context.sm_clock_mhz_current && context.sm_clock_mhz_max;
            // A reason NVML names while the SM clock runs at its maximum (sw_power_cap on an idle
            // H200) held nothing back.
            const bool clock_at_max =
              clock_known && *context.sm_clock_mhz_current >= *context.sm_clock_mhz_max;
            if (!clock_at_max)
            {
                std::copy_if(context.clock_event_reasons.begin(), context.clock_event_reasons.end(),
                             std::back_inserter(reasons), is_throttling);
            }
            // NVML is asked before the probes run: an idle GPU's clock is down (345 of 1980 MHz
            // on an H100) and rises with the first kernel, so only a low clock that is not
            // idling says anything.
            const bool idle =
              std::find(context.clock_event_reasons.begin(), context.clock_event_reasons.end(),
                        "gpu_idle") != context.clock_event_reasons.end();
            const bool clock_low =
              clock_known && !idle &&
              *context.sm_clock_mhz_current < *context.sm_clock_mhz_max * 9 / 10;
            if (!reasons.empty() || clock_low)
            {
                std::string cause = "clocks held back";
                if (clock_known)
                {
                    cause += ": SM clock " + std::to_string(*context.sm_clock_mhz_current) +
                             " MHz of " + std::to_string(*context.sm_clock_mhz_max) + " MHz max";
                }
                if (!reasons.empty())
                {
                    cause += clock_known ? ", by " : " by ";
                    cause += util::join(reasons, ", ");
                }
                return cause;
            }
            return std::nullopt;
        }
    }

    auto likely_causes(const model::PerfContext& context, const model::PerfBaseline& baseline,
                       const model::BaselineMetric& metric) -> std::vector<std::string>
    {
        std::vector<std::string> causes;
        if (!context.gpu_name.empty() && !baseline.device_name.empty() &&
            context.gpu_name != baseline.device_name)
        {
            causes.push_back("a different GPU model: the baseline was measured on " +
                             baseline.device_name + ", this is " + context.gpu_name);
        }
        if (context.other_compute_processes && *context.other_compute_processes > 0)
        {
            const int count = *context.other_compute_processes;
            causes.push_back(std::to_string(count) + " other process" +
                             (count == 1 ? " is" : "es are") + " using the GPU");
        }
        if (auto cause = clock_cause(context))
        {
            causes.push_back(std::move(*cause));
        }
        if (crosses_host_link(metric) && context.pcie_generation_current &&
            context.pcie_generation_max && context.pcie_width_current && context.pcie_width_max &&
            (*context.pcie_generation_current < *context.pcie_generation_max ||
             *context.pcie_width_current < *context.pcie_width_max))
        {
            causes.push_back("the PCIe link trained at " +
                             link(*context.pcie_generation_current, *context.pcie_width_current) +
                             ", below its maximum " +
                             link(*context.pcie_generation_max, *context.pcie_width_max));
        }
        if (context.ecc_uncorrected_volatile && *context.ecc_uncorrected_volatile > 0)
        {
            causes.push_back(std::to_string(*context.ecc_uncorrected_volatile) +
                             " uncorrected ECC errors since the driver loaded");
        }
        if (context.ecc_corrected_volatile && *context.ecc_corrected_volatile > 0)
        {
            causes.push_back(std::to_string(*context.ecc_corrected_volatile) +
                             " corrected ECC errors since the driver loaded");
        }
        return causes;
    }

    namespace
    {
        // "(1.63 ms locked, 1.71 ms now; tolerance 4%)"; measured twice, the first run's value
        // too: "(1.63 ms locked, 1.71 ms now, 2.52 ms at first; tolerance 4%)".
        auto values_text(const model::BaselineMetric& metric, double now,
                         std::optional<double> at_first, double tolerance) -> std::string
        {
            std::string text = "(" + with_unit(metric.value, metric.unit) + " locked, " +
                               with_unit(now, metric.unit) + " now";
            if (at_first)
            {
                text += ", " + with_unit(*at_first, metric.unit) + " at first";
            }
            return text + "; tolerance " + util::format_percent(tolerance) + ")";
        }

        // (value - baseline) / baseline, signed; 0 against a baseline of 0.
        auto change_of(const model::BaselineMetric& metric, double value) -> double
        {
            return metric.value != 0.0 ? (value - metric.value) / metric.value : 0.0;
        }

        // The loss of `value` against the metric's baseline in the metric's own direction;
        // negative is a gain.
        auto drop_of(const model::BaselineMetric& metric, double value) -> double
        {
            const double change = change_of(metric, value);
            return metric.direction == model::MetricDirection::higher_is_better ? -change : change;
        }

        // One compared metric against `measured`. `at_first`: what a first run measured when
        // this is the second measurement of a drop; the better of the two is compared.
        auto compare_metric(const model::PerfBaseline& baseline,
                            const model::BaselineMetric& metric, const model::DeviceSmoke& measured,
                            const model::PerfContext& context, const PerfTolerance& tolerance,
                            std::optional<double> at_first) -> PerfComparison
        {
            PerfComparison comparison;
            comparison.baseline = metric;
            comparison.tolerance = tolerance.for_metric(metric);
            const auto probe =
              std::find_if(measured.probes.begin(), measured.probes.end(),
                           [&](const auto& candidate) { return candidate.id == metric.probe; });
            const model::Metric* fresh =
              probe == measured.probes.end() ? nullptr : probe->metric(metric.name);
            if (probe != measured.probes.end() && probe->status == model::Status::skip)
            {
                comparison.status = model::Status::skip;
                comparison.message = metric.key() + " not measured: " + probe->message;
                return comparison;
            }
            if (fresh == nullptr || probe->status != model::Status::pass ||
                !std::isfinite(fresh->value))
            {
                comparison.status = model::Status::fail;
                comparison.message =
                  metric.key() + " not measured: " +
                  (probe == measured.probes.end()
                     ? std::string("the probe did not run")
                     : std::string(model::to_string(probe->status)) + ": " + probe->message);
                return comparison;
            }
            double value = fresh->value;
            if (at_first && drop_of(metric, *at_first) < drop_of(metric, value))
            {
                value = *at_first;
            }
            comparison.measured = value;
            comparison.at_first = at_first;
            comparison.change = change_of(metric, value);
            comparison.drop = drop_of(metric, value);
            const std::string values =
              values_text(metric, fresh->value, at_first, comparison.tolerance);
            if (!metric.informational.empty())
            {
                // Reported, never failed: a drop beyond the tolerance is a warning.
                comparison.status = comparison.drop <= comparison.tolerance ? model::Status::pass
                                                                            : model::Status::warn;
                comparison.message =
                  metric.key() + " is informational, " + metric.informational + " " + values;
                return comparison;
            }
            if (comparison.drop <= comparison.tolerance)
            {
                comparison.status = model::Status::pass;
                comparison.message =
                  metric.key() +
                  (at_first ? " within tolerance when measured again " : " within tolerance ") +
                  values;
                return comparison;
            }
            comparison.status = model::Status::fail;
            comparison.causes = likely_causes(context, baseline, metric);
            comparison.message =
              metric.key() +
              (metric.direction == model::MetricDirection::higher_is_better ? " dropped "
                                                                            : " slowed ") +
              (at_first ? "at least " : "") + util::format_percent(comparison.drop) +
              (at_first ? " in two measurements " : " ") + values + "; likely cause: " +
              (comparison.causes.empty()
                 ? std::string("none found in the machine facts (clocks, PCIe link, ECC, "
                               "other processes look normal)")
                 : util::join(comparison.causes, "; "));
            return comparison;
        }

        // A comparison whose metric was measured and dropped beyond its tolerance.
        auto measured_drop(const PerfComparison& comparison) -> bool
        {
            return comparison.status == model::Status::fail && comparison.measured.has_value();
        }
    }

    auto compare_performance(const model::PerfBaseline& baseline,
                             const model::DeviceSmoke& measured, const model::PerfContext& context,
                             const PerfTolerance& tolerance) -> std::vector<PerfComparison>
    {
        std::vector<PerfComparison> comparisons;
        for (const auto& metric : baseline.metrics)
        {
            if (metric.direction != model::MetricDirection::informational)
            {
                comparisons.push_back(
                  compare_metric(baseline, metric, measured, context, tolerance, std::nullopt));
            }
        }
        return comparisons;
    }

    auto probes_to_measure_again(const std::vector<PerfComparison>& comparisons)
      -> std::vector<std::string>
    {
        std::vector<std::string> probes;
        for (const auto& comparison : comparisons)
        {
            const auto& probe = comparison.baseline.probe;
            if (measured_drop(comparison) && !comparison.at_first &&
                std::find(probes.begin(), probes.end(), probe) == probes.end())
            {
                probes.push_back(probe);
            }
        }
        return probes;
    }

    auto confirm_drops(std::vector<PerfComparison> comparisons, const model::PerfBaseline& baseline,
                       const model::DeviceSmoke& again, const model::PerfContext& context,
                       const PerfTolerance& tolerance) -> std::vector<PerfComparison>
    {
        for (auto& comparison : comparisons)
        {
            if (!measured_drop(comparison) || comparison.at_first)
            {
                continue;
            }
            auto second = compare_metric(baseline, comparison.baseline, again, context, tolerance,
                                         comparison.measured);
            if (second.measured)
            {
                comparison = std::move(second);
            }
            else
            {
                // Not measured the second time (the probe failed or was spared): the first
                // run's drop stands, with why it could not be confirmed.
                comparison.message += "; measured again: " + second.message;
            }
        }
        return comparisons;
    }

    auto to_check_outcomes(const std::vector<PerfComparison>& comparisons, int device_index)
      -> std::vector<model::CheckOutcome>
    {
        std::vector<model::CheckOutcome> outcomes;
        for (const auto& comparison : comparisons)
        {
            model::CheckOutcome outcome;
            outcome.id = "perf." + comparison.baseline.key();
            outcome.status = comparison.status;
            outcome.message = comparison.message;
            // unit and direction: fixed per metric (no new series for fleet tooling); the HTML
            // report draws the tolerance band on the side the direction says.
            outcome.labels = { { "gpu", std::to_string(device_index) },
                               { "unit", comparison.baseline.unit },
                               { "direction",
                                 std::string(model::to_string(comparison.baseline.direction)) } };
            outcome.metrics["baseline"] = comparison.baseline.value;
            outcome.metrics["tolerance"] = comparison.tolerance;
            if (comparison.measured)
            {
                outcome.metrics["measured"] = *comparison.measured;
                outcome.metrics["change"] = comparison.change;
            }
            if (comparison.at_first)
            {
                outcome.metrics["measured_at_first"] = *comparison.at_first;
            }
            if (comparison.status == model::Status::fail)
            {
                outcome.fix = comparison.causes.empty()
                                ? "rerun 'envcheck smoke --full' on a quiet machine to see "
                                  "every probe; if it holds, relock on purpose with 'envcheck "
                                  "lock'"
                                : "address the cause above, then rerun 'envcheck check'";
            }
            outcomes.push_back(std::move(outcome));
        }
        return outcomes;
    }
}
