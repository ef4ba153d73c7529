#include "report/svg_frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "report/svg_chart.h"

namespace occam::report_internal {
namespace {

// Eight colours of strictly increasing lightness (greyscale luminance
// rises monotonically from the first to the last): the viridis ramp
// (N. Smith and S. van der Walt, matplotlib 2.0), sampled at eight points.
constexpr std::array<const char*, 8> kRamp = {"#440154", "#46327e", "#365c8d", "#277f8e",
                                              "#1fa187", "#4ac16d", "#a0da39", "#fde725"};

int RampIndex(int i, int n) {
  if (n <= 1) return 0;
  if (n > 8) return i % 8;
  return static_cast<int>(std::lround(static_cast<double>(i) * 7.0 / (n - 1)));
}

// 0 plain, 1 hatch, 2 dots. Beyond eight series the colours repeat, so the
// pattern shifts: series i and i + 8 never share both.
int PatternOf(int i) { return (i + 2 * (i / 8)) % 3; }

double NiceStep(double raw) {
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

}  // namespace

double Axis::Map(double v) const {
  const double a = log ? std::log10(lo) : lo;
  const double b = log ? std::log10(hi) : hi;
  const double t = ((log ? std::log10(v) : v) - a) / (b - a);
  return p0 + t * (p1 - p0);
}

std::vector<double> Axis::Ticks() const {
  std::vector<double> t;
  if (!(hi > lo)) return t;
  if (log) {
    for (double e = std::log10(lo); e <= std::log10(hi) + 1e-9; e += 1) {
      t.push_back(std::pow(10.0, std::round(e)));
    }
    return t;
  }
  const double step = NiceStep((hi - lo) / 5);
  for (double v = lo; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

Axis LinearAxis(double max, double p0, double p1) {
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  const double step = NiceStep(max / 5);
  return Axis{0, std::ceil(max / step - 1e-9) * step, false, p0, p1};
}

Axis RangeAxis(double lo, double hi, double p0, double p1) {
  if (!(hi > lo)) {
    const double pad = lo != 0 ? std::fabs(lo) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  const double span = hi - lo;
  lo -= 0.05 * span;
  hi += 0.05 * span;
  const double step = NiceStep((hi - lo) / 5);
  return Axis{std::floor(lo / step) * step, std::ceil(hi / step) * step, false, p0, p1};
}

Axis LogAxis(double lo, double hi, double p0, double p1) {
  if (!(lo > 0)) lo = 1;
  if (!(hi > lo)) hi = lo * 10;
  return Axis{std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi))),
              true, p0, p1};
}

std::string TickText(double v) {
  if (v == 0) return "0";
  return fmt::format("{:g}", v);
}

std::string SeriesFill(const std::string& id, int i, int n) {
  if (PatternOf(i) == 0) return kRamp[RampIndex(i, n)];
  return fmt::format("url(#{}-p{})", id, i);
}

std::string LineStroke(int i) {
  constexpr std::array<int, 6> kOrder = {0, 3, 5, 1, 4, 2};  // neighbours far apart
  return kRamp[kOrder[i % 6]];
}

std::string MarkerFill(int i) { return (i / 4) % 2 == 1 ? "#fff" : LineStroke(i); }

std::string MarkerStroke(int i) { return (i / 4) % 2 == 1 ? LineStroke(i) : "#000"; }

std::string LineDash(int i) {
  constexpr std::array<const char*, 4> kDash = {"", "8 4", "2 3", "10 3 2 3"};
  return kDash[i % 4];
}

std::string Marker(int i, double x, double y, double r, const std::string& fill,
                   const std::string& stroke, const std::string& attrs, const std::string& title) {
  const std::string paint = fmt::format("fill=\"{}\" stroke=\"{}\"{}", fill, stroke, attrs);
  const std::string close =
      title.empty() ? "/>" : ">" + std::string("<title>") + XmlEscape(title) + "</title>";
  switch (i % 4) {
    case 0:
      return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}{}{}", x, y, r, paint,
                         close, title.empty() ? "" : "</circle>");
    case 1:
      return fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}{}{}", x - r, y - r,
          2 * r, 2 * r, paint, close, title.empty() ? "" : "</rect>");
    case 2:
      return fmt::format("<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z\" {}{}{}", x,
                         y - 1.2 * r, x + 1.1 * r, y + 0.8 * r, x - 1.1 * r, y + 0.8 * r, paint,
                         close, title.empty() ? "" : "</path>");
    default:
      return fmt::format(
          "<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}L{:.1f},{:.1f}Z\" {}{}{}", x,
          y - 1.3 * r, x + 1.3 * r, y, x, y + 1.3 * r, x - 1.3 * r, y, paint, close,
          title.empty() ? "" : "</path>");
  }
}

std::string SvgOpen(const std::string& id, const std::string& title, double height, int n_series) {
  std::string s = fmt::format(
      "<svg id=\"{}\" class=\"chart\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"{}\">\n",
      id, kWidth, height, kWidth, height, XmlEscape(title));
  s += "<defs>";
  for (int i = 0; i < n_series; ++i) {
    if (PatternOf(i) == 0) continue;
    const int k = RampIndex(i, n_series);
    const char* ink = k >= 5 ? "#000" : "#fff";
    s += fmt::format(
        "<pattern id=\"{}-p{}\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
        "<rect width=\"6\" height=\"6\" fill=\"{}\"/>",
        id, i, kRamp[k]);
    s += PatternOf(i) == 1
             ? fmt::format("<path d=\"M0,6L6,0\" stroke=\"{}\" stroke-width=\"1.2\"/>", ink)
             : fmt::format("<circle cx=\"3\" cy=\"3\" r=\"1.2\" fill=\"{}\"/>", ink);
    s += "</pattern>";
  }
  s += "</defs>\n";
  s += fmt::format("<text class=\"title\" x=\"{:.0f}\" y=\"22\">{}</text>\n", kLeft,
                   XmlEscape(title));
  return s;
}

std::string AxesSvg(const Axis& x, const Axis& y, const std::string& x_label,
                    const std::string& y_label, bool x_ticks) {
  std::string s = "<g class=\"axes\">";
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>", x.p0,
                   y.p0, y.p1);
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\"/>", x.p0,
                   x.p1, y.p0);
  for (double t : y.Ticks()) {
    const double py = y.Map(t);
    s += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        x.p0, py, x.p1, py, x.p0 - 6, py + 4, TickText(t));
  }
  if (x_ticks) {
    for (double t : x.Ticks()) {
      const double px = x.Map(t);
      s += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
          "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4}</text>",
          px, y.p0, y.p0 + 5, y.p0 + 18, TickText(t));
    }
  }
  s += fmt::format(
      "<text class=\"label x-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
      (x.p0 + x.p1) / 2, y.p0 + 42, XmlEscape(x_label));
  s += fmt::format(
      "<text class=\"label y-label\" x=\"0\" y=\"0\" text-anchor=\"middle\" "
      "transform=\"translate(18 {:.1f}) rotate(-90)\">{}</text>",
      (y.p0 + y.p1) / 2, XmlEscape(y_label));
  return s + "</g>\n";
}

std::string LegendSvg(const std::string& id, const std::vector<LegendEntry>& entries) {
  std::string s = "<g class=\"legend\">";
  double y = kTop + 4;
  for (const LegendEntry& e : entries) {
    const double x = kRight + 20;
    if (e.kind == 'f') {
      s += fmt::format(
          "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"14\" height=\"14\" fill=\"{}\" "
          "stroke=\"#333\"/>",
          x, y, SeriesFill(id, e.style, e.n));
    } else {
      s += fmt::format(
          "<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"{}\" "
          "stroke-width=\"2\" stroke-dasharray=\"{}\"/>",
          x - 4, y + 7, x + 18, y + 7, LineStroke(e.style), LineDash(e.style));
      s += Marker(e.style, x + 7, y + 7, 4, MarkerFill(e.style), MarkerStroke(e.style), "");
    }
    s +=
        fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>", x + 24, y + 12, XmlEscape(e.name));
    y += 20;
  }
  return s + "</g>\n";
}

}  // namespace occam::report_internal
