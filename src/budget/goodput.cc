#include "budget/goodput.h"

#include <cmath>

namespace occam::budget {

Seconds YoungInterval(Seconds delta, Seconds mtbf) {
  return Seconds(std::sqrt(2.0 * delta.value() * mtbf.value()));
}

Seconds DalyInterval(Seconds delta, Seconds mtbf) {
  const double d = delta.value(), m = mtbf.value();
  if (d >= 2.0 * m) return mtbf;
  const double x = d / (2.0 * m);
  return Seconds(std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d);
}

double DalyGoodput(Seconds tau, Seconds delta, Seconds mtbf, Seconds restart) {
  const double t = tau.value(), d = delta.value(), m = mtbf.value(), r = restart.value();
  if (!std::isfinite(m)) return t / (t + d);
  // expm1 keeps precision when (tau + delta) << M.
  const double per_segment = m * std::exp(r / m) * std::expm1((t + d) / m);
  return t / per_segment;
}

}  // namespace occam::budget
