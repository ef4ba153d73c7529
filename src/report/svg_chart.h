// Small inline-SVG charts for the HTML report (html_report.cc): stacked bars,
// scatter, lines over categories, and a timeline. Each Render* returns one
// self-contained <svg> element (its own <defs>, ids prefixed with the chart's
// `id`) that is also well-formed XML. No scripts, no external references.
//
// Readable in greyscale: series differ in lightness (a dark-to-light ramp),
// and fills alternate hatch / dot patterns, lines alternate dash styles and
// marker shapes, so no series is told apart by hue alone.
//
// Every drawn datum carries its exact value as a data-value attribute (the
// shortest decimal that reads back as the same double), in the chart's unit,
// so tests can compare the SVG with the result structs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace occam::report_internal {

// Bars side by side, each a stack of `series` parts; optional horizontal
// limit line (e.g. usable HBM) with bars above it marked as overflowing.
struct StackedBarChart {
  std::string id;  // unique in the document: [a-z0-9-]+
  std::string title;
  std::string x_label;
  std::string y_label;  // with the unit: "memory per chip (GB)"
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;  // [category][series], >= 0
  std::optional<double> limit;
  std::string limit_label;  // "usable HBM 76.0 GB"
};
std::string RenderStackedBars(const StackedBarChart& chart);

struct ScatterPoint {
  double x = 0;
  double y = 0;
  std::string label;  // tooltip
};
struct ScatterSeries {
  std::string name;
  std::vector<ScatterPoint> points;
};
// A point drawn larger with a text label ("best", "simplest").
struct ScatterMark {
  double x = 0;
  double y = 0;
  std::string label;
};
struct ScatterChart {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  // Both axes log10 on one range (values must be > 0); otherwise linear
  // over the data's range.
  bool log_axes = false;
  bool diagonal = false;  // draw y = x (predicted = measured)
  std::vector<ScatterSeries> series;
  std::vector<ScatterMark> marks;
};
std::string RenderScatter(const ScatterChart& chart);

// Lines over categorical x positions; NaN values leave a gap.
struct LineSeries {
  std::string name;
  std::vector<double> values;  // one per x label
};
struct LineChart {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> x;
  std::vector<LineSeries> series;
};
std::string RenderLines(const LineChart& chart);

// Horizontal lanes (device x stream), bars from start to end.
struct TimelineBar {
  int lane = 0;
  double start = 0;
  double end = 0;
  int kind = 0;  // index into TimelineChart::kinds (legend and fill)
  std::string name;
};
struct TimelineChart {
  std::string id;
  std::string title;
  std::string x_label;  // "time (ms)"
  std::vector<std::string> lanes;
  std::vector<std::string> kinds;
  std::vector<TimelineBar> bars;
};
std::string RenderTimeline(const TimelineChart& chart);

// Text escaped for XML character data and attribute values.
std::string XmlEscape(const std::string& text);
// The shortest decimal that reads back as `v` ("0.1", "1e+21").
std::string ExactNumber(double v);

}  // namespace occam::report_internal
