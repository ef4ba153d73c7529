#include "sim/balance_update.h"

#include <cstddef>

namespace occam::balance {

void SignBiasUpdate(const std::vector<double>& load, double u, std::vector<double>* bias) {
  double mean = 0;
  for (double v : load) mean += v;
  mean /= static_cast<double>(load.size());
  for (std::size_t i = 0; i < load.size(); ++i) {
    const double e = mean - load[i];
    (*bias)[i] += u * static_cast<double>((e > 0) - (e < 0));
  }
}

void AddAuxLossLogitGradient(const float* s, const std::vector<double>& f, int64_t experts,
                             std::vector<double>* grad) {
  double total = 0;
  for (int64_t i = 0; i < experts; ++i) total += s[i];
  if (total <= 0) return;
  double fs = 0;
  for (int64_t i = 0; i < experts; ++i) fs += f[i] * s[i];
  fs /= total;
  for (int64_t j = 0; j < experts; ++j) {
    (*grad)[j] += (s[j] / total) * (1 - s[j]) * (f[j] - fs);
  }
}

}  // namespace occam::balance
