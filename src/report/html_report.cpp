#include "report/html_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "report/markup.hpp"
#include "report/numbers.hpp"
#include "report/svg_plot.hpp"
#include "util/strings.hpp"

namespace envcheck::report
{
    namespace
    {
        // Colours by role, light and dark; the SVG elements take them through their classes.
        constexpr std::string_view stylesheet =
          ":root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--grid:#d1d9e0;\n"
          "--pass:#1a7f37;--warn:#9a6700;--fail:#cf222e;--skip:#6e7781;--error:#8250df;\n"
          "--band:rgba(84,174,255,.28);--row:#f6f8fa;--s0:#0969da;--s1:#cf222e;--s2:#1a7f37;\n"
          "--s3:#9a6700;--s4:#8250df;--s5:#bc4c00;--s6:#1b7c83;--s7:#6e7781}\n"
          "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;\n"
          "--grid:#30363d;--pass:#3fb950;--warn:#d29922;--fail:#f85149;--skip:#9198a1;\n"
          "--error:#ab7df8;--band:rgba(56,139,253,.32);--row:#151b23;--s0:#58a6ff;--s1:#ff7b72;\n"
          "--s2:#3fb950;--s3:#d29922;--s4:#bc8cff;--s5:#f0883e;--s6:#39c5cf;--s7:#9198a1}}body{\n"
          "font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;background:var(--bg);\n"
          "color:var(--fg);margin:24px auto;max-width:1200px;padding:0 16px}h1{font-size:22px;\n"
          "margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:15px;\n"
          "margin:18px 0 6px}.facts{color:var(--muted);margin:0 0 12px;padding:0;\n"
          "list-style:none}.verdict{display:inline-block;padding:2px 10px;border-radius:12px;\n"
          "color:var(--bg);font-weight:600;background:var(--c)}.figure{display:flex;\n"
          "flex-wrap:wrap;gap:16px;align-items:flex-start}.figure>.plot-box{flex:1 1 560px;\n"
          "max-width:760px;min-width:0}.figure>.table-box{flex:0 1 auto;overflow-x:auto}\n"
          ".callout{border-left:4px solid var(--c);padding:4px 12px;margin:8px 0 12px}table{\n"
          "border-collapse:collapse;margin:4px 0 12px;font-size:13px}th,td{text-align:left;\n"
          "padding:3px 8px;border-bottom:1px solid var(--grid);vertical-align:top}th{\n"
          "font-weight:600}tbody tr:nth-child(even){background:var(--row)}td.num{\n"
          "text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.status{\n"
          "color:var(--c);font-weight:600;white-space:nowrap}.fix{color:var(--muted)}.pass{\n"
          "--c:var(--pass)}.warn{--c:var(--warn)}.fail{--c:var(--fail)}.skip{--c:var(--skip)}\n"
          ".error{--c:var(--error)}.s0{--c:var(--s0)}.s1{--c:var(--s1)}.s2{--c:var(--s2)}.s3{\n"
          "--c:var(--s3)}.s4{--c:var(--s4)}.s5{--c:var(--s5)}.s6{--c:var(--s6)}.s7{\n"
          "--c:var(--s7)}svg.plot{width:100%;height:auto;font:12px system-ui,sans-serif;\n"
          "display:block}svg text{fill:var(--fg)}svg .tick,svg .axis-label{fill:var(--muted)}\n"
          "svg .plot-title{font-weight:600}svg .axis{stroke:var(--fg)}svg .grid{\n"
          "stroke:var(--grid)}svg .series{fill:none;stroke:var(--c);stroke-width:2}svg .point{\n"
          "fill:var(--c)}svg .legend-line{stroke:var(--c);stroke-width:3}svg .band{\n"
          "fill:var(--band)}svg .bar{fill:var(--c)}svg .reference{stroke:var(--fg);\n"
          "stroke-width:2}svg .bar-value.fail,svg .bar-value.skip{fill:var(--c)}svg .node rect{\n"
          "fill:var(--bg);stroke:var(--c);stroke-width:2}svg .node.broken rect{stroke-width:5}\n"
          "svg .node-label{font-weight:600}svg .node-status{fill:var(--c)}svg .broken-label{\n"
          "fill:var(--fail);font-weight:600}svg .link{stroke:var(--muted);stroke-width:2}\n"
          "svg .link.after-break{stroke-dasharray:4 4}svg .arrow-head{fill:var(--muted)}\n";

        auto escape(std::string_view text) -> std::string
        {
            return xml_escape(text);
        }

        // A page: the title, the verdict, the facts under it, then the sections.
        auto page(const std::string& title, model::Status verdict, const std::string& verdict_text,
                  const std::vector<std::string>& facts, const std::string& body) -> std::string
        {
            std::string out =
              "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
              "style-src 'unsafe-inline'\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta name=\"generator\" content=\"envcheck\">\n<title>" +
              escape(title) + "</title>\n<style>" + std::string(stylesheet) +
              "</style>\n</head>\n<body>\n<h1>" + escape(title) + " <span class=\"verdict " +
              std::string(model::to_string(verdict)) + "\">" + escape(verdict_text) +
              "</span></h1>\n<ul class=\"facts\">\n";
            for (const auto& fact : facts)
            {
                out += "<li>" + escape(fact) + "</li>\n";
            }
            return out + "</ul>\n" + body + "</body>\n</html>\n";
        }

        struct Cell
        {
            std::string text;
            std::string css_class; // "num", "status pass", "fix", ...
        };

        auto status_cell(model::Status status) -> Cell
        {
            return { std::string(model::to_string(status)),
                     "status " + std::string(model::to_string(status)) };
        }

        auto number_cell(const std::string& text) -> Cell
        {
            return { text, "num" };
        }

        auto table(const std::string& caption, const std::vector<std::string>& headers,
                   const std::vector<std::vector<Cell>>& rows) -> std::string
        {
            std::string out = "<table>\n";
            if (!caption.empty())
            {
                out += "<caption>" + escape(caption) + "</caption>\n";
            }
            out += "<thead><tr>";
            for (const auto& header : headers)
            {
                out += "<th scope=\"col\">" + escape(header) + "</th>";
            }
            out += "</tr></thead>\n<tbody>\n";
            for (const auto& row : rows)
            {
                out += "<tr>";
                for (const auto& cell : row)
                {
                    out +=
                      cell.css_class.empty() ? "<td>" : "<td class=\"" + cell.css_class + "\">";
                    out += escape(cell.text) + "</td>";
                }
                out += "</tr>\n";
            }
            return out + "</tbody>\n</table>\n";
        }

        auto figure(const std::string& plot, const std::string& numbers) -> std::string
        {
            return "<div class=\"figure\">\n<div class=\"plot-box\">\n" + plot +
                   "</div>\n<div class=\"table-box\">\n" + numbers + "</div>\n</div>\n";
        }

        auto section(const std::string& heading, const std::string& content) -> std::string
        {
            return "<h2>" + escape(heading) + "</h2>\n" + content;
        }

        auto percent(double fraction) -> std::string
        {
            return format_number(100.0 * fraction, std::chars_format::fixed, 1) + "%";
        }

        auto size_text(std::uint64_t bytes) -> std::string
        {
            constexpr std::uint64_t mib = std::uint64_t{ 1024 } * 1024;
            return bytes >= mib && bytes % mib == 0 ? std::to_string(bytes / mib) + " MiB"
                                                    : std::to_string(bytes / 1024) + " KiB";
        }

        auto tally_text(const std::array<std::size_t, 5>& counts) -> std::string
        {
            std::string text;
            for (const auto status :
                 { model::Status::pass, model::Status::warn, model::Status::fail,
                   model::Status::error, model::Status::skip })
            {
                if (const auto n = counts[static_cast<std::size_t>(status)]; n > 0)
                {
                    text += (text.empty() ? "" : ", ") + std::to_string(n) + " " +
                            std::string(model::to_string(status));
                }
            }
            return text;
        }

        auto outcome_rows(const std::vector<model::CheckOutcome>& outcomes)
          -> std::vector<std::vector<Cell>>
        {
            std::vector<std::vector<Cell>> rows;
            rows.reserve(outcomes.size());
            for (const auto& outcome : outcomes)
            {
                rows.push_back({ status_cell(outcome.status),
                                 { outcome.id, {} },
                                 { outcome.message, {} },
                                 { outcome.fix, "fix" } });
            }
            return rows;
        }

        // ---- smoke ------------------------------------------------------------------------

        auto sweep_size(std::string_view label) -> std::optional<std::uint64_t>
        {
            if (label.size() < 2)
            {
                return std::nullopt;
            }
            const char unit = label.back();
            const auto number = util::parse_uint(label.substr(0, label.size() - 1));
            if (!number || (unit != 'k' && unit != 'm') || *number > (1ull << 30))
            {
                return std::nullopt;
            }
            return *number * (unit == 'k' ? 1024ull : 1024ull * 1024ull);
        }

        auto bandwidth_figure(const std::vector<SweepSeries>& sweep) -> std::string
        {
            svg::LinePlot plot;
            plot.title = "Bandwidth against transfer size";
            std::vector<double> sizes;
            std::vector<double> rates;
            std::map<std::uint64_t, std::map<std::string, double>> by_size;
            for (const auto& series : sweep)
            {
                svg::Series line{ series.kind, {} };
                for (const auto& point : series.points)
                {
                    line.points.push_back({ static_cast<double>(point.bytes), point.gbps });
                    sizes.push_back(static_cast<double>(point.bytes));
                    rates.push_back(point.gbps);
                    by_size[point.bytes][series.kind] = point.gbps;
                }
                plot.series.push_back(std::move(line));
            }
            plot.x.label = "transfer size";
            plot.x.log = true;
            plot.x.min = *std::min_element(sizes.begin(), sizes.end());
            plot.x.max = *std::max_element(sizes.begin(), sizes.end());
            if (plot.x.max <= plot.x.min)
            {
                plot.x.max = plot.x.min * 4.0;
            }
            for (const auto& [bytes, row] : by_size)
            {
                plot.x.ticks.push_back({ static_cast<double>(bytes), size_text(bytes) });
            }
            plot.y = svg::fit_axis("GB/s", true, rates);
            std::vector<std::string> headers{ "size" };
            for (const auto& series : sweep)
            {
                headers.push_back(series.kind + " GB/s");
            }
            std::vector<std::vector<Cell>> rows;
            for (const auto& [bytes, row] : by_size)
            {
                std::vector<Cell> cells{ number_cell(size_text(bytes)) };
                for (const auto& series : sweep)
                {
                    const auto found = row.find(series.kind);
                    cells.push_back(
                      number_cell(found == row.end() ? "" : metric_value(found->second)));
                }
                rows.push_back(std::move(cells));
            }
            return figure(svg::line_plot(plot), table("", headers, rows));
        }

        // The probe's metrics; with `swept`, not those of its sweep (the table beside the plot
        // has them).
        auto metrics_text(const model::ProbeResult& probe, bool swept) -> std::string
        {
            std::vector<std::string> parts;
            for (const auto& metric : probe.metrics)
            {
                if (swept && metric.name.find("_gbps_") != std::string::npos)
                {
                    continue;
                }
                std::string part = metric.name + " " + metric_value(metric.value);
                if (!metric.unit.empty())
                {
                    part += " " + metric.unit;
                }
                if (metric.samples > 1)
                {
                    part += " (spread " + percent(metric.spread) + " of " +
                            std::to_string(metric.samples) + ")";
                }
                parts.push_back(std::move(part));
            }
            return util::join(parts, "; ");
        }

        auto device_section(const model::DeviceSmoke& smoke) -> std::string
        {
            const auto& device = smoke.device;
            std::string heading = "GPU " + std::to_string(device.index) + ": " + device.name;
            std::string facts =
              device.architecture().value_or("architecture unknown") + ", " +
              (device.multiprocessors ? std::to_string(*device.multiprocessors) : "?") + " SMs, " +
              (device.memory_bytes ? format_bytes(*device.memory_bytes) : "? GiB") + ", PCI " +
              device.pci_bus_id + (device.uuid.empty() ? "" : ", " + device.uuid);
            std::string out = "<p class=\"facts\">" + escape(facts) + "</p>\n";
            bool swept = false;
            for (const auto& probe : smoke.probes)
            {
                const auto sweep = bandwidth_sweep(probe);
                if (probe.id == "bandwidth" && !sweep.empty())
                {
                    out += bandwidth_figure(sweep);
                    swept = true;
                }
            }
            std::vector<std::vector<Cell>> rows;
            for (const auto& probe : smoke.probes)
            {
                rows.push_back(
                  { status_cell(probe.status),
                    { probe.id, {} },
                    { probe.message, {} },
                    number_cell(format_number(probe.duration_seconds, std::chars_format::fixed, 2)),
                    { metrics_text(probe, swept && probe.id == "bandwidth"), {} } });
            }
            out += "<h3>Probes</h3>\n" +
                   table("", { "status", "probe", "result", "seconds", "metrics" }, rows);
            return section(heading, out);
        }

        auto smoke_counts(const model::SmokeReport& report) -> std::array<std::size_t, 5>
        {
            std::array<std::size_t, 5> counts{};
            for (const auto& device : report.devices)
            {
                for (const auto& probe : device.probes)
                {
                    ++counts[static_cast<std::size_t>(probe.status)];
                }
            }
            return counts;
        }

        // ---- check ------------------------------------------------------------------------

        auto label_of(const model::CheckOutcome& outcome, const std::string& key) -> std::string
        {
            const auto found = outcome.labels.find(key);
            return found == outcome.labels.end() ? std::string() : found->second;
        }

        auto metric_of(const model::CheckOutcome& outcome, const std::string& key)
          -> std::optional<double>
        {
            const auto found = outcome.metrics.find(key);
            if (found == outcome.metrics.end() || !std::isfinite(found->second))
            {
                return std::nullopt;
            }
            return found->second;
        }

        auto with_unit(double value, const std::string& unit) -> std::string
        {
            return metric_value(value) + (unit.empty() ? "" : " " + unit);
        }

        // Each metric as a percentage of its baseline (so TFLOP/s, GB/s and ms share one axis),
        // the band the tolerated drop allows on the side its direction says.
        auto performance_section(const std::vector<model::CheckOutcome>& performance) -> std::string
        {
            svg::BandBarPlot plot;
            plot.title = "Measured against the locked baseline (100%), tolerance band shaded";
            std::vector<double> extent{ 0.0, 100.0 };
            std::vector<std::vector<Cell>> rows;
            for (const auto& outcome : performance)
            {
                const auto baseline = metric_of(outcome, "baseline");
                if (!baseline)
                {
                    continue; // no metric ("no GPU could be probed"): the table below has it
                }
                const auto tolerance = metric_of(outcome, "tolerance").value_or(0.0);
                const auto measured = metric_of(outcome, "measured");
                const auto unit = label_of(outcome, "unit");
                const bool lower_is_better = label_of(outcome, "direction") == "lower_is_better";
                const std::string name =
                  outcome.id.rfind("perf.", 0) == 0 ? outcome.id.substr(5) : outcome.id;
                svg::BandBar bar;
                bar.label = name;
                bar.reference = 100.0;
                bar.band_low = lower_is_better ? 100.0 : 100.0 * (1.0 - tolerance);
                bar.band_high = lower_is_better ? 100.0 * (1.0 + tolerance) : 100.0;
                bar.css_class = std::string(model::to_string(outcome.status));
                if (measured && *baseline != 0.0)
                {
                    bar.value = 100.0 * *measured / *baseline;
                    bar.value_label = with_unit(*measured, unit) + " (" +
                                      format_number(*bar.value, std::chars_format::fixed, 1) + "%)";
                    extent.push_back(*bar.value);
                }
                else
                {
                    bar.value_label = "not measured";
                }
                extent.push_back(bar.band_high);
                plot.bars.push_back(std::move(bar));
                rows.push_back({ status_cell(outcome.status),
                                 { name, {} },
                                 { label_of(outcome, "gpu"), "num" },
                                 number_cell(with_unit(*baseline, unit)),
                                 number_cell(measured ? with_unit(*measured, unit) : ""),
                                 number_cell(metric_of(outcome, "change")
                                               ? percent(*metric_of(outcome, "change"))
                                               : ""),
                                 number_cell((lower_is_better ? "+" : "-") + percent(tolerance)) });
            }
            plot.x = svg::fit_axis("% of the locked baseline", false, extent);
            std::string out =
              plot.bars.empty()
                ? ""
                : figure(svg::band_bar_plot(plot), table("",
                                                         { "status", "metric", "GPU", "locked",
                                                           "measured", "change", "tolerance" },
                                                         rows));
            std::vector<model::CheckOutcome> explained;
            std::copy_if(performance.begin(), performance.end(), std::back_inserter(explained),
                         [](const auto& outcome) { return outcome.status != model::Status::pass; });
            if (!explained.empty())
            {
                out +=
                  table("", { "status", "check", "what was seen", "fix" }, outcome_rows(explained));
            }
            return section("Performance", out);
        }

        auto package_version(const model::PackageRef& package) -> std::string
        {
            if (!package)
            {
                return "";
            }
            return package->version + (package->build.empty() ? "" : " " + package->build);
        }

        auto packages_section(const model::EnvironmentCheck& check) -> std::string
        {
            std::vector<std::vector<Cell>> rows;
            for (const auto& finding : check.packages)
            {
                const bool ok = finding.status == model::PackageStatus::ok;
                std::string reason = finding.reason;
                for (const auto& note : finding.notes)
                {
                    reason += (reason.empty() ? "note: " : "; note: ") + note;
                }
                std::string wanted = finding.spec.value_or("");
                if (finding.expected)
                {
                    wanted += (wanted.empty() ? "locked " : "; locked ") +
                              package_version(finding.expected);
                }
                rows.push_back(
                  { status_cell(ok ? model::Status::pass : model::Status::fail),
                    { std::string(model::to_string(finding.status)), {} },
                    { std::string(model::to_string(finding.manager)), {} },
                    { finding.name, {} },
                    { package_version(finding.installed), {} },
                    { wanted, {} },
                    { reason, {} },
                    { finding.spec_location.known() ? finding.spec_location.to_string() : "",
                      {} } });
            }
            return section("Packages", table("",
                                             { "status", "finding", "manager", "name", "installed",
                                               "wanted", "why", "where" },
                                             rows));
        }

        auto files_section(const model::EnvironmentCheck& check) -> std::string
        {
            std::vector<std::vector<Cell>> rows;
            for (const auto& file : check.files)
            {
                rows.push_back({ status_cell(model::is_failure(file.status) ? model::Status::fail
                                                                            : model::Status::warn),
                                 { std::string(model::to_string(file.status)), {} },
                                 { file.package, {} },
                                 { file.path, {} },
                                 { file.detail, {} } });
            }
            const std::string summary = std::to_string(check.deep_summary.files_checked) +
                                        " files checked, " + std::to_string(check.files.size()) +
                                        " findings";
            return section("Files (--deep)",
                           "<p>" + escape(summary) + "</p>\n" +
                             table("", { "status", "finding", "package", "path", "detail" }, rows));
        }

        // ---- doctor -----------------------------------------------------------------------

        auto worst(model::Status current, model::Status next) -> model::Status
        {
            // The order a stage's checks decide its colour in: a failure over a warning over a
            // pass over a skip.
            const auto rank = [](model::Status status)
            {
                switch (status)
                {
                    case model::Status::error:
                        return 4;
                    case model::Status::fail:
                        return 3;
                    case model::Status::warn:
                        return 2;
                    case model::Status::pass:
                        return 1;
                    case model::Status::skip:
                        return 0;
                }
                return 0;
            };
            return rank(next) > rank(current) ? next : current;
        }

        auto doctor_chain(const DoctorView& view) -> std::string
        {
            const auto* broken = first_broken_link(view);
            std::vector<std::string> order;
            std::map<std::string, model::Status> status;
            std::map<std::string, std::vector<std::string>> members;
            std::string broken_stage;
            for (const auto& outcome : view.outcomes)
            {
                const auto stage = label_of(outcome, "stage").empty() ? std::string("other")
                                                                      : label_of(outcome, "stage");
                if (status.find(stage) == status.end())
                {
                    order.push_back(stage);
                    status[stage] = model::Status::skip;
                }
                status[stage] = worst(status[stage], outcome.status);
                members[stage].push_back(outcome.id + ": " +
                                         std::string(model::to_string(outcome.status)));
                if (&outcome == broken)
                {
                    broken_stage = stage;
                }
            }
            std::vector<svg::ChainNode> nodes;
            nodes.reserve(order.size());
            for (const auto& stage : order)
            {
                nodes.push_back({ stage, std::string(model::to_string(status[stage])),
                                  util::join(members[stage], "\n"), stage == broken_stage });
            }
            return svg::chain("From hardware to framework", nodes);
        }
    }

    auto bandwidth_sweep(const model::ProbeResult& probe) -> std::vector<SweepSeries>
    {
        std::vector<SweepSeries> sweep;
        constexpr std::string_view marker = "_gbps_";
        for (const auto& metric : probe.metrics)
        {
            const auto at = metric.name.rfind(marker);
            if (at == std::string::npos || at == 0)
            {
                continue;
            }
            const auto bytes = sweep_size(std::string_view(metric.name).substr(at + marker.size()));
            if (!bytes || !std::isfinite(metric.value))
            {
                continue;
            }
            const auto kind = metric.name.substr(0, at);
            auto series = std::find_if(sweep.begin(), sweep.end(),
                                       [&](const SweepSeries& s) { return s.kind == kind; });
            if (series == sweep.end())
            {
                sweep.push_back({ kind, {} });
                series = std::prev(sweep.end());
            }
            series->points.push_back({ *bytes, metric.value });
        }
        for (auto& series : sweep)
        {
            std::sort(series.points.begin(), series.points.end(),
                      [](const SweepPoint& a, const SweepPoint& b) { return a.bytes < b.bytes; });
        }
        return sweep;
    }

    auto render_smoke_html(const model::SmokeReport& report) -> std::string
    {
        std::vector<std::string> facts{
            "mode: " + std::string(model::to_string(report.mode)),
            "CUDA runtime " +
              (report.runtime_cuda ? report.runtime_cuda->to_string() : std::string("none")) +
              ", driver supports CUDA " +
              (report.driver_cuda ? report.driver_cuda->to_string() : std::string("unknown")),
        };
        std::string body;
        model::Status verdict = model::Status::pass;
        std::string verdict_text = "pass";
        if (report.availability != model::GpuAvailability::available)
        {
            verdict = model::Status::fail;
            verdict_text = "no GPU probes ran";
            body = section("Why no probe ran", "<p>" + escape(report.diagnosis) + "</p>\n");
        }
        else
        {
            const auto counts = smoke_counts(report);
            facts.push_back(tally_text(counts) + " in " +
                            format_number(report.duration_seconds, std::chars_format::fixed, 2) +
                            " s");
            if (!report.passed())
            {
                verdict = model::Status::fail;
                verdict_text = "fail";
            }
            for (const auto& device : report.devices)
            {
                body += device_section(device);
            }
        }
        return page("envcheck smoke", verdict, verdict_text, facts, body);
    }

    auto render_check_html(const model::EnvironmentCheck& check) -> std::string
    {
        std::vector<std::string> facts;
        if (!check.prefix.empty())
        {
            facts.push_back("prefix: " + check.prefix);
        }
        if (check.environment_file)
        {
            facts.push_back("environment file: " + *check.environment_file);
        }
        if (check.lock_file)
        {
            facts.push_back("lock: " + *check.lock_file +
                            (check.lock_format ? " (" + *check.lock_format + ")" : ""));
        }
        for (const auto& note : check.notes)
        {
            facts.push_back("note: " + note);
        }
        std::string body;
        if (!check.performance.empty())
        {
            body += performance_section(check.performance);
        }
        if (!check.machine.empty())
        {
            body += section("Machine", table("", { "status", "check", "what was seen", "fix" },
                                             outcome_rows(check.machine)));
        }
        body += packages_section(check);
        if (check.deep)
        {
            body += files_section(check);
        }
        if (!check.problems.empty())
        {
            std::vector<std::vector<Cell>> rows;
            for (const auto& problem : check.problems)
            {
                rows.push_back({ status_cell(model::Status::error), { problem.to_string(), {} } });
            }
            body += section("Unreadable", table("", { "status", "problem" }, rows));
        }
        const bool passed = check.passed();
        return page("envcheck check", passed ? model::Status::pass : model::Status::fail,
                    passed ? "pass" : "drift", facts, body);
    }

    auto render_doctor_html(const DoctorView& view) -> std::string
    {
        const auto* broken = first_broken_link(view);
        std::vector<std::string> facts;
        if (view.environment)
        {
            facts.push_back("environment: " + *view.environment);
        }
        facts.push_back(broken == nullptr
                          ? std::string("CUDA is usable") +
                              (view.environment ? " by this environment" : "")
                          : "first broken link: " + broken->id + " (" + broken->message + ")");
        std::vector<std::vector<Cell>> rows;
        for (const auto& outcome : view.outcomes)
        {
            rows.push_back({ { label_of(outcome, "stage"), {} },
                             status_cell(outcome.status),
                             { outcome.id, &outcome == broken ? "status fail" : "" },
                             { outcome.message, {} },
                             { outcome.fix, "fix" } });
        }
        const std::string callout =
          broken == nullptr
            ? ""
            : "<p class=\"callout fail\"><strong>First broken link: " + escape(broken->id) +
                "</strong>. " + escape(broken->message) +
                (broken->fix.empty() ? "" : "<br>Fix: " + escape(broken->fix)) + "</p>\n";
        const std::string body = section(
          "The chain", doctor_chain(view) + callout +
                         table("", { "stage", "status", "check", "what was seen", "fix" }, rows));
        return page("envcheck doctor",
                    broken == nullptr ? model::Status::pass : model::Status::fail,
                    broken == nullptr ? "pass" : "fail", facts, body);
    }
}
