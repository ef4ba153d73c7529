// Per-micro-batch cost of one block kind (and of the embedding, LM head and
// MTP module) on one chip for one plan: compute split into forward /
// input-gradient / weight-gradient, communication per parallel axis (total
// and exposed), and stored activations. Sources: doc/cost-model.md §2, §3, §6.
//
// Symbols: b micro-batch (plan.mbs), s sequence, T = b*s/cp tokens per chip,
// h hidden, k top-k, E experts, lambda EP rank imbalance.
#pragma once

#include <array>

#include "occam/collective.h"
#include "occam/cost.h"
#include "occam/schedule_traits.h"
#include "occam/spec.h"
#include "occam/units.h"
#include "step/comm.h"

namespace occam::step_internal {

// kAxHost: the MoE dispatcher's host time after its device-to-host sync,
// hidden (or not) with the expert all-to-all it precedes. kAxOffload:
// activation offload to host memory and its reload, over the host link.
enum Ax { kAxTp = 0, kAxCp, kAxEp, kAxFsdp, kAxHost, kAxOffload, kNumAx };

// Per-axis times of one piece of the model.
using AxisTimes = std::array<Seconds, kNumAx>;

struct Seg {
  Seconds cf, cb, cw;        // compute: forward, input-grad (+recompute), weight-grad
  AxisTimes total{};         // communication time per axis
  AxisTimes total_f{};       // the part of `total` in the forward (the rest: backward, recompute)
  AxisTimes exp_f{};         // exposed part in the forward
  AxisTimes exp_b{};         // exposed part in the input-gradient pass
  AxisTimes exp_w{};         // exposed part in the weight-gradient pass (paired windows)
  Bytes act;                 // kept per micro-batch (balanced routing)
  Bytes act_extra;           // routing-imbalance headroom per micro-batch
  Bytes act_work;            // full or module recompute: one block's tensors rebuilt at a time
  double params_dense = 0;   // parameters on this chip outside routed experts
  double params_expert = 0;  // routed-expert parameters on this chip
  // EpWindow::kPaired: the paired share's hideable communication per axis
  // (already weighted by 1 - u) and the attention core of its passes, not
  // yet settled: a pair pools the compute of a whole chunk (dense blocks,
  // embedding, head and MTP included), so ChunkSegOf settles it once the
  // chunk is summed (SettlePaired).
  AxisTimes pair{};
  Seconds pair_core;
  double pair_share = 0;  // 1 - u, the same for every block of a plan
  void Add(const Seg& o, double times);
  Seconds ExposedF() const;
  Seconds ExposedB() const;
  Seconds ExposedW() const;
  // Exposed communication of axis `a` over all passes.
  Seconds ExposedOn(int a) const { return exp_f[a] + exp_b[a] + exp_w[a]; }
};

// Collective costs already computed for one layout: its blocks, probes and
// tails issue the same (op, bytes, group, options) several times (the tp
// all-gather of every block, the dispatch and combine all-to-alls under
// BF16). A miss costs the call through Collective() and keeps the result;
// once full, further misses are costed but not kept. Each group's layout on
// the tiers is prepared once (PrepareGroup). One evaluation, one thread: not
// shared.
class CommMemo {
 public:
  // Misses go to `costs` (with `groups`) when set (StepModel::Impl), else
  // straight to Collective().
  void set_caches(const GroupCache* groups, const CollectiveCache* costs) {
    groups_ = groups;
    costs_ = costs;
  }
  CommCost Get(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
               const CollectiveOptions& options);
  // Not looked up or kept here: for calls the layout does not repeat.
  CommCost Once(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                const CollectiveOptions& options) const;
  // The same with the busy time per tier (CollectiveLoad).
  CommLoad Load(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                const CollectiveOptions& options) const;

 private:
  struct Entry {
    CollectiveOp op = CollectiveOp::kAllReduce;
    Bytes bytes;
    RankGroup group;
    CollectiveOptions options;
    CommCost cost;
  };
  std::array<Entry, 12> entries_{};
  size_t size_ = 0;
  const GroupCache* groups_ = nullptr;
  const CollectiveCache* costs_ = nullptr;
};

// What the expert all-to-all of a block hides behind (doc/cost-model.md,
// "Expert all-to-all overlap"): nothing; a paired pass of another
// micro-batch (DualPipe's F&B chunks, combined 1F1B); the other half of its
// own micro-batch (two-batch overlap); the shared expert.
enum class EpWindow { kExposed, kPaired, kHalves, kShared };

EpWindow EpWindowOf(const PlanSpec& plan, bool dual);
// DualPipe / DualPipeV with more than one stage: every pass's all-to-all is
// the schedule's F&B pairs' to hide (PlanContext::dual).
inline bool DualPipeline(const PlanSpec& plan) {
  return TraitsOf(plan.schedule).overlaps_a2a && plan.pp > 1;
}

// Everything about a plan that all blocks share.
struct PlanContext {
  const ModelSpec* model = nullptr;
  const ClusterSpec* cluster = nullptr;
  const JobSpec* job = nullptr;
  const ModelWork* work = nullptr;
  const PlanSpec* plan = nullptr;
  AxisGroups groups;
  RankGroup dense_dp;     // gradient group of dense weights (dp x cp)
  RankGroup fsdp_dense;   // ZeRO-3 shard group of dense weights (hsdp or dp x cp)
  RankGroup fsdp_expert;  // ZeRO-3 shard group of experts
  double tokens = 0;      // T = b*s/cp
  double lambda = 1;      // EP rank imbalance
  bool dual = false;      // DualPipe / DualPipeV overlap EP all-to-all
  // The W pass runs apart from B (ScheduleTraits::defers_weight_grad): each
  // has its own overlap window (Hide::w).
  bool split_w = false;
  EpWindow ep_window = EpWindow::kExposed;
  // kPaired, kHalves: the share of passes whose all-to-all runs alone,
  // exposed (warm-up forwards and cool-down backwards, the mean over the
  // pipeline ranks; a pass's first half dispatch and last half combine).
  // DualPipe's share is counted from its operation list
  // (UnpairedPassFraction), the one the simulator plays.
  double a2a_unpaired = 1;
  std::array<int, kNumAx> tier{-1, -1, -1, -1, -1, -1};
  // Per axis, the fraction of its collectives' time each cluster tier's
  // links are busy (CollectiveCost::busy / time of the axis's probe call;
  // 0 for the host and offload axes, which use no network tier).
  std::array<std::array<double, kMaxCollectiveTiers>, kNumAx> busy_share{};
  mutable CommMemo memo;
  // Collective(*cluster, ...) through `memo`: same result, each distinct call costed once.
  CommCost Comm(CollectiveOp op, Bytes bytes, RankGroup group,
                const CollectiveOptions& options = {}) const {
    if (group.size <= 1 || bytes <= Bytes(0)) return {};
    return memo.Get(*cluster, op, bytes, group, options);
  }
  // The same, for a call that no other part of the layout repeats.
  CommCost CommOnce(CollectiveOp op, Bytes bytes, RankGroup group,
                    const CollectiveOptions& options = {}) const {
    if (group.size <= 1 || bytes <= Bytes(0)) return {};
    return memo.Once(*cluster, op, bytes, group, options);
  }
  // The same with the busy time per tier (CollectiveLoad).
  CommLoad LoadOnce(CollectiveOp op, Bytes bytes, RankGroup group,
                    const CollectiveOptions& options = {}) const {
    if (group.size <= 1 || bytes <= Bytes(0)) return {};
    return memo.Load(*cluster, op, bytes, group, options);
  }
};

// Fraction of forward (and of backward) passes that combined 1F1B leaves
// unpaired, over all pipeline ranks together: Megatron-Core's interleaved
// warm-up on rank r, 2(p-1-r) + (v-1)p, has the mean (p-1) + (v-1)p; plus
// the one forward the overlap adds, over the m v chunk passes; 1/m without
// pipeline stages. In (0, 1].
double A2aUnpairedFraction(const PlanSpec& plan, double m);

// Two-batch overlap: of the 2L dispatches and 2L combines of one pass
// through a chunk's L MoE layers, only the last half's last combine has no
// other half's compute beside it: a quarter of one layer's all-to-all
// (dispatch ~ combine), 1/(4L). In (0, 1].
double HalvesUnpairedFraction(const ModelWork& work, const PlanSpec& plan);

// Communication that can hide behind compute, per pass and axis; settled
// by Settle() (layer_cost.cc): behind the forward (f), the input-gradient
// backward (b) or the weight-gradient pass (w: what the weight gradients
// need or produce). Where B and W run together (!split_w) b and w share one
// window.
struct Hide {
  AxisTimes f{}, b{}, w{};
  // EpWindow::kShared: the compute the expert all-to-all may hide behind.
  Seconds ep_window_f, ep_window_b;
};

// ZeRO-3 / FSDP weight gathers and gradient reduce-scatters
// (layer_fsdp.cc): a block's, by the job's collective units, and the
// embedding's or head's (`s.params_*` already set), one unit each. Hideable
// parts go to `h`, the rest to `s`'s exposed times. No-ops below ZeRO-3.
void AddBlockFsdp(const PlanContext& ctx, const BlockWork& block, Seg& s, Hide& h);
void AddWholeFsdp(const PlanContext& ctx, Seg& s, Hide& h);
// Under fsdp_per_tensor, the largest weight matrix one collective unit
// carries, in parameters per rank: a block's matrices (over tp, routed
// experts' over etp), and the V x h embedding or LM head on the devices
// that hold them. What ZeRO-3 holds unsharded at a time is a few such units
// (FullyShardedBuffers), not a block.
double LargestFsdpMatrix(const PlanContext& ctx, bool has_embedding, bool has_head);

Seg BlockSeg(const PlanContext& ctx, const BlockWork& block, bool moe);
// Settles `s`'s pooled paired window (Seg::pair) over its compute: one F + B
// + W window holding all of the paired share's hideable communication
// (DualPipe's F&B chunks, DeepSeek-V3 §3.2.1; combined 1F1B's layers,
// Megatron-Core moe_a2a_overlap.md), as the simulator's pair does. Clears
// `pair`. REQUIRES: `s` is a whole chunk's (or a device's) sum.
void SettlePaired(Seg& s);
Seg EmbeddingSeg(const PlanContext& ctx);
// LM head + loss; `act` holds the logits (kept once, not per micro-batch in flight).
Seg HeadSeg(const PlanContext& ctx);
// All MTP modules, head pass included; `block` is the Seg of one MTP block
// (the MoE block's, or the dense block's for dense models).
Seg MtpSeg(const PlanContext& ctx, const Seg& block);

}  // namespace occam::step_internal
