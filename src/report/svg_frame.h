// Shared pieces of the SVG charts (svg_chart.cc, svg_timeline.cc): the plot
// frame, axes with nice ticks, series styles and the legend.
#pragma once

#include <string>
#include <vector>

namespace occam::report_internal {

// Plot area inside a chart of kWidth x height pixels; legend to the right.
constexpr double kWidth = 780;
constexpr double kLeft = 80;
constexpr double kRight = 580;  // plot area ends; legend from kRight + 20
constexpr double kTop = 40;
constexpr double kBottomMargin = 55;

// A linear or log10 axis mapping [lo, hi] onto pixels [p0, p1].
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double p0 = 0;
  double p1 = 1;
  double Map(double v) const;
  std::vector<double> Ticks() const;
};
// [0, max] rounded up to a nice step (1, 2, 5 x 10^k); max <= 0 gives [0, 1].
Axis LinearAxis(double max, double p0, double p1);
// [lo, hi] widened by 5% each side and rounded out to a nice step.
Axis RangeAxis(double lo, double hi, double p0, double p1);
// Whole decades around [lo, hi], both > 0.
Axis LogAxis(double lo, double hi, double p0, double p1);
// Tick label: "0", "2.5", "1e+03"-free short text ("1000", "0.01").
std::string TickText(double v);

// Opening <svg> with title and the pattern <defs> for `n_series` fills.
std::string SvgOpen(const std::string& id, const std::string& title, double height, int n_series);
// Fill of series i of n: a colour from a dark-to-light ramp, every second
// and third series with a hatch or dot pattern over it.
std::string SeriesFill(const std::string& id, int i, int n);
// Stroke colour and dash of line series i (darker half of the ramp).
std::string LineStroke(int i);
std::string LineDash(int i);
// Marker of series i: filled for series 0-3, open (white inside) for 4-7, ...
std::string MarkerFill(int i);
std::string MarkerStroke(int i);
// Marker shape i (circle, square, triangle, diamond) centred on (x, y);
// `attrs` is appended inside the tag; a non-empty `title` becomes a tooltip.
std::string Marker(int i, double x, double y, double r, const std::string& fill,
                   const std::string& stroke, const std::string& attrs,
                   const std::string& title = "");

// Axes: lines, ticks, tick labels and axis labels. `x_ticks` false leaves
// the x ticks to the caller (categories).
std::string AxesSvg(const Axis& x, const Axis& y, const std::string& x_label,
                    const std::string& y_label, bool x_ticks);
// Legend entries; `kind` per entry: 'f' fill swatch, 'l' line with marker.
struct LegendEntry {
  std::string name;
  char kind = 'f';
  int style = 0;  // series index for the fill / line style
  int n = 1;      // series count (fills)
};
std::string LegendSvg(const std::string& id, const std::vector<LegendEntry>& entries);

}  // namespace occam::report_internal
