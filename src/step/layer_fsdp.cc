// ZeRO-3 / FSDP collectives of one block or end segment (layer_cost.h;
// doc/cost-model.md § 6).
#include <algorithm>
#include <array>
#include <cmath>

#include "step/comm.h"
#include "step/layer_cost.h"

namespace occam::step_internal {
namespace {

// ZeRO-3 / FSDP: gather weights before forward and backward, reduce-scatter
// gradients after backward. Each collective unit is its own call with its
// own ring latency and chunk efficiency (doc/cost-model.md §4.2-4.3): a
// block's dense and expert weights (FSDP's per-block wrapping), or, with
// fsdp_per_tensor, every weight matrix alone (DeepSpeed ZeRO-3 of 2021:
// _allgather_param / _reduce_scatter_gradient per parameter tensor,
// deepspeed/runtime/zero/partition_parameters.py; bias and norm vectors
// under stage3_param_persistence_threshold stay unpartitioned and are not
// gathered). With fsdp_overlap the gathers are prefetched and the
// reduce-scatters run on their own stream, hidden behind the block's
// compute (Settle); without it they run on the compute stream, exposed
// (DeepSpeed overlap_comm false: the reduction on the current stream,
// deepspeed/runtime/zero/stage2.py average_tensor; synchronous module gathers).
//
// A recomputed forward under DeepSpeed's hooks gathers its weights once
// more: the forward pre-hook fetches a module's parameters and the forward
// post-hook releases them on every forward call, the one checkpointing
// re-runs inside the backward included, and the backward pre-hook then
// fetches them again (deepspeed/runtime/zero/parameter_offload.py,
// pre_/post_sub_module_forward_function, pre_sub_module_backward_function;
// deepspeedai/DeepSpeed#4784 describes the hooks firing in the recompute).
// torch FSDP skips its post-forward reshard in a recomputed forward, so the
// backward's unshard serves both (torch/distributed/fsdp/_runtime_utils.py
// _post_forward, "skip post-forward logic in the recomputed forward"): the
// per-block units gather twice.
struct FsdpUnits {
  struct Unit {
    double params = 0, count = 0;  // `count` collectives of `params` parameters each
    RankGroup group;
    bool regather = false;  // gathered again for the recomputed forward
  };
  std::array<Unit, 4 * GemmWork::kMaxShapes + 2> units{};
  int size = 0;
  void Add(double params, double count, RankGroup group, bool regather = false) {
    if (params > 0 && count > 0 && size < static_cast<int>(units.size())) {
      units[static_cast<size_t>(size++)] = Unit{params, count, group, regather};
    }
  }
  // Each matmul shape of `g` (equal shapes merged: count = flops / (2 x
  // weights)), `copies` times, split over `split` ranks.
  void AddMatrices(const GemmWork& g, double copies, double split, RankGroup group, bool regather) {
    for (int i = 0; i < g.num_shapes; ++i) {
      const GemmWork::Shape& x = g.shapes[static_cast<size_t>(i)];
      const double weights = x.small * x.large;
      if (weights <= 0) continue;
      Add(weights / split, copies * std::round(x.flops / (2.0 * weights)), group, regather);
    }
  }
};

FsdpUnits WholeUnits(const PlanContext& c, const Seg& s) {
  FsdpUnits u;
  u.Add(s.params_dense, 1, c.fsdp_dense);
  u.Add(s.params_expert, 1, c.fsdp_expert);
  return u;
}

// Which of a block's weight matrices its backward's recomputation runs:
// all under full recompute and under operator-level checkpointing (the
// block's forward re-runs, only the kept operators' outputs come from the
// cache, so every module's hooks fire); none under selective recompute (the
// attention core holds no weights); under module recompute those of the named
// modules that hold matrices (the MLP, the shared experts, the whole MoE
// layer with its router; the MLA up-projections are a part of the attention
// projections that is not split out, so they are not counted).
struct Recomputed {
  bool attn = false, mlp = false, moe = false;
};
Recomputed RecomputedMatrices(const PlanSpec& p, bool moe_block) {
  if (p.recompute == Recompute::kFull || p.recompute == Recompute::kSelectiveOp) {
    return {true, true, true};
  }
  // JAX's dot-saving policies: the routed experts re-run, and the MLP's
  // input projections where they are not saved.
  if (p.recompute == Recompute::kDots) return {false, false, moe_block};
  if (p.recompute == Recompute::kDotsExceptMlpWi || p.recompute == Recompute::kDotsExceptMlp) {
    return {false, true, moe_block};
  }
  if (p.recompute != Recompute::kModules) return {};
  const unsigned m = p.recompute_modules;
  const bool moe = moe_block && (m & recompute_module::kMoe) != 0;
  const bool mlp = moe_block ? moe || (m & recompute_module::kSharedExperts) != 0
                             : (m & recompute_module::kMlp) != 0;
  return {false, mlp, moe};
}

FsdpUnits BlockUnits(const PlanContext& c, const BlockWork& b, const Seg& s) {
  if (!c.job->fsdp_per_tensor) return WholeUnits(c, s);
  FsdpUnits u;
  const Recomputed r = RecomputedMatrices(*c.plan, b.top_k > 0);
  const double tp = static_cast<double>(c.plan->tp);
  u.AddMatrices(b.attn_proj, 1, tp, c.fsdp_dense, r.attn);
  u.AddMatrices(b.mlp, 1, tp, c.fsdp_dense, r.mlp);
  u.AddMatrices(b.router, 1, 1, c.fsdp_dense, r.moe);
  if (b.top_k > 0) {
    const double local = static_cast<double>(c.model->moe->num_experts / c.plan->ep);
    u.AddMatrices(b.expert, local, static_cast<double>(c.plan->etp), c.fsdp_expert, r.moe);
  }
  return u;
}

void AddUnits(const PlanContext& c, const FsdpUnits& u, Seg& s, Hide& h) {
  if (c.plan->zero < 3) return;
  Seconds ag, again, rs;
  for (int i = 0; i < u.size; ++i) {
    const FsdpUnits::Unit& x = u.units[static_cast<size_t>(i)];
    const Seconds gather =
        x.count *
        c.Comm(CollectiveOp::kAllGather, Bytes(x.params * kWeightBytesPerParam), x.group).time;
    ag += gather;
    if (x.regather) again += gather;
    rs += x.count * c.Comm(CollectiveOp::kReduceScatter,
                           Bytes(x.params * GradReduceBytesPerParam(*c.job)), x.group)
                        .time;
  }
  s.total[kAxFsdp] += 2 * ag + again + rs;
  s.total_f[kAxFsdp] += ag;
  // The gradients' reduce-scatter follows the pass that produces them: W
  // where it runs apart (split_w).
  auto& f = c.job->fsdp_overlap ? h.f : s.exp_f;
  auto& b = c.job->fsdp_overlap ? h.b : s.exp_b;
  auto& w = !c.split_w ? b : c.job->fsdp_overlap ? h.w : s.exp_w;
  f[kAxFsdp] += ag;
  b[kAxFsdp] += ag + again;
  w[kAxFsdp] += rs;
}

}  // namespace

void AddBlockFsdp(const PlanContext& c, const BlockWork& b, Seg& s, Hide& h) {
  AddUnits(c, BlockUnits(c, b, s), s, h);
}

void AddWholeFsdp(const PlanContext& c, Seg& s, Hide& h) { AddUnits(c, WholeUnits(c, s), s, h); }

double LargestFsdpMatrix(const PlanContext& c, bool has_embedding, bool has_head) {
  double largest = 0;
  const Seg none{};
  for (const BlockWork* b : {&c.work->dense, &c.work->moe}) {
    if (b->params_dense + b->params_expert == 0) continue;
    const FsdpUnits u = BlockUnits(c, *b, none);
    for (int i = 0; i < u.size; ++i) {
      largest = std::max(largest, u.units[static_cast<size_t>(i)].params);
    }
  }
  // The word embedding and the LM head are V x h each (a tied head is the
  // embedding's matrix), split over tp by Megatron-LM's vocab-parallel
  // layers; learned position embeddings are a smaller tensor of their own.
  if (has_embedding || has_head) {
    const double vocab = static_cast<double>(c.work->vocab) * static_cast<double>(c.work->hidden);
    largest = std::max(largest, vocab / static_cast<double>(c.plan->tp));
  }
  return largest;
}

}  // namespace occam::step_internal
