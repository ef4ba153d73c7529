// Test-only: a small analytic stand-in for StepModel, so the planner's
// enumeration, pruning, ranking and verdict are tested apart from the cost
// model. Its numbers are deliberately simple but keep the properties the
// planner relies on: memory and time never below the bounds of bounds.h.
#pragma once

#include <algorithm>
#include <string>

#include "occam/spec.h"
#include "search/bounds.h"
#include "search/evaluator.h"

namespace occam::search::testing {

// A 9-layer MoE model (16 experts, top-2, one shared expert, first layer dense).
inline ModelSpec SmallMoe() {
  ModelSpec m;
  m.name = "small-moe";
  m.num_layers = 9;
  m.hidden = 1024;
  m.vocab = 32000;
  m.attention.num_heads = 16;
  m.attention.num_kv_heads = 16;
  m.attention.head_dim = 64;
  m.ffn_hidden = 4096;
  MoeSpec moe;
  moe.num_experts = 16;
  moe.top_k = 2;
  moe.num_shared_experts = 1;
  moe.expert_ffn = 2048;
  moe.shared_expert_ffn = 2048;
  moe.first_k_dense = 1;
  m.moe = moe;
  return m;
}

inline ModelSpec SmallDense() {
  ModelSpec m = SmallMoe();
  m.name = "small-dense";
  m.moe.reset();
  m.num_layers = 8;
  return m;
}

// Nodes of 8 chips on a fast switch, joined by a slower fabric.
inline ClusterSpec SmallCluster(int64_t chips, double hbm_gb = 8, double fabric_gbps = 25) {
  ClusterSpec c;
  c.name = "test";
  c.num_chips = chips;
  c.chip.key = "test-chip";
  c.chip.peak_bf16 = TFlops(400);
  c.chip.peak_fp8 = TFlops(400);
  c.chip.hbm = GB(hbm_gb);
  c.chip.hbm_bandwidth = GBps(2000);
  TierSpec node;
  node.name = "nvlink";
  node.size = std::min<int64_t>(8, chips);
  node.bandwidth = GBps(200);
  TierSpec fabric;
  fabric.name = "ib";
  fabric.kind = TierKind::kFatTree;
  fabric.size = chips;
  fabric.bandwidth = GBps(fabric_gbps);
  c.tiers = {node, fabric};
  return c;
}

inline JobSpec SmallJob(int64_t seqs = 64) {
  JobSpec j;
  j.seq_len = 4096;
  j.global_batch_seqs = seqs;
  return j;
}

class FakeEvaluator final : public LayoutEvaluator {
 public:
  FakeEvaluator(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job)
      : cluster_(cluster), job_(job), bounds_(model, cluster, job) {}

  Status Validate(const PlanSpec& p) const override {
    if (p.chips() != cluster_.num_chips) return InvalidInput("plan field 'dp': chips");
    if (p.schedule == Schedule::kDualPipe && p.pp % 2 != 0) {
      return InvalidInput("plan field 'pp': dualpipe needs an even pp");
    }
    return Status::Ok();
  }

  QuickEstimate Quick(const PlanSpec& p) const override {
    QuickEstimate q;
    const Parts t = Times(p);
    q.step_time = Seconds(t.compute + t.tp + t.ep + t.dp + t.bubble);
    q.memory_total = Bytes(Memory(p));
    q.fits = q.memory_total <= bounds_.capacity();
    q.mfu = Mfu(q.step_time);
    return q;
  }

  // Compute alone (every other part is >= 0); depends on mbs and recompute
  // only, as the contract asks.
  PlanBounds LowerBounds(const PlanSpec& p) const override { return {Times(p).compute, {}}; }

  Result<Estimate> Full(const PlanSpec& p) const override {
    const QuickEstimate q = Quick(p);
    const Parts t = Times(p);
    Estimate e;
    e.plan = p;
    e.step_time = q.step_time;
    e.mfu = q.mfu;
    e.memory.weights = q.memory_total;
    e.memory_capacity = bounds_.capacity();
    e.fits = q.fits;
    const std::string dp_tier = DpCrossesNode(p) ? "ib" : "nvlink";
    e.breakdown = {{"compute", "", "", Seconds(t.compute), Seconds(t.compute)},
                   {"tp all-reduce", "tp", "nvlink", Seconds(t.tp), Seconds(t.tp)},
                   {"ep all-to-all", "ep", "nvlink", Seconds(t.ep), Seconds(t.ep)},
                   {"dp reduce-scatter", "dp", dp_tier, Seconds(t.dp), Seconds(t.dp)},
                   {"pipeline bubble", "pp", "", Seconds(t.bubble), Seconds(t.bubble)}};
    e.bottleneck = "test bottleneck";
    return e;
  }

  const Bounds& bounds() const { return bounds_; }

 private:
  struct Parts {
    double compute = 0, tp = 0, ep = 0, dp = 0, bubble = 0;
  };

  bool DpCrossesNode(const PlanSpec& p) const {
    return p.tp * p.cp * p.dp > cluster_.tiers.front().size;
  }

  double Mfu(Seconds step) const {
    const double tokens = static_cast<double>(job_.global_batch_tokens());
    return bounds_.flops_per_token() * tokens /
           (step.value() * static_cast<double>(cluster_.num_chips) *
            cluster_.chip.peak_bf16.value());
  }

  Parts Times(const PlanSpec& p) const {
    Parts t;
    const double tokens = static_cast<double>(job_.global_batch_tokens());
    const double ideal = bounds_.flops_per_token() * tokens /
                         static_cast<double>(cluster_.num_chips) / cluster_.chip.peak_bf16.value();
    const double rc = p.recompute == Recompute::kFull        ? 4.0 / 3.0
                      : p.recompute == Recompute::kSelective ? 1.05
                                                             : 1.0;
    t.compute = ideal / 0.6 * rc * (1.0 + 0.2 / static_cast<double>(p.mbs));
    t.tp = t.compute * 0.08 * static_cast<double>(p.tp - 1) / static_cast<double>(p.tp);
    t.tp += t.compute * 0.03 * static_cast<double>(p.cp - 1);
    if (p.schedule != Schedule::kDualPipe && p.schedule != Schedule::kDualPipeV) {
      t.ep = t.compute * 0.02 * static_cast<double>(p.ep > 1 ? 1 : 0) * (p.ep > 8 ? 3.0 : 1.0);
    }
    const double params = bounds_.dense_params() / static_cast<double>(p.tp) +
                          bounds_.expert_params() / static_cast<double>(p.ep);
    const double bw = DpCrossesNode(p) ? cluster_.tiers.back().bandwidth.value()
                                       : cluster_.tiers.front().bandwidth.value();
    double dp = p.dp > 1 ? 2.0 * params / static_cast<double>(p.pp) / bw : 0.0;
    if (p.zero == 3) dp *= 1.5;
    if (!p.order.empty()) dp *= 0.97;
    t.dp = std::max(0.0, dp - (p.pp > 1 ? 0.8 : 0.3) * t.compute);
    t.bubble = t.compute * (BubbleFactor(p) - 1.0);
    return t;
  }

  double BubbleFactor(const PlanSpec& p) const {
    if (p.pp == 1) return 1.0;
    const double m = static_cast<double>(job_.global_batch_seqs / (p.dp * p.mbs));
    const double f = static_cast<double>(p.pp - 1);
    switch (p.schedule) {
      case Schedule::kInterleaved:
        return 1.0 + f / (m * static_cast<double>(p.vpp));
      case Schedule::kZbH1:
        return 1.0 + f / (3.0 * m);
      case Schedule::kZbV:
        return 1.0 + f / (6.0 * m);
      case Schedule::kDualPipe:
      case Schedule::kDualPipeV:
        return 1.0 + f / (4.0 * m);
      default:
        return 1.0 + f / m;
    }
  }

  double Memory(const PlanSpec& p) const {
    const double tp_pp = static_cast<double>(p.tp * p.pp);
    const double ep_pp = static_cast<double>(p.ep * p.etp * p.pp);
    const double dpcp = static_cast<double>(p.dp * p.cp);
    // Dense weights shard over the dp*cp ranks, experts over the
    // tp*cp*dp/(ep*etp) ranks that hold the same experts (parallel folding).
    const double dense = bounds_.dense_params() / tp_pp;
    const double experts = bounds_.expert_params() / ep_pp;
    const double edp = static_cast<double>(p.tp) * dpcp / static_cast<double>(p.ep * p.etp);
    const double sharded = dense / dpcp + experts / edp;
    const double local = dense + experts;
    double weights = 2.0 * local, grads = 2.0 * local, opt = 12.0 * local;
    if (p.zero >= 1) opt = 12.0 * sharded;
    if (p.zero >= 2) grads = 2.0 * sharded;
    if (p.zero >= 3) {
      const double h = static_cast<double>(p.hsdp);
      weights = p.hsdp > 0 ? 2.0 * (dense / std::min(h, dpcp) + experts / std::min(h, edp))
                           : 2.0 * sharded;
    }
    const double m = static_cast<double>(job_.global_batch_seqs / (p.dp * p.mbs));
    double inflight = p.pp > 1 ? static_cast<double>(p.pp) : 1.0;
    if (p.schedule == Schedule::kGpipe) inflight = m;
    const double rc = p.recompute == Recompute::kFull        ? 0.1
                      : p.recompute == Recompute::kSelective ? 0.5
                                                             : 1.0;
    const double act = 34.0 * static_cast<double>(job_.seq_len * p.mbs) * 1024.0 /
                       static_cast<double>(p.tp * p.cp) * 9.0 / static_cast<double>(p.pp) *
                       inflight * rc;
    return weights + grads + opt + act;
  }

  ClusterSpec cluster_;
  JobSpec job_;
  Bounds bounds_;
};

}  // namespace occam::search::testing
