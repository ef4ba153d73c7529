// Test-only: random valid inputs (model, cluster, job, plan) for property
// tests and fuzz targets. The generator is a template over a source of
// choices, so the same code is driven by a seeded PRNG (property tests) or by
// libFuzzer's bytes (fuzz/).
//
//   struct Source {
//     int64_t Range(int64_t lo, int64_t hi);  // uniform in [lo, hi]
//   };
//
// Shapes are small (layers <= 48, hidden <= 8192, chips <= 1024) so that one
// estimate stays cheap. Every model passes ValidateModel by construction; a
// plan is valid only when ValidatePlan says so (callers check).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "occam/spec.h"
#include "occam/step.h"

namespace occam::testing {

// A seeded PRNG source for property tests.
class PrngSource {
 public:
  explicit PrngSource(uint64_t seed) : rng_(seed) {}
  int64_t Range(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

 private:
  std::mt19937_64 rng_;
};

template <class Source>
int64_t PowerOfTwo(Source& s, int lo_exp, int hi_exp) {
  return int64_t{1} << s.Range(lo_exp, hi_exp);
}

template <class Source>
MoeSpec RandomMoe(Source& s, int64_t layers) {
  MoeSpec e;
  e.num_experts = PowerOfTwo(s, 1, 7);
  e.top_k = s.Range(1, std::min<int64_t>(8, e.num_experts));
  e.num_shared_experts = s.Range(0, 2);
  e.expert_ffn = 64 * s.Range(1, 32);
  e.shared_expert_ffn = e.num_shared_experts > 0 ? e.expert_ffn : 0;
  e.first_k_dense = s.Range(0, std::min<int64_t>(3, layers - 1));
  e.layer_freq = s.Range(1, std::min<int64_t>(2, layers));
  if (s.Range(0, 3) == 0 && e.num_experts >= 4) {  // group-limited routing
    e.num_groups = 4;
    e.topk_groups = s.Range(1, 4);
    const int64_t reachable = e.topk_groups * (e.num_experts / e.num_groups);
    e.top_k = std::min(e.top_k, reachable);
  }
  e.router_bias = s.Range(0, 1) == 1;
  e.expert_bias = s.Range(0, 1) == 1;
  return e;
}

template <class Source>
ModelSpec RandomModel(Source& s) {
  ModelSpec m;
  m.name = "random";
  m.model_type = "occam";
  m.num_layers = s.Range(1, 48);
  AttentionSpec& a = m.attention;
  a.num_heads = PowerOfTwo(s, 0, 6);
  a.head_dim = 32 * s.Range(1, 4);
  m.hidden = a.num_heads * a.head_dim * s.Range(1, 2);
  if (s.Range(0, 3) == 0) {
    a.kind = AttentionKind::kMla;
    a.num_kv_heads = a.num_heads;
    a.mla.q_lora_rank = s.Range(0, 1) * 64 * s.Range(1, 8);
    a.mla.kv_lora_rank = 32 * s.Range(1, 16);
    a.mla.qk_nope_head_dim = 32 * s.Range(1, 4);
    a.mla.qk_rope_head_dim = 16 * s.Range(1, 4);
    a.mla.v_head_dim = 32 * s.Range(1, 4);
    a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
  } else {
    a.num_kv_heads = a.num_heads >> s.Range(0, 3);
    if (a.num_kv_heads < 1) a.num_kv_heads = 1;
    a.qkv_bias = s.Range(0, 1) == 1;
  }
  if (s.Range(0, 3) == 0) {
    a.sliding_window = 128 * s.Range(1, 32);
    a.sliding_fraction = static_cast<double>(s.Range(0, 4)) / 4.0;
  }
  m.vocab = s.Range(256, 160000);
  m.ffn_hidden = 64 * s.Range(1, 128);
  m.gated_mlp = s.Range(0, 3) != 0;
  m.mlp_bias = s.Range(0, 3) == 0;
  m.tied_embeddings = s.Range(0, 2) == 0;
  m.norm = s.Range(0, 1) == 0 ? NormKind::kRmsNorm : NormKind::kLayerNorm;
  if (s.Range(0, 1) == 1) {
    m.moe = RandomMoe(s, m.num_layers);
    m.mtp_layers = s.Range(0, 1);
  }
  return m;
}

// A catalog cluster sized to a power-of-two chip count; nullopt when the
// template cannot be sized to that count (TPU slice shapes).
template <class Source>
std::optional<ClusterSpec> RandomCluster(Source& s) {
  const std::vector<std::string> names = CatalogClusterNames();
  if (names.empty()) return std::nullopt;
  const std::string& name = names[s.Range(0, static_cast<int64_t>(names.size()) - 1)];
  const int64_t chips = PowerOfTwo(s, 3, 10);
  Result<ClusterSpec> cluster = CatalogCluster(name, chips);
  if (!cluster.ok()) return std::nullopt;
  return *std::move(cluster);
}

// Largest power of two <= cap that divides n.
inline int64_t PowerOfTwoDivisor(int64_t n, int64_t cap) {
  int64_t d = 1;
  while (d * 2 <= cap && n % (d * 2) == 0) d *= 2;
  return d;
}

// A plan for `chips` chips built from power-of-two degrees; the job's batch
// is chosen to fit it (global batch = dp * mbs * micro-batches). The pair may
// still fail ValidatePlan (e.g. heads vs tp); callers check.
template <class Source>
PlanSpec RandomPlan(Source& s, const ModelSpec& m, int64_t chips) {
  PlanSpec p;
  int64_t left = chips;
  p.tp = int64_t{1} << s.Range(0, 3);
  p.tp = std::min(p.tp, PowerOfTwoDivisor(left, p.tp));
  left /= p.tp;
  p.pp = std::min<int64_t>(int64_t{1} << s.Range(0, 3), PowerOfTwoDivisor(left, 8));
  p.pp = std::min(p.pp, PowerOfTwoDivisor(m.num_layers, p.pp));
  left /= p.pp;
  p.cp = s.Range(0, 3) == 0 ? PowerOfTwoDivisor(left, 2) : 1;
  left /= p.cp;
  p.dp = left;
  if (m.moe) p.ep = PowerOfTwoDivisor(p.dp * p.cp, std::min<int64_t>(m.moe->num_experts, 64));
  p.ep = std::max<int64_t>(1, p.ep >> s.Range(0, 2));
  p.zero = static_cast<int>(s.Range(0, 3));
  p.mbs = s.Range(1, 4);
  p.recompute = static_cast<Recompute>(s.Range(0, 2));
  if (p.pp > 1) {
    constexpr Schedule kSchedules[] = {Schedule::kGpipe,    Schedule::k1F1B, Schedule::kInterleaved,
                                       Schedule::kZbH1,     Schedule::kZbV,  Schedule::kDualPipe,
                                       Schedule::kDualPipeV};
    p.schedule = kSchedules[s.Range(0, 6)];
    if (p.schedule == Schedule::kInterleaved || p.schedule == Schedule::kZbV ||
        p.schedule == Schedule::kDualPipeV) {
      p.vpp = 2;
    }
  }
  return p;
}

template <class Source>
JobSpec RandomJob(Source& s, const PlanSpec& plan) {
  JobSpec j;
  j.seq_len = PowerOfTwo(s, 8, 14);
  const int64_t microbatches = s.Range(2 * plan.pp, 4 * plan.pp + 8);
  j.global_batch_seqs = plan.dp * plan.mbs * microbatches;
  j.precision = s.Range(0, 3) == 0 ? Precision::kFp8 : Precision::kBf16;
  // Global-batch aux loss forces GPipe; keep it for GPipe / no-PP plans only.
  j.balance = static_cast<BalanceMethod>(s.Range(0, 4));
  if (j.balance == BalanceMethod::kGlobalAuxLoss && plan.schedule != Schedule::kNone &&
      plan.schedule != Schedule::kGpipe) {
    j.balance = BalanceMethod::kAuxFree;
  }
  // An explicit EP imbalance: the default (0) runs a routing simulation per
  // model, which has its own tests and would dominate the time of a case.
  j.moe_imbalance = 1.0 + static_cast<double>(s.Range(0, 100)) / 100.0;
  return j;
}

// A full random case. Returns nullopt when the drawn combination is not
// valid (cluster not sizable, or ValidatePlan rejects the plan).
struct RandomCase {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  PlanSpec plan;
};

template <class Source>
std::optional<RandomCase> DrawCase(Source& s) {
  RandomCase c;
  c.model = RandomModel(s);
  std::optional<ClusterSpec> cluster = RandomCluster(s);
  if (!cluster) return std::nullopt;
  c.cluster = *std::move(cluster);
  c.plan = RandomPlan(s, c.model, c.cluster.num_chips);
  c.job = RandomJob(s, c.plan);
  if (!ValidatePlan(c.model, c.cluster, c.job, c.plan).ok()) return std::nullopt;
  return c;
}

// The invariants every estimate must meet; returns the first one violated,
// or "" when all hold. Relative tolerance `tol` for identities.
inline std::string EstimateViolation(const RandomCase& c, const Estimate& e, double tol = 1e-9) {
  auto finite_nonneg = [](double v) { return std::isfinite(v) && v >= 0; };
  auto close = [tol](double a, double b) {
    return std::fabs(a - b) <= tol * std::max({std::fabs(a), std::fabs(b), 1e-300});
  };
  const double t = e.step_time.value();
  if (!(std::isfinite(t) && t > 0)) return "step time must be finite and > 0";
  if (!(std::isfinite(e.tokens_per_s) && e.tokens_per_s > 0)) return "tokens/s must be > 0";
  const double tokens = static_cast<double>(c.job.global_batch_tokens());
  if (!close(e.tokens_per_s * t, tokens)) return "tokens/s x step time != tokens per step";
  const double chips = static_cast<double>(c.cluster.num_chips);
  if (!close(e.tokens_per_s_per_chip * chips, e.tokens_per_s)) {
    return "tokens/s per chip x chips != tokens/s";
  }
  if (!(e.mfu > 0 && e.mfu <= 1)) return "MFU must be in (0, 1]";
  if (!(e.hfu >= e.mfu * (1 - tol))) return "HFU must be >= MFU";
  if (!(e.hfu <= 1 + tol)) return "HFU must be <= 1";
  const MemoryBreakdown& m = e.memory;
  for (const Bytes b : {m.weights, m.grads, m.optimizer, m.activations, m.logits, m.other}) {
    if (!finite_nonneg(b.value())) return "memory components must be finite and >= 0";
  }
  const double sum = m.weights.value() + m.grads.value() + m.optimizer.value() +
                     m.activations.value() + m.logits.value() + m.other.value();
  if (!close(sum, m.total().value())) return "memory components must sum to the total";
  if (e.fits != (m.total() <= e.memory_capacity)) return "fits must mean total <= capacity";
  if (!finite_nonneg(e.bubble.value()) || e.bubble > e.step_time * (1 + tol)) {
    return "bubble must be in [0, step time]";
  }
  for (const TimeItem& item : e.breakdown) {
    if (!finite_nonneg(item.total.value()) || !finite_nonneg(item.exposed.value())) {
      return "breakdown item '" + item.what + "' must be finite and >= 0";
    }
  }
  if (!(e.model_flops_per_token.value() > 0)) return "model FLOPs per token must be > 0";
  return "";
}

}  // namespace occam::testing
