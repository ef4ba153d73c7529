// Load statistics of the balance simulation: per-step tallies of routed
// tokens over "units" (experts or EP ranks), and the estimator that rebuilds
// a full batch's load from a sample (doc/cost-model.md §8.4).
//
// Symbols: y_{t,u} = how many of token t's K choices fall in unit u (0..K);
// per sequence q, m_{q,u} = mean_t y_{t,u} over its sampled tokens.
//   p_u  = mean_q m_{q,u}                 (sample mean load per token)
//   B_u  = var_q m_{q,u}                  (between-sequence variance)
//   W_u  = pooled within-sequence variance of y_{t,u}
// A batch of n sequences of l tokens has a per-token mean load whose
// fluctuation variance is V(n, l) = (B - W/t')/n + W/(n*l), t' the sampled
// tokens per sequence (topic part + token part; sequences independent). The
// sample's own mean has variance B/n'. The batch load is rebuilt as
//   y_u = pi_u + gamma_u (p_u - pi_u)
// where pi_u is an exponential moving average of p_u over recent steps (the
// expected load under the slowly changing router state) and gamma_u makes
// the variance of y_u equal V(n, l), counting pi's own sampling noise
// (Var(pi) = f * B/n', f = 1/steps seen, then w/(2-w) for EMA weight w):
//   (1 - gamma)^2 f + gamma^2 = V(n, l) / (B/n').
// gamma = 1 when the sample is the whole batch and pi has no noise.
#pragma once

#include <cstdint>
#include <vector>

namespace occam::balance {

// Metric: (max_u load_u - mean_u load_u) / mean_u load_u (Wang et al.
// arXiv:2408.15664 Eq. 4). 0 for an empty or all-zero vector.
double MaxVio(const std::vector<double>& load);
// max_u / mean_u (= 1 + MaxVio).
double MaxOverMean(const std::vector<double>& load);

class UnitTally {
 public:
  explicit UnitTally(int64_t units);
  void Reset();
  // unit_of_choice[K]: the unit of each of the token's K choices.
  void AddToken(const int32_t* unit_of_choice, int64_t k);
  void EndSequence();

  int64_t units() const { return static_cast<int64_t>(sum_m_.size()); }
  int64_t sequences() const { return seqs_; }
  std::vector<double> Mean() const;     // p_u
  std::vector<double> Between() const;  // B_u (0 with < 2 sequences)
  std::vector<double> Within() const;   // W_u (0 with < 2 tokens per sequence)

 private:
  std::vector<double> seq_sum_, seq_sq_;  // current sequence: sum y, sum y^2
  std::vector<int32_t> token_count_;      // scratch for one token
  std::vector<int32_t> touched_;          // units with seq_sum_ > 0, in first-touch order
  int64_t seq_tokens_ = 0;
  std::vector<double> sum_m_, sum_m2_, sum_w_;
  int64_t seqs_ = 0;
  int64_t seqs_with_within_ = 0;
};

// Batch size the rebuilt load stands for.
struct BatchShape {
  double seqs = 1;        // n (may be fractional; >= 1)
  double seq_tokens = 1;  // l, tokens of each sequence in the batch
};

class LoadEstimator {
 public:
  // window: EMA length in steps for pi, B and W.
  LoadEstimator(int64_t units, int64_t window);
  // Feeds one step's tally (sampled with `tokens_per_seq` tokens per sequence).
  void Observe(const UnitTally& tally, int64_t tokens_per_seq);
  // Rebuilt per-token load of a batch of the given shape, from the last
  // observed step.
  std::vector<double> Rebuild(const BatchShape& batch) const;

 private:
  int64_t window_;
  int64_t observed_ = 0;
  int64_t tokens_per_seq_ = 1;
  int64_t sample_seqs_ = 1;
  double pi_var_factor_ = 1;  // Var(pi) / Var(one step's sample mean)
  std::vector<double> pi_, between_, within_, last_;
};

}  // namespace occam::balance
