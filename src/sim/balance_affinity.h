// Seeded generator of token-to-expert router logits for the balance
// simulation. Symbols: E experts, i expert, t token, q sequence, n step.
//
//   z_{t,i} = a_i(n) + d_i + sigma_q * u_{q,i} + sigma_t * eps_{t,i}
//   s_{t,i} = Sigmoid(z_{t,i})                      (DeepSeek-V3 Eq. 15)
//
//   a_i(n)   popularity: the logit the language-model loss "wants" for expert
//            i. a_i(0) = -c * s_zipf * (ln r_i - mean_j ln r_j), r_i a seeded
//            random permutation of 1..E (Zipf-like: the frequency of the r-th
//            most popular expert falls roughly as a power of r). c =
//            kPopularityScale. a_i then drifts as an Ornstein-Uhlenbeck walk
//            around a_i(0): w <- (1 - theta) w + drift * N(0,1), theta =
//            kDriftReversion, so popularity keeps moving during training and
//            a balancer has to track it.
//   d_i      displacement learnt by the router under an auxiliary loss
//            (owned by the simulation, passed in; zero otherwise).
//   u_{q,i}  the sequence's topic vector, N(0,1) per expert, shared by all
//            tokens of sequence q (tokens of one document prefer the same
//            experts; this is what makes micro-batch loads noisier than
//            global ones).
//   eps      per-token noise, N(0,1).
// Generator constants are assumptions of occam (no published router-logit
// statistics exist for these models); they are documented in
// doc/cost-model.md §8 and changing them changes absolute MaxVio levels, not
// the ordering of the balancing methods.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/balance_rng.h"

namespace occam::balance {

inline constexpr double kPopularityScale = 0.25;  // logits per unit of s_zipf * ln(rank)
inline constexpr double kDriftReversion = 1e-3;   // theta, per step
inline constexpr double kTopicSigma = 0.3;        // sigma_q, logits
inline constexpr double kTokenSigma = 1.0;        // sigma_t, logits
// Token noise eps_{t,.} is a window of E consecutive entries at a uniformly
// random offset in a pool of seeded standard normals (each expert's noise is
// N(0,1) and windows of different tokens rarely coincide); this avoids
// drawing E fresh normals per token.
inline constexpr int64_t kNoisePool = int64_t{1} << 20;

struct AffinityParams {
  int64_t experts = 0;
  double zipf_s = 1.0;  // 0 = uniform popularity
  double drift = 0.0;   // per-step standard deviation of the popularity walk
};

class AffinityGenerator {
 public:
  AffinityGenerator(const AffinityParams& params, uint64_t seed);

  // Moves the popularity one training step (no-op when drift == 0).
  void AdvanceStep();
  // topic[E] = sigma_q * N(0,1).
  void DrawTopic(float* topic);
  // scores[E] = Sigmoid(a + d + topic + sigma_t * eps). `displacement` may be
  // null (= zero).
  void TokenScores(const float* topic, const float* displacement, float* scores);

  const std::vector<double>& popularity() const { return popularity_; }

 private:
  AffinityParams params_;
  Rng rng_;
  std::vector<double> base_;        // a_i(0)
  std::vector<double> walk_;        // w_i
  std::vector<double> popularity_;  // a_i(n) = base + walk
  std::vector<float> pool_;         // kNoisePool standard normals
  std::vector<float> logits_;       // a_i(n) as float (+ d_i per token)
};

// Sigmoid 1 / (1 + 2^(-z log2 e)) with 2^x from its degree-7 Taylor series
// on the fractional part and the exponent set directly in the float's bits
// (relative error < 2e-6 for |z| <= 80; saturates beyond). Written as plain
// arithmetic so that loops over experts vectorize.
inline float FastSigmoid(float z) {
  constexpr float kLog2e = 1.44269504f;
  float x = -z * kLog2e;
  x = x < -80.0f ? -80.0f : x;  // branch-free with -fno-trapping-math
  x = x > 80.0f ? 80.0f : x;
  const int xi = static_cast<int>(x + 128.0f) - 128;  // floor(x): x + 128 > 0
  const float f = x - static_cast<float>(xi);
  const float g = f * 0.693147181f;
  const float p =
      1.0f + g * (1.0f + g * (0.5f + g * (1.66666667e-1f +
                                          g * (4.16666667e-2f +
                                               g * (8.33333333e-3f +
                                                    g * (1.38888889e-3f + g * 1.98412698e-4f))))));
  const float two_xi = std::bit_cast<float>(static_cast<uint32_t>(xi + 127) << 23);
  return 1.0f / (1.0f + two_xi * p);
}

}  // namespace occam::balance
