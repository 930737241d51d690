#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>

#include "report/markup.hpp"
#include "report/numbers.hpp"

namespace envcheck::report::svg
{
    namespace
    {
        // The drawing's own coordinates; CSS scales the <svg> to the page's width.
        constexpr double width = 720.0;
        constexpr double line_height = 360.0;
        constexpr double left = 64.0;
        constexpr double plot_right = 560.0; // the legend is right of it
        constexpr double top = 32.0;
        constexpr double bottom_margin = 48.0;
        constexpr int palette_size = 8;

        auto coordinate(double value) -> std::string
        {
            return format_number(value, std::chars_format::fixed, 1);
        }

        auto usable(const Axis& axis, double value) -> bool
        {
            return std::isfinite(value) && (!axis.log || value > 0.0);
        }

        // Maps the axis' range onto [from, to] pixels.
        struct Scale
        {
            const Axis& axis;
            double from;
            double to;

            [[nodiscard]] auto at(double value) const -> double
            {
                const auto position = [&](double v) { return axis.log ? std::log10(v) : v; };
                const double low = position(axis.min);
                const double high = position(axis.max);
                const double clamped = std::clamp(value, axis.min, axis.max);
                const double share = high > low ? (position(clamped) - low) / (high - low) : 0.0;
                return from + share * (to - from);
            }
        };

        auto linear_step(double span) -> double
        {
            const double raw = span / 5.0;
            const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
            for (const double factor : { 1.0, 2.0, 5.0 })
            {
                if (factor * magnitude >= raw)
                {
                    return factor * magnitude;
                }
            }
            return 10.0 * magnitude;
        }

        auto text(double x, double y, const std::string& css_class, const std::string& content,
                  const char* anchor = "middle") -> std::string
        {
            return "<text class=\"" + css_class + "\" x=\"" + coordinate(x) + "\" y=\"" +
                   coordinate(y) + "\" text-anchor=\"" + anchor + "\">" + xml_escape(content) +
                   "</text>\n";
        }

        auto line(double x1, double y1, double x2, double y2, const std::string& css_class)
          -> std::string
        {
            return "<line class=\"" + css_class + "\" x1=\"" + coordinate(x1) + "\" y1=\"" +
                   coordinate(y1) + "\" x2=\"" + coordinate(x2) + "\" y2=\"" + coordinate(y2) +
                   "\"/>\n";
        }

        auto rect(double x, double y, double w, double h, const std::string& css_class,
                  const std::string& tooltip = {}) -> std::string
        {
            std::string out = "<rect class=\"" + css_class + "\" x=\"" + coordinate(x) + "\" y=\"" +
                              coordinate(y) + "\" width=\"" + coordinate(std::max(0.0, w)) +
                              "\" height=\"" + coordinate(std::max(0.0, h)) + "\"";
            if (tooltip.empty())
            {
                return out + "/>\n";
            }
            return out + "><title>" + xml_escape(tooltip) + "</title></rect>\n";
        }

        auto open_svg(const std::string& css_class, double height, const std::string& title)
          -> std::string
        {
            return "<svg class=\"plot " + css_class + "\" viewBox=\"0 0 " + coordinate(width) +
                   " " + coordinate(height) +
                   "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>" +
                   xml_escape(title) + "</title>\n" +
                   text(left, 20.0, "plot-title", title, "start");
        }

        // Grid lines and labels of a horizontal axis along y = `baseline`, spanning up to `upper`.
        auto x_axis(const Axis& axis, const Scale& scale, double baseline, double upper)
          -> std::string
        {
            std::string out = line(scale.from, baseline, scale.to, baseline, "axis");
            for (const auto& tick : axis.ticks)
            {
                const double x = scale.at(tick.value);
                out += line(x, upper, x, baseline, "grid");
                out += text(x, baseline + 16.0, "tick", tick.label);
            }
            out += text((scale.from + scale.to) / 2.0, baseline + 38.0, "axis-label", axis.label);
            return out;
        }

        auto y_axis(const Axis& axis, const Scale& scale, double right) -> std::string
        {
            std::string out = line(left, scale.from, left, scale.to, "axis");
            for (const auto& tick : axis.ticks)
            {
                const double y = scale.at(tick.value);
                out += line(left, y, right, y, "grid");
                out += text(left - 6.0, y + 4.0, "tick", tick.label, "end");
            }
            out += "<text class=\"axis-label\" transform=\"translate(16 " +
                   coordinate((scale.from + scale.to) / 2.0) +
                   ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(axis.label) + "</text>\n";
            return out;
        }

        // A stage's name in a node: on two lines when it is longer than the node is wide
        // ("driver library", "hardware health"), split at its last space.
        auto node_label(double centre, double node_top, const std::string& label) -> std::string
        {
            constexpr std::size_t fits = 13;
            const auto space = label.rfind(' ');
            if (label.size() <= fits || space == std::string::npos)
            {
                return text(centre, node_top + 24.0, "node-label", label);
            }
            return text(centre, node_top + 17.0, "node-label", label.substr(0, space)) +
                   text(centre, node_top + 31.0, "node-label", label.substr(space + 1));
        }

        auto series_class(std::size_t index) -> std::string
        {
            return "s" + std::to_string(index % palette_size);
        }
    }

    auto fit_axis(std::string label, bool log, const std::vector<double>& values) -> Axis
    {
        Axis axis;
        axis.label = std::move(label);
        axis.log = log;
        std::vector<double> kept;
        std::copy_if(values.begin(), values.end(), std::back_inserter(kept),
                     [&](double value) { return usable(axis, value); });
        if (kept.empty())
        {
            axis.min = log ? 1.0 : 0.0;
            axis.max = log ? 10.0 : 1.0;
        }
        else
        {
            const auto [low, high] = std::minmax_element(kept.begin(), kept.end());
            axis.min = log ? *low : std::min(0.0, *low);
            axis.max = *high;
        }
        if (log)
        {
            const double first = std::floor(std::log10(axis.min));
            const double last = std::max(first + 1.0, std::ceil(std::log10(axis.max)));
            axis.min = std::pow(10.0, first);
            axis.max = std::pow(10.0, last);
            for (double power = first; power <= last; power += 1.0)
            {
                const double value = std::pow(10.0, power);
                axis.ticks.push_back({ value, metric_value(value) });
            }
            return axis;
        }
        if (axis.max <= axis.min)
        {
            axis.max = axis.min + 1.0;
        }
        const double step = linear_step(axis.max - axis.min);
        axis.min = std::floor(axis.min / step) * step;
        axis.max = std::ceil(axis.max / step) * step;
        for (double value = axis.min; value <= axis.max + step / 2.0; value += step)
        {
            axis.ticks.push_back({ value, metric_value(value) });
        }
        return axis;
    }

    auto line_plot(const LinePlot& plot) -> std::string
    {
        const double bottom = line_height - bottom_margin;
        const Scale x{ plot.x, left, plot_right };
        const Scale y{ plot.y, bottom, top };
        std::string out = open_svg("line-plot", line_height, plot.title);
        out += x_axis(plot.x, x, bottom, top);
        out += y_axis(plot.y, y, plot_right);
        for (std::size_t index = 0; index < plot.series.size(); ++index)
        {
            const auto& series = plot.series[index];
            const auto colour = series_class(index);
            std::string points;
            std::string markers;
            for (const auto& point : series.points)
            {
                if (!usable(plot.x, point.x) || !usable(plot.y, point.y))
                {
                    continue;
                }
                const auto px = coordinate(x.at(point.x));
                const auto py = coordinate(y.at(point.y));
                points.append(points.empty() ? "" : " ").append(px).append(",").append(py);
                markers.append("<circle class=\"point ")
                  .append(colour)
                  .append("\" cx=\"")
                  .append(px)
                  .append("\" cy=\"")
                  .append(py)
                  .append("\" r=\"3\"><title>")
                  .append(xml_escape(series.name))
                  .append(": ")
                  .append(metric_value(point.y))
                  .append(" ")
                  .append(xml_escape(plot.y.label))
                  .append("</title></circle>\n");
            }
            if (points.empty())
            {
                continue;
            }
            out.append("<polyline class=\"series ")
              .append(colour)
              .append("\" points=\"")
              .append(points)
              .append("\"/>\n")
              .append(markers);
            const double legend_y = top + 8.0 + 20.0 * static_cast<double>(index);
            out += line(plot_right + 16.0, legend_y, plot_right + 36.0, legend_y,
                        "legend-line " + colour);
            out += text(plot_right + 42.0, legend_y + 4.0, "legend", series.name, "start");
        }
        return out + "</svg>\n";
    }

    auto band_bar_plot(const BandBarPlot& plot) -> std::string
    {
        constexpr double row = 28.0;
        constexpr double label_right = 250.0;
        constexpr double bars_right = 640.0;
        const double bottom = top + row * static_cast<double>(plot.bars.size()) + 8.0;
        const Scale x{ plot.x, label_right + 8.0, bars_right };
        std::string out = open_svg("band-plot", bottom + bottom_margin, plot.title);
        out += x_axis(plot.x, x, bottom, top);
        for (std::size_t index = 0; index < plot.bars.size(); ++index)
        {
            const auto& bar = plot.bars[index];
            const double y = top + 8.0 + row * static_cast<double>(index);
            out += text(label_right, y + row / 2.0, "bar-label", bar.label, "end");
            const double band_from = x.at(bar.band_low);
            out += rect(band_from, y + 2.0, x.at(bar.band_high) - band_from, row - 4.0, "band");
            if (bar.value)
            {
                const double end = x.at(*bar.value);
                out += rect(x.from, y + 7.0, end - x.from, row - 14.0, "bar " + bar.css_class,
                            bar.label + ": " + bar.value_label);
                out += text(end + 4.0, y + row / 2.0 + 4.0, "bar-value", bar.value_label, "start");
            }
            else
            {
                out += text(x.from + 4.0, y + row / 2.0 + 4.0, "bar-value " + bar.css_class,
                            bar.value_label, "start");
            }
            const double reference = x.at(bar.reference);
            out += line(reference, y, reference, y + row, "reference");
        }
        return out + "</svg>\n";
    }

    auto chain(const std::string& title, const std::vector<ChainNode>& nodes) -> std::string
    {
        constexpr double node_width = 104.0;
        constexpr double gap = 24.0;
        constexpr double node_top = 40.0;
        constexpr double node_height = 56.0;
        const double count = static_cast<double>(nodes.size());
        const double total = std::max(width, 16.0 + count * (node_width + gap));
        std::string out =
          "<svg class=\"plot chain\" viewBox=\"0 0 " + coordinate(total) +
          " 130.0\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>" +
          xml_escape(title) + "</title>\n" +
          "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"8\" "
          "markerHeight=\"8\" orient=\"auto\"><path class=\"arrow-head\" d=\"M0,0 L8,4 "
          "L0,8 z\"/></marker></defs>\n" +
          text(16.0, 20.0, "plot-title", title, "start");
        bool after_break = false;
        for (std::size_t index = 0; index < nodes.size(); ++index)
        {
            const auto& node = nodes[index];
            const double x = 16.0 + static_cast<double>(index) * (node_width + gap);
            if (index > 0)
            {
                out += "<line class=\"link" + std::string(after_break ? " after-break" : "") +
                       "\" x1=\"" + coordinate(x - gap) + "\" y1=\"" +
                       coordinate(node_top + node_height / 2.0) + "\" x2=\"" + coordinate(x - 2.0) +
                       "\" y2=\"" + coordinate(node_top + node_height / 2.0) +
                       "\" marker-end=\"url(#arrow)\"/>\n";
            }
            out += "<g class=\"node " + xml_attribute(node.status) +
                   (node.marked ? " broken" : "") + "\">\n<title>" + xml_escape(node.tooltip) +
                   "</title>\n" + "<rect x=\"" + coordinate(x) + "\" y=\"" + coordinate(node_top) +
                   "\" width=\"" + coordinate(node_width) + "\" height=\"" +
                   coordinate(node_height) + "\" rx=\"8\"/>\n" +
                   node_label(x + node_width / 2.0, node_top, node.label) +
                   text(x + node_width / 2.0, node_top + 46.0, "node-status", node.status);
            if (node.marked)
            {
                out += text(x + node_width / 2.0, node_top + node_height + 22.0, "broken-label",
                            "first broken link");
                after_break = true;
            }
            out += "</g>\n";
        }
        return out + "</svg>\n";
    }
}
