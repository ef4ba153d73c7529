// Portable pseudo-random numbers for the routing-balance simulation.
//
// std:: distributions differ between standard libraries, so results would not
// be reproducible across platforms; everything here is specified bit for bit.
//   - SplitMix64 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number
//     generators", OOPSLA) expands a 64-bit seed into generator state.
//   - xoshiro256** (Blackman, Vigna 2021, "Scrambled linear pseudorandom number
//     generators", ACM TOMS 47(4)) is the stream generator.
//   - Standard normals come from a 4096-entry quantile table (inverse-CDF
//     sampling on a grid: entry j = Phi^-1((j + 0.5) / 4096)), indexed by 12
//     random bits. The table truncates tails at |z| ~ 3.5, harmless for router
//     logit noise, and costs one table lookup per draw.
#pragma once

#include <array>
#include <cstdint>

namespace occam::balance {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n). REQUIRES: 0 < n < 2^53 (floor of a 53-bit
  // uniform times n; bias < n / 2^53, negligible for the small n used here).
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>(Uniform() * static_cast<double>(n)); }
  // One standard normal draw (table quantile, see file comment).
  double Normal();
  // Fills out[0..n) with standard normals, five draws per 64 random bits.
  void Normals(float* out, int64_t n);

 private:
  std::array<uint64_t, 4> s_;
};

// Phi^-1(p) for p in (0, 1): Acklam's rational approximation (relative error
// < 1.2e-9), P. J. Acklam, "An algorithm for computing the inverse normal
// cumulative distribution function" (2003).
double InverseNormalCdf(double p);

}  // namespace occam::balance
