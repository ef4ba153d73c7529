#include "sim/balance_rng.h"

#include <cmath>

namespace occam::balance {
namespace {

constexpr int kTableBits = 12;
constexpr int kTableSize = 1 << kTableBits;

const std::array<float, kTableSize>& NormalTable() {
  static const std::array<float, kTableSize> table = [] {
    std::array<float, kTableSize> t{};
    for (int j = 0; j < kTableSize; ++j) {
      t[j] = static_cast<float>(InverseNormalCdf((j + 0.5) / kTableSize));
    }
    return t;
  }();
  return table;
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(uint64_t seed) {
  SplitMix64 sm(seed);
  for (auto& w : s_) w = sm.Next();
}

// xoshiro256** 1.0 (Blackman & Vigna), reference algorithm.
uint64_t Rng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double Rng::Normal() { return NormalTable()[Next() >> (64 - kTableBits)]; }

void Rng::Normals(float* out, int64_t n) {
  const auto& table = NormalTable();
  constexpr uint64_t kMask = kTableSize - 1;
  int64_t i = 0;
  for (; i + 5 <= n; i += 5) {
    const uint64_t bits = Next();
    out[i] = table[bits & kMask];
    out[i + 1] = table[(bits >> 12) & kMask];
    out[i + 2] = table[(bits >> 24) & kMask];
    out[i + 3] = table[(bits >> 36) & kMask];
    out[i + 4] = table[(bits >> 48) & kMask];
  }
  uint64_t bits = Next();
  for (; i < n; ++i, bits >>= kTableBits) out[i] = table[bits & kMask];
}

double InverseNormalCdf(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p < kLow) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - kLow) return -InverseNormalCdf(1 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace occam::balance
