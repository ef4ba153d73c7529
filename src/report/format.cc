#include <fmt/format.h>

#include <cmath>
#include <string>

#include "occam/report.h"

namespace occam {

// Decimal units (GB = 1e9 B), as HBM capacities and bandwidths are quoted.
std::string FormatBytes(Bytes b) {
  const double v = b.value();
  const double a = std::fabs(v);
  if (a >= 1e12) return fmt::format("{:.2f} TB", v / 1e12);
  if (a >= 1e9) return fmt::format("{:.2f} GB", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f} MB", v / 1e6);
  if (a >= 1e3) return fmt::format("{:.2f} kB", v / 1e3);
  return fmt::format("{:.0f} B", v);
}

std::string FormatSeconds(Seconds s) {
  const double v = s.value();
  const double a = std::fabs(v);
  if (a >= 1.0) return fmt::format("{:.3f} s", v);
  if (a >= 1e-3) return fmt::format("{:.2f} ms", v * 1e3);
  if (a >= 1e-6) return fmt::format("{:.2f} us", v * 1e6);
  return fmt::format("{:.0f} ns", v * 1e9);
}

}  // namespace occam
