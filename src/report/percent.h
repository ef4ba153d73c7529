// Fractions as every report prints them: one decimal and a percent sign
// (0.1234 -> "12.3%").
#pragma once

#include <fmt/format.h>

#include <string>

namespace occam::report_internal {

inline std::string Pct(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

}  // namespace occam::report_internal
