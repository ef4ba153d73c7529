#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/svg_frame.h"

namespace occam::report_internal {

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ExactNumber(double v) { return fmt::format("{}", v); }

namespace {

std::vector<LegendEntry> FillLegend(const std::vector<std::string>& names) {
  std::vector<LegendEntry> out;
  const int n = static_cast<int>(names.size());
  for (int i = 0; i < n; ++i) out.push_back({names[i], 'f', i, n});
  return out;
}

std::string CategoryLabel(const std::string& text, double x, double y) {
  return fmt::format(
      "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x, y,
      XmlEscape(text));
}

std::string LimitLine(const StackedBarChart& c, const Axis& x, const Axis& y) {
  const double py = y.Map(*c.limit);
  return fmt::format(
      "<g class=\"limit\" data-value=\"{}\"><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
      "y2=\"{:.1f}\" stroke=\"#000\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text></g>\n",
      ExactNumber(*c.limit), x.p0, py, x.p1, py, x.p1, py - 5, XmlEscape(c.limit_label));
}

}  // namespace

std::string RenderStackedBars(const StackedBarChart& c) {
  const double height = 360;
  const int n = static_cast<int>(c.series.size());
  double max = c.limit.value_or(0);
  for (const auto& row : c.values) {
    double total = 0;
    for (double v : row) total += v;
    max = std::max(max, total);
  }
  const Axis y = LinearAxis(max * 1.05, height - kBottomMargin, kTop);
  const Axis x{0, 1, false, kLeft, kRight};
  std::string s = SvgOpen(c.id, c.title, height, n);
  s += AxesSvg(x, y, c.x_label, c.y_label, false);
  const double slot = (x.p1 - x.p0) / std::max<size_t>(c.categories.size(), 1);
  const double w = std::min(slot * 0.7, 90.0);
  for (size_t k = 0; k < c.categories.size(); ++k) {
    const double cx = x.p0 + slot * (k + 0.5);
    double base = 0;
    s += fmt::format("<g class=\"bar\" data-category=\"{}\">", XmlEscape(c.categories[k]));
    for (int i = 0; i < n; ++i) {
      const double v = i < static_cast<int>(c.values[k].size()) ? c.values[k][i] : 0;
      const double top = y.Map(base + v), bottom = y.Map(base);
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
          "stroke=\"#333\" stroke-width=\"0.5\" data-series=\"{}\" data-value=\"{}\"><title>{}: "
          "{:.4g}</title></rect>",
          cx - w / 2, top, w, bottom - top, SeriesFill(c.id, i, n), XmlEscape(c.series[i]),
          ExactNumber(v), XmlEscape(c.series[i]), v);
      base += v;
    }
    if (c.limit && base > *c.limit) {
      s += fmt::format(
          "<text class=\"overflow\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">over by "
          "{:.3g}</text>",
          cx, y.Map(base) - 4, base - *c.limit);
    }
    s += CategoryLabel(c.categories[k], cx, y.p0 + 16) + "</g>\n";
  }
  if (c.limit) s += LimitLine(c, x, y);
  s += LegendSvg(c.id, FillLegend(c.series));
  return s + "</svg>\n";
}

namespace {

void Extent(const ScatterChart& c, double& x_lo, double& x_hi, double& y_lo, double& y_hi) {
  x_lo = y_lo = INFINITY;
  x_hi = y_hi = -INFINITY;
  auto take = [&](double x, double y) {
    x_lo = std::min(x_lo, x);
    x_hi = std::max(x_hi, x);
    y_lo = std::min(y_lo, y);
    y_hi = std::max(y_hi, y);
  };
  for (const auto& s : c.series) {
    for (const auto& p : s.points) take(p.x, p.y);
  }
  for (const auto& m : c.marks) take(m.x, m.y);
}

}  // namespace

std::string RenderScatter(const ScatterChart& c) {
  const double height = 380;
  double x_lo, x_hi, y_lo, y_hi;
  Extent(c, x_lo, x_hi, y_lo, y_hi);
  Axis x, y;
  if (c.log_axes) {  // one range for both, so that y = x is the diagonal
    const double lo = std::min(x_lo, y_lo), hi = std::max(x_hi, y_hi);
    x = LogAxis(lo, hi, kLeft, kRight);
    y = LogAxis(lo, hi, height - kBottomMargin, kTop);
  } else {
    x = RangeAxis(x_lo, x_hi, kLeft, kRight);
    y = RangeAxis(y_lo, y_hi, height - kBottomMargin, kTop);
  }
  const int n = static_cast<int>(c.series.size());
  std::string s = SvgOpen(c.id, c.title, height, 0);
  s += AxesSvg(x, y, c.x_label, c.y_label, true);
  if (c.diagonal) {
    s += fmt::format(
        "<line class=\"diagonal\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#888\" stroke-dasharray=\"4 4\"/>\n",
        x.p0, y.Map(x.lo), x.p1, y.Map(x.hi));
  }
  std::vector<LegendEntry> legend;
  for (int i = 0; i < n; ++i) {
    const ScatterSeries& series = c.series[i];
    s += fmt::format("<g class=\"series\" data-series=\"{}\">", XmlEscape(series.name));
    for (const ScatterPoint& p : series.points) {
      const std::string attrs = fmt::format(" fill-opacity=\"0.8\" data-x=\"{}\" data-y=\"{}\"",
                                            ExactNumber(p.x), ExactNumber(p.y));
      s += Marker(i, x.Map(p.x), y.Map(p.y), 4, MarkerFill(i), MarkerStroke(i), attrs, p.label);
    }
    s += "</g>\n";
    legend.push_back({series.name, 'l', i, n});
  }
  for (size_t k = 0; k < c.marks.size(); ++k) {
    const ScatterMark& m = c.marks[k];
    const double px = x.Map(m.x), py = y.Map(m.y);
    const double label_y = py - 9 + 14 * static_cast<double>(k);  // marks may be close
    // Labels run away from the nearer side, so they stay inside the plot.
    const bool left = px > (kLeft + kRight) / 2;
    s += fmt::format(
        "<g class=\"mark\" data-label=\"{}\" data-x=\"{}\" data-y=\"{}\"><circle cx=\"{:.1f}\" "
        "cy=\"{:.1f}\" r=\"9\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/><text "
        "x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}</text></g>\n",
        XmlEscape(m.label), ExactNumber(m.x), ExactNumber(m.y), px, py, left ? px - 11 : px + 11,
        label_y, left ? "end" : "start", XmlEscape(m.label));
  }
  s += LegendSvg(c.id, legend);
  return s + "</svg>\n";
}

}  // namespace occam::report_internal
