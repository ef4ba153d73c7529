// Line chart over categories and the pipeline timeline (svg_chart.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/svg_chart.h"
#include "report/svg_frame.h"

namespace occam::report_internal {

std::string RenderLines(const LineChart& c) {
  const double height = 360;
  double max = 0;
  for (const auto& s : c.series) {
    for (double v : s.values) {
      if (std::isfinite(v)) max = std::max(max, v);
    }
  }
  const Axis y = LinearAxis(max * 1.05, height - kBottomMargin, kTop);
  const Axis x{0, 1, false, kLeft, kRight};
  std::string s = SvgOpen(c.id, c.title, height, 0);
  s += AxesSvg(x, y, c.x_label, c.y_label, false);
  const double slot = (x.p1 - x.p0) / std::max<size_t>(c.x.size(), 1);
  auto px = [&](size_t k) { return x.p0 + slot * (static_cast<double>(k) + 0.5); };
  for (size_t k = 0; k < c.x.size(); ++k) {
    s += fmt::format(
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", px(k),
        y.p0 + 16, XmlEscape(c.x[k]));
  }
  std::vector<LegendEntry> legend;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const LineSeries& series = c.series[i];
    const int style = static_cast<int>(i);
    std::string path;
    std::string marks;
    for (size_t k = 0; k < series.values.size() && k < c.x.size(); ++k) {
      const double v = series.values[k];
      if (!std::isfinite(v)) {
        path += " ";  // gap: the next point starts a new sub-path
        continue;
      }
      const bool move = path.empty() || path.back() == ' ';
      path += fmt::format("{}{:.1f},{:.1f}", move ? "M" : "L", px(k), y.Map(v));
      const std::string attrs =
          fmt::format(" data-x=\"{}\" data-value=\"{}\"", XmlEscape(c.x[k]), ExactNumber(v));
      marks += Marker(style, px(k), y.Map(v), 4, MarkerFill(style), MarkerStroke(style), attrs);
    }
    s += fmt::format(
        "<g class=\"series\" data-series=\"{}\"><path d=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2\" stroke-dasharray=\"{}\"/>{}</g>\n",
        XmlEscape(series.name), path, LineStroke(style), LineDash(style), marks);
    legend.push_back({series.name, 'l', style, 1});
  }
  s += LegendSvg(c.id, legend);
  return s + "</svg>\n";
}

std::string RenderTimeline(const TimelineChart& c) {
  constexpr double kLane = 14;
  const double height = kTop + kLane * static_cast<double>(c.lanes.size()) + kBottomMargin;
  double end = 0;
  for (const TimelineBar& b : c.bars) end = std::max(end, b.end);
  const Axis x = LinearAxis(end, kLeft + 40, kRight);
  const Axis y{0, 1, false, height - kBottomMargin, kTop};
  const int n = static_cast<int>(c.kinds.size());
  std::string s = SvgOpen(c.id, c.title, height, n);
  s += AxesSvg(Axis{x.lo, x.hi, false, x.p0, x.p1}, Axis{0, 0, false, y.p0, y.p1}, c.x_label,
               "device / stream", true);
  for (size_t l = 0; l < c.lanes.size(); ++l) {
    s +=
        fmt::format("<text class=\"lane\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
                    x.p0 - 4, kTop + kLane * (static_cast<double>(l) + 0.8), XmlEscape(c.lanes[l]));
  }
  s += "<g class=\"events\">";
  for (const TimelineBar& b : c.bars) {
    const double x0 = x.Map(b.start), x1 = x.Map(b.end);
    s += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\"><title>{}"
        "</title></rect>",
        x0, kTop + kLane * b.lane + 1, std::max(x1 - x0, 0.2), kLane - 2,
        SeriesFill(c.id, b.kind, n), XmlEscape(b.name));
  }
  s += "</g>\n";
  std::vector<LegendEntry> legend;
  for (int i = 0; i < n; ++i) legend.push_back({c.kinds[i], 'f', i, n});
  s += LegendSvg(c.id, legend);
  return s + "</svg>\n";
}

}  // namespace occam::report_internal
