// The inline SVG plots of the HTML reports (report/html_report.hpp), one helper for all of them:
// axes (linear or logarithmic, ticks computed or given), line plots (one polyline per series, a
// point with its value as a tooltip), bars against a reference with a shaded band, and a chain
// of nodes with one marked. Values in, an <svg> element out; no script, no external resource.
// Colours come from the page's CSS classes (series s0..s7, pass/warn/fail/skip/error), so one
// stylesheet serves light and dark.
#ifndef ENVCHECK_REPORT_SVG_PLOT_HPP
#define ENVCHECK_REPORT_SVG_PLOT_HPP

#include <optional>
#include <string>
#include <vector>

namespace envcheck::report::svg
{
    struct Tick
    {
        double value = 0.0;
        std::string label;
    };

    struct Axis
    {
        std::string label; // "transfer size", "GB/s"
        bool log = false;  // base 10; values <= 0 are left out
        double min = 0.0;  // the data's range; widened to the ticks when they are computed
        double max = 1.0;
        std::vector<Tick> ticks; // empty: computed (linear: 1-2-5 steps; log: powers of ten)
    };

    // An axis over `values` (non-finite ones, and non-positive ones on a log axis, left out);
    // a linear axis starts at zero.
    [[nodiscard]] auto fit_axis(std::string label, bool log, const std::vector<double>& values)
      -> Axis;

    struct Point
    {
        double x = 0.0;
        double y = 0.0;
    };

    struct Series
    {
        std::string name;
        std::vector<Point> points; // in x order
    };

    struct LinePlot
    {
        std::string title;
        Axis x;
        Axis y;
        std::vector<Series> series; // colours s0, s1, ... in this order
    };

    // <svg class="plot line-plot">: one <polyline class="series sN"> per series with points,
    // a <circle class="point sN"> per point, a legend.
    [[nodiscard]] auto line_plot(const LinePlot& plot) -> std::string;

    struct BandBar
    {
        std::string label;
        std::optional<double> value; // nullopt: nothing measured (the row says so)
        std::string value_label;     // written after the bar
        double reference = 0.0;      // a mark across the row (a baseline)
        double band_low = 0.0;       // the shaded band (a tolerance)
        double band_high = 0.0;
        std::string css_class; // the bar's class: "pass", "fail", "skip", ...
    };

    struct BandBarPlot
    {
        std::string title;
        Axis x;
        std::vector<BandBar> bars;
    };

    // <svg class="plot band-plot">: per row a <rect class="band">, a <line class="reference">
    // and, when measured, a <rect class="bar CLASS">.
    [[nodiscard]] auto band_bar_plot(const BandBarPlot& plot) -> std::string;

    struct ChainNode
    {
        std::string label;   // "driver library"
        std::string status;  // written under the label, and the node's class: "pass", ...
        std::string tooltip; // the checks behind the node
        bool marked = false; // the first broken link
    };

    // <svg class="plot chain">: a row of <g class="node STATUS"> joined by arrows; the marked
    // node is also class "broken" and labelled; links after it are dashed.
    [[nodiscard]] auto chain(const std::string& title, const std::vector<ChainNode>& nodes)
      -> std::string;
}

#endif
