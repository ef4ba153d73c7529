#include "sim/balance_stats.h"

#include <algorithm>
#include <cmath>

namespace occam::balance {

double MaxOverMean(const std::vector<double>& load) {
  if (load.empty()) return 0;
  double sum = 0, max = load[0];
  for (double v : load) {
    sum += v;
    max = std::max(max, v);
  }
  if (sum <= 0) return 0;
  return max / (sum / static_cast<double>(load.size()));
}

double MaxVio(const std::vector<double>& load) {
  const double r = MaxOverMean(load);
  return r > 0 ? r - 1 : 0;
}

UnitTally::UnitTally(int64_t units)
    : seq_sum_(units),
      seq_sq_(units),
      token_count_(units),
      sum_m_(units),
      sum_m2_(units),
      sum_w_(units) {
  Reset();
}

void UnitTally::Reset() {
  std::fill(seq_sum_.begin(), seq_sum_.end(), 0.0);
  std::fill(seq_sq_.begin(), seq_sq_.end(), 0.0);
  std::fill(token_count_.begin(), token_count_.end(), 0);
  std::fill(sum_m_.begin(), sum_m_.end(), 0.0);
  std::fill(sum_m2_.begin(), sum_m2_.end(), 0.0);
  std::fill(sum_w_.begin(), sum_w_.end(), 0.0);
  touched_.clear();
  seq_tokens_ = 0;
  seqs_ = 0;
  seqs_with_within_ = 0;
}

void UnitTally::AddToken(const int32_t* unit_of_choice, int64_t k) {
  for (int64_t j = 0; j < k; ++j) ++token_count_[unit_of_choice[j]];
  for (int64_t j = 0; j < k; ++j) {
    const int32_t u = unit_of_choice[j];
    const int32_t c = token_count_[u];
    if (c == 0) continue;  // already flushed (unit chosen twice)
    if (seq_sum_[u] == 0) touched_.push_back(u);
    seq_sum_[u] += c;
    seq_sq_[u] += static_cast<double>(c) * c;
    token_count_[u] = 0;
  }
  ++seq_tokens_;
}

// Only the units the sequence touched change: for the others m = 0 and
// every sum below gains exactly 0.
void UnitTally::EndSequence() {
  if (seq_tokens_ == 0) return;
  const auto t = static_cast<double>(seq_tokens_);
  const bool within = seq_tokens_ >= 2;
  for (const int32_t unit : touched_) {
    const auto u = static_cast<size_t>(unit);
    const double m = seq_sum_[u] / t;
    sum_m_[u] += m;
    sum_m2_[u] += m * m;
    if (within) sum_w_[u] += std::max(0.0, seq_sq_[u] / t - m * m) * t / (t - 1);
    seq_sum_[u] = 0;
    seq_sq_[u] = 0;
  }
  touched_.clear();
  if (within) ++seqs_with_within_;
  ++seqs_;
  seq_tokens_ = 0;
}

std::vector<double> UnitTally::Mean() const {
  std::vector<double> out(sum_m_.size(), 0.0);
  if (seqs_ == 0) return out;
  for (size_t u = 0; u < out.size(); ++u) out[u] = sum_m_[u] / static_cast<double>(seqs_);
  return out;
}

std::vector<double> UnitTally::Between() const {
  std::vector<double> out(sum_m_.size(), 0.0);
  if (seqs_ < 2) return out;
  const auto n = static_cast<double>(seqs_);
  for (size_t u = 0; u < out.size(); ++u) {
    const double mean = sum_m_[u] / n;
    out[u] = std::max(0.0, (sum_m2_[u] - n * mean * mean) / (n - 1));
  }
  return out;
}

std::vector<double> UnitTally::Within() const {
  std::vector<double> out(sum_m_.size(), 0.0);
  if (seqs_with_within_ == 0) return out;
  for (size_t u = 0; u < out.size(); ++u) {
    out[u] = sum_w_[u] / static_cast<double>(seqs_with_within_);
  }
  return out;
}

LoadEstimator::LoadEstimator(int64_t units, int64_t window)
    : window_(std::max<int64_t>(1, window)),
      pi_(units, 0.0),
      between_(units, 0.0),
      within_(units, 0.0),
      last_(units, 0.0) {}

void LoadEstimator::Observe(const UnitTally& tally, int64_t tokens_per_seq) {
  ++observed_;
  // Running mean for the first `window_` steps, then an EMA of that length.
  const double w = 1.0 / static_cast<double>(std::min(observed_, window_));
  // Variance of pi relative to one sample's: 1/n for a running mean of n,
  // w / (2 - w) for the stationary EMA.
  pi_var_factor_ = observed_ <= window_ ? w : w / (2 - w);
  last_ = tally.Mean();
  const std::vector<double> b = tally.Between();
  const std::vector<double> wv = tally.Within();
  for (size_t u = 0; u < pi_.size(); ++u) {
    pi_[u] += w * (last_[u] - pi_[u]);
    between_[u] += w * (b[u] - between_[u]);
    within_[u] += w * (wv[u] - within_[u]);
  }
  tokens_per_seq_ = tokens_per_seq;
  sample_seqs_ = tally.sequences();
}

std::vector<double> LoadEstimator::Rebuild(const BatchShape& batch) const {
  std::vector<double> out(pi_.size());
  const auto t_sample = static_cast<double>(tokens_per_seq_);
  const auto n_sample = static_cast<double>(sample_seqs_);
  for (size_t u = 0; u < out.size(); ++u) {
    const double b = between_[u];
    const double topic = std::max(0.0, b - within_[u] / t_sample);
    const double v_batch = topic / batch.seqs + within_[u] / (batch.seqs * batch.seq_tokens);
    const double v_sample = b / n_sample;
    out[u] = last_[u];
    if (v_sample <= 0) continue;
    // y - truth = (1 - gamma)(pi - truth) + gamma (p - truth) with
    // Var(pi) = f V_s and Var(p) = V_s independent: choose gamma so that
    // (1 - gamma)^2 f + gamma^2 = rho = V_batch / V_s.
    const double f = pi_var_factor_, rho = v_batch / v_sample;
    const double disc = rho * (1 + f) - f;
    const double gamma = disc > 0 ? (f + std::sqrt(disc)) / (1 + f) : f / (1 + f);
    out[u] = std::max(0.0, pi_[u] + gamma * (last_[u] - pi_[u]));
  }
  return out;
}

}  // namespace occam::balance
