// SimulateBalance: MoE routing over training steps under a balancing method.
// Symbols (doc/cost-model.md §8): E experts, K top-k, G groups, M topk_groups,
// T tokens per step, L sequence length, u bias update rate, alpha aux-loss
// coefficient, kappa LM stiffness, b_i bias, d_i aux-loss logit displacement,
// s_{t,i} sigmoid score, s'_{t,i} = s_{t,i} / sum_j s_{t,j},
// f_i = (E / (K T')) * #(tokens of the scope choosing i)   (DeepSeek-V3 Eq. 18).
#include <algorithm>
#include <cmath>
#include <string>

#include "occam/simulate.h"
#include "sim/balance_affinity.h"
#include "sim/balance_internal.h"
#include "sim/balance_router.h"
#include "sim/balance_stats.h"
#include "sim/balance_update.h"

namespace occam {
namespace {

using balance::AffinityGenerator;
using balance::BatchShape;
using balance::LoadEstimator;
using balance::Router;
using balance::UnitTally;

// Router adaptation per step under an aux loss: d relaxes towards its
// equilibrium -alpha * G / kappa with this rate (sets only the transient).
constexpr double kRouterRelax = 0.01;
// EMA length (steps) of the expected-load estimator (balance_stats.h).
constexpr int64_t kEstimatorWindow = 32;
// Fewest sampled tokens per sequence (the within-sequence variance needs >= 2;
// split-half f of the aux losses needs an even count).
constexpr int64_t kMinTokensPerSeq = 16;

struct SamplePlan {
  int64_t seqs = 1;
  int64_t tokens_per_seq = 1;
  bool exact = false;
  BatchShape batch;     // the global batch
  BatchShape dispatch;  // one EP all-to-all group
};

BatchShape ShapeOf(double tokens, int64_t seq_len) {
  const double l = std::min(static_cast<double>(seq_len), tokens);
  return BatchShape{tokens / l, l};
}

SamplePlan MakePlan(const BalanceConfig& c) {
  SamplePlan p;
  p.batch = ShapeOf(static_cast<double>(c.tokens_per_step), c.seq_len);
  p.dispatch = ShapeOf(static_cast<double>(c.ep * c.tokens_per_rank), c.seq_len);
  const auto batch_seqs = static_cast<int64_t>(std::ceil(p.batch.seqs - 1e-9));
  const auto l = static_cast<int64_t>(p.batch.seq_tokens);
  if (c.tokens_per_step <= c.sample_tokens) {
    p.exact = true;
    p.seqs = batch_seqs;
    p.tokens_per_seq = l;
    return p;
  }
  p.tokens_per_seq = std::clamp<int64_t>(c.sample_tokens / batch_seqs, kMinTokensPerSeq, l);
  p.seqs =
      std::clamp<int64_t>(c.sample_tokens / p.tokens_per_seq, 2, std::max<int64_t>(2, batch_seqs));
  return p;
}

// Rank tallies of extra EP degrees, tracked alongside the configured one:
// routing does not depend on ep, only the rank each pick lands on does.
struct TrackedEp {
  int64_t ep;
  UnitTally tally;
  LoadEstimator est;
  std::vector<LoadEstimator>* tail_states;
};

class Simulation {
 public:
  explicit Simulation(const BalanceConfig& c)
      : c_(c),
        plan_(MakePlan(c)),
        gen_({c.experts, c.zipf_s, c.drift}, c.seed),
        router_({c.experts, c.top_k, c.groups, c.topk_groups}),
        expert_tally_(c.experts),
        rank_tally_(c.ep),
        expert_est_(c.experts, kEstimatorWindow),
        rank_est_(c.ep, kEstimatorWindow),
        bias_(c.experts, 0.0),
        bias_f_(c.experts, 0.0f),
        disp_(c.experts, 0.0),
        disp_f_(c.experts, 0.0f),
        topic_(c.experts),
        total_load_(c.experts, 0.0),
        final_load_(c.experts, 0.0) {}

  BalanceResult Run(std::vector<LoadEstimator>* tail_rank_states);
  // Also fills `states` with the rank estimator of EP degree `ep` after each
  // of the last max(1, steps/10) steps. REQUIRES: ep divides experts.
  void Track(int64_t ep, std::vector<LoadEstimator>* states) {
    tracked_.push_back({ep, UnitTally(ep), LoadEstimator(ep, kEstimatorWindow), states});
  }

 private:
  bool IsAux() const {
    return c_.method == BalanceMethod::kAuxLoss || c_.method == BalanceMethod::kGlobalAuxLoss ||
           c_.method == BalanceMethod::kSeqAux;
  }
  void RouteStep();
  BalanceStep Measure(int64_t step, std::vector<double>* expert_load);
  void UpdateBias(const std::vector<double>& load);
  void UpdateDisplacement(const std::vector<double>& load);
  void AddScopeGradient(int64_t first_token, int64_t tokens, std::vector<double>* grad) const;

  BalanceConfig c_;
  SamplePlan plan_;
  AffinityGenerator gen_;
  Router router_;
  UnitTally expert_tally_, rank_tally_;
  LoadEstimator expert_est_, rank_est_;
  std::vector<double> bias_;
  std::vector<float> bias_f_;
  std::vector<double> disp_;
  std::vector<float> disp_f_;
  std::vector<float> topic_;
  std::vector<float> scores_;   // aux methods: [token][E] of this step's sample
  std::vector<int32_t> picks_;  // [token][K]
  std::vector<double> total_load_, final_load_;
  std::vector<TrackedEp> tracked_;
};

void Simulation::RouteStep() {
  const int64_t e_count = c_.experts, k = c_.top_k;
  const int64_t tokens = plan_.seqs * plan_.tokens_per_seq;
  scores_.resize(static_cast<size_t>(tokens * e_count));
  picks_.resize(static_cast<size_t>(tokens * k));
  expert_tally_.Reset();
  rank_tally_.Reset();
  for (TrackedEp& t : tracked_) t.tally.Reset();
  const bool aux_free = c_.method == BalanceMethod::kAuxFree;
  const int64_t per_rank = e_count / c_.ep;
  std::vector<int32_t> ranks(k);
  for (int64_t q = 0; q < plan_.seqs; ++q) {
    gen_.DrawTopic(topic_.data());
    for (int64_t t = 0; t < plan_.tokens_per_seq; ++t) {
      const int64_t tok = q * plan_.tokens_per_seq + t;
      float* s = scores_.data() + tok * e_count;
      int32_t* pick = picks_.data() + tok * k;
      gen_.TokenScores(topic_.data(), IsAux() ? disp_f_.data() : nullptr, s);
      router_.Route(s, aux_free ? bias_f_.data() : nullptr, pick);
      expert_tally_.AddToken(pick, k);
      for (int64_t j = 0; j < k; ++j) ranks[j] = static_cast<int32_t>(pick[j] / per_rank);
      rank_tally_.AddToken(ranks.data(), k);
      for (TrackedEp& tr : tracked_) {
        const int64_t per = e_count / tr.ep;
        for (int64_t j = 0; j < k; ++j) ranks[j] = static_cast<int32_t>(pick[j] / per);
        tr.tally.AddToken(ranks.data(), k);
      }
    }
    expert_tally_.EndSequence();
    rank_tally_.EndSequence();
    for (TrackedEp& tr : tracked_) tr.tally.EndSequence();
  }
  expert_est_.Observe(expert_tally_, plan_.tokens_per_seq);
  rank_est_.Observe(rank_tally_, plan_.tokens_per_seq);
  for (TrackedEp& tr : tracked_) tr.est.Observe(tr.tally, plan_.tokens_per_seq);
}

double AbsMax(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

BalanceStep Simulation::Measure(int64_t step, std::vector<double>* expert_load) {
  BalanceStep s;
  s.step = step;
  *expert_load = plan_.exact ? expert_tally_.Mean() : expert_est_.Rebuild(plan_.batch);
  const std::vector<double> rank_load =
      plan_.exact ? rank_tally_.Mean() : rank_est_.Rebuild(plan_.batch);
  s.max_vio_batch = balance::MaxVio(*expert_load);
  s.rank_load_max_over_mean = balance::MaxOverMean(rank_load);
  const bool dispatch_is_batch = plan_.exact && plan_.dispatch.seqs * plan_.dispatch.seq_tokens >=
                                                    plan_.batch.seqs * plan_.batch.seq_tokens;
  s.straggler = dispatch_is_batch ? s.rank_load_max_over_mean
                                  : balance::MaxOverMean(rank_est_.Rebuild(plan_.dispatch));
  s.bias_abs_max = AbsMax(bias_);
  s.displacement_abs_max = AbsMax(disp_);
  return s;
}

void Simulation::UpdateBias(const std::vector<double>& load) {
  balance::SignBiasUpdate(load, c_.bias_rate, &bias_);
  for (size_t i = 0; i < bias_.size(); ++i) bias_f_[i] = static_cast<float>(bias_[i]);
}

// Micro-batch / sequence scope over sampled tokens [first, first + tokens):
// split-half estimator, so a token's f comes from the other half of the
// scope and sampling noise in f does not correlate with its own scores.
void Simulation::AddScopeGradient(int64_t first, int64_t tokens, std::vector<double>* grad) const {
  const int64_t e_count = c_.experts, k = c_.top_k;
  for (int half = 0; half < 2; ++half) {
    std::vector<double> f(e_count, 0.0);
    int64_t n_other = 0;
    for (int64_t t = first; t < first + tokens; ++t) {
      if ((t - first) % 2 == half) continue;
      for (int64_t j = 0; j < k; ++j) f[picks_[t * k + j]] += 1;
      ++n_other;
    }
    if (n_other == 0) continue;
    const double norm = static_cast<double>(e_count) / static_cast<double>(k * n_other);
    for (double& v : f) v *= norm;
    for (int64_t t = first; t < first + tokens; ++t) {
      if ((t - first) % 2 != half) continue;
      balance::AddAuxLossLogitGradient(scores_.data() + t * e_count, f, e_count, grad);
    }
  }
}

// Aux losses shift the router's logits along -dL/dd; the language-model loss
// pulls them back with stiffness kappa: d <- (1 - w) d - w * alpha * G / kappa,
// G = mean over tokens of g_{t,j} (doc/cost-model.md §8.3).
void Simulation::UpdateDisplacement(const std::vector<double>& load) {
  const int64_t e_count = c_.experts;
  const int64_t tokens = plan_.seqs * plan_.tokens_per_seq;
  std::vector<double> grad(e_count, 0.0);
  if (c_.method == BalanceMethod::kGlobalAuxLoss) {
    std::vector<double> f(e_count);
    for (int64_t i = 0; i < e_count; ++i) {
      f[i] = load[i] * static_cast<double>(e_count) / static_cast<double>(c_.top_k);
    }
    for (int64_t t = 0; t < tokens; ++t) {
      balance::AddAuxLossLogitGradient(scores_.data() + t * e_count, f, e_count, &grad);
    }
  } else {
    const int64_t scope_seqs =
        c_.method == BalanceMethod::kSeqAux ? 1 : std::min(c_.microbatch_seqs, plan_.seqs);
    const int64_t scope = scope_seqs * plan_.tokens_per_seq;
    for (int64_t first = 0; first < tokens; first += scope) {
      AddScopeGradient(first, std::min(scope, tokens - first), &grad);
    }
  }
  for (int64_t j = 0; j < e_count; ++j) {
    const double g = grad[j] / static_cast<double>(tokens);
    disp_[j] = (1 - kRouterRelax) * disp_[j] - kRouterRelax * c_.alpha * g / c_.lm_stiffness;
    disp_f_[j] = static_cast<float>(disp_[j]);
  }
}

double MeanOf(const std::vector<BalanceStep>& series, int64_t begin, int64_t end,
              double BalanceStep::*field) {
  double sum = 0;
  for (int64_t i = begin; i < end; ++i) sum += series[i].*field;
  return end > begin ? sum / static_cast<double>(end - begin) : 0;
}

BalanceResult Simulation::Run(std::vector<LoadEstimator>* tail_rank_states) {
  BalanceResult r;
  r.series.reserve(static_cast<size_t>(c_.steps));
  const int64_t tail = std::max<int64_t>(1, c_.steps / 10);
  std::vector<double> load;
  for (int64_t n = 0; n < c_.steps; ++n) {
    gen_.AdvanceStep();
    RouteStep();
    r.series.push_back(Measure(n, &load));
    for (int64_t i = 0; i < c_.experts; ++i) {
      total_load_[i] += load[i];
      if (n >= c_.steps - tail) final_load_[i] += load[i];
    }
    if (c_.method == BalanceMethod::kAuxFree) UpdateBias(load);
    if (IsAux() && c_.alpha > 0) UpdateDisplacement(load);
    r.bias_abs_max = std::max(r.bias_abs_max, AbsMax(bias_));
    if (n >= c_.steps - tail) {
      if (tail_rank_states) tail_rank_states->push_back(rank_est_);
      for (TrackedEp& tr : tracked_) tr.tail_states->push_back(tr.est);
    }
  }
  const int64_t steps = c_.steps;
  r.max_vio_batch = MeanOf(r.series, steps - tail, steps, &BalanceStep::max_vio_batch);
  r.max_vio_batch_first = MeanOf(r.series, 0, tail, &BalanceStep::max_vio_batch);
  r.rank_load_max_over_mean =
      MeanOf(r.series, steps - tail, steps, &BalanceStep::rank_load_max_over_mean);
  r.straggler_factor = MeanOf(r.series, steps - tail, steps, &BalanceStep::straggler);
  r.max_vio_global = balance::MaxVio(total_load_);
  r.max_vio_global_final = balance::MaxVio(final_load_);
  r.sample_seqs = plan_.seqs;
  r.sample_tokens_per_seq = plan_.tokens_per_seq;
  r.exact = plan_.exact;
  return r;
}

}  // namespace

namespace balance {

Result<BalanceResult> SimulateBalanceWithStates(const BalanceConfig& config,
                                                std::vector<LoadEstimator>* tail_rank_states) {
  OCCAM_RETURN_IF_ERROR(ValidateBalanceConfig(config));
  Simulation sim(config);
  return sim.Run(tail_rank_states);
}

Status SimulateRankStates(const BalanceConfig& config, const std::vector<int64_t>& eps,
                          std::vector<std::vector<LoadEstimator>>* states) {
  OCCAM_RETURN_IF_ERROR(ValidateBalanceConfig(config));
  for (int64_t ep : eps) {
    if (ep < 1 || config.experts % ep != 0) {
      return InvalidInput("--ep " + std::to_string(ep) + " must divide --experts " +
                          std::to_string(config.experts));
    }
  }
  states->assign(eps.size(), {});
  Simulation sim(config);
  for (size_t i = 0; i < eps.size(); ++i) sim.Track(eps[i], &(*states)[i]);
  sim.Run(nullptr);
  return Status::Ok();
}

double StragglerFromStates(const std::vector<LoadEstimator>& states, int64_t ep,
                           int64_t tokens_per_rank, int64_t seq_len) {
  if (states.empty()) return 1.0;
  const BatchShape group = ShapeOf(static_cast<double>(ep * tokens_per_rank), seq_len);
  double sum = 0;
  for (const LoadEstimator& s : states) sum += MaxOverMean(s.Rebuild(group));
  return sum / static_cast<double>(states.size());
}

}  // namespace balance

Result<BalanceResult> SimulateBalance(const BalanceConfig& config) {
  return balance::SimulateBalanceWithStates(config, nullptr);
}

}  // namespace occam
