// Per-micro-batch block costs on one chip (see layer_cost.h for symbols).
#include "step/layer_cost.h"

#include <algorithm>
#include <cmath>

#include "step/comm.h"
#include "step/stages.h"

namespace occam::step_internal {
namespace {

constexpr double kAct = kActivationBytes;

double WeightBytes(const JobSpec& job) { return job.precision == Precision::kFp8 ? 1.0 : 2.0; }

// Time of a GEMM group over `rows` rows (tokens) with work divided by `div`;
// `split` ranks share its weights (divide the larger matmul dimension: the
// width term of the GEMM efficiency, doc/cost-model.md §2).
Seconds Gemm(const PlanContext& c, const GemmWork& g, double rows, double div, double split,
             double weights, double eta_rows, Precision precision) {
  const double flops = rows * g.WidthWeightedFlops(split, c.cluster->chip.gemm_half_width) / div;
  const double bytes = weights * WeightBytes(*c.job) + rows * g.io / div * kAct;
  return GemmTime(c.cluster->chip, precision, flops, eta_rows, bytes);
}

struct Compute {
  Seconds proj, dense, expert, ew;
  Seconds router;        // the router's matmul (part of dense), forward
  Seconds shared;        // the shared experts' matmuls (part of dense), forward
  Seconds core, core_b;  // attention core, forward and backward (input gradients)
  Seconds cast;          // FP8 casts of GEMM inputs (forward) and output gradients (backward)
  Seconds weight_cast;   // dynamic scaling: the 16-bit weights cast on every forward
};

// Two-batch overlap runs a MoE block's matmuls on each half of the
// micro-batch in turn: the same FLOPs at half the rows (lower GEMM
// efficiency) and the weights read twice.
double Halves(const PlanContext& c, const BlockWork& b) {
  return c.ep_window == EpWindow::kHalves && b.top_k > 0 ? 2.0 : 1.0;
}

Compute BlockCompute(const PlanContext& c, const BlockWork& b) {
  const PlanSpec& p = *c.plan;
  const double tp = static_cast<double>(p.tp), t = c.tokens, n = Halves(c, b);
  const Precision prec = c.job->precision;
  auto gemm = [&](const GemmWork& g, double rows, double div, double split, double weights,
                  double eta_rows, Precision precision) {
    return n * Gemm(c, g, rows / n, div, split, weights, eta_rows / n, precision);
  };
  Compute x;
  x.proj = gemm(b.attn_proj, t, tp, tp, b.attn_proj.weights / tp, t, prec);
  // Attention core stays in BF16 (DeepSeek-V3 §3.3.1 keeps it out of FP8);
  // FlashAttention-2's kernel runs it at the chip's measured fraction of the
  // fused kernels' rate (ChipSpec::flash2_ratio).
  const double fa2 =
      c.job->attention == AttentionImpl::kFlash2 ? c.cluster->chip.flash2_ratio : 1.0;
  const Seconds core = gemm(b.attn_core, t, tp, 1, 0, t, Precision::kBf16) / fa2;
  // Backward: 2x the forward matmuls (FlashAttention-2 §3.1.2); a
  // materialised score matrix adds its HBM passes (blocks.cc).
  x.core = core + MemoryBoundTime(c.cluster->chip, t * b.score_bytes_fwd / tp);
  x.core_b = 2 * core + MemoryBoundTime(c.cluster->chip, t * b.score_bytes_bwd / tp);
  const Seconds mlp = gemm(b.mlp, t, tp, tp, b.mlp.weights / tp, t, prec);
  // The router stays 16-bit too: Megatron-Core's gating is its own
  // router_gating_linear in the input dtype (or fp32 with moe_router_dtype;
  // megatron/core/transformer/moe/router.py), outside Transformer Engine's
  // FP8, and DeepSeek-V3 keeps its gating modules in their original
  // precision (§3.3.1); Fp8CastBytes casts nothing for it.
  x.router = gemm(b.router, t, tp, 1, b.router.weights, t, Precision::kBf16);
  x.dense = mlp + x.router;
  if (b.top_k > 0) x.shared = mlp;  // a MoE block's dense MLP is its shared experts
  if (b.top_k > 0) {
    const double e = static_cast<double>(c.model->moe->num_experts);
    const double ep = static_cast<double>(p.ep), etp = static_cast<double>(p.etp);
    // Rows per local expert: T k ep etp / (E tp); the busiest rank gets lambda x.
    const double rows = t * b.top_k / tp;
    const double per_expert = rows * ep * etp / e;
    x.expert = gemm(b.expert, rows * c.lambda, 1.0, etp, e / ep * b.expert.weights / etp,
                    per_expert * c.lambda, prec);
  }
  x.ew = MemoryBoundTime(c.cluster->chip, t * b.elementwise_bytes / tp);
  if (prec == Precision::kFp8) {
    // FP8 GEMMs read FP8 copies of their inputs and output gradients: a
    // memory-bound cast, half in each pass (doc/cost-model.md §2).
    const bool dynamic = c.job->fp8_dynamic_scaling;
    x.cast = MemoryBoundTime(c.cluster->chip,
                             Fp8CastBytes(b, t, p.tp, p.etp, c.lambda, dynamic ? 5.0 : 4.0));
    if (dynamic) {
      // amax read, cast read, FP8 write of each matrix the device holds
      // (JobSpec::fp8_dynamic_scaling); the router stays 16-bit.
      const double weights =
          (b.attn_proj.weights + b.mlp.weights) / tp +
          (b.top_k > 0 ? static_cast<double>(b.params_expert) / static_cast<double>(p.ep * p.etp)
                       : 0.0);
      x.weight_cast = MemoryBoundTime(c.cluster->chip, 5.0 * weights);
    }
  }
  return x;
}

void AddTp(const PlanContext& c, double pairs, Seg& s) {
  if (c.plan->tp <= 1 || pairs <= 0) return;
  const Bytes bytes(c.tokens * static_cast<double>(c.work->hidden) * kAct);
  Seconds one;
  if (c.plan->sp) {
    one = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.tp).time +
          c.Comm(CollectiveOp::kReduceScatter, bytes, c.groups.tp).time;
  } else {
    one = c.Comm(CollectiveOp::kAllReduce, bytes, c.groups.tp).time;
  }
  // Forward and backward each run `pairs` AG+RS (Korthikanti §4.2.2); not overlapped.
  const double rec = c.plan->recompute == Recompute::kFull ? 1.0 : 0.0;
  s.exp_f[kAxTp] += pairs * one;
  s.exp_b[kAxTp] += pairs * one * (1.0 + rec);
  s.total[kAxTp] += pairs * one * (2.0 + rec);
  s.total_f[kAxTp] += pairs * one;
}

// Tensor parallelism of a block: `pairs` column-parallel + row-parallel
// linear pairs (attention, MLP). Forward: AG before the column-parallel and RS
// after the row-parallel linear with SP, else one AR (Korthikanti et al. 2022
// §4.2.2), exposed. Backward, as Megatron-LM runs it
// (megatron/core/tensor_parallel/layers.py,
// LinearWithGradAccumulationAndAsyncCommunication): the row-parallel output
// gradient is all-gathered (SP) before its GEMMs, exposed; the column-parallel
// input gradient's RS (SP) or AR overlaps that linear's weight-gradient GEMM,
// and with SP the input re-gather for the weight gradient overlaps the
// input-gradient GEMM: hideable. Full recompute repeats the forward's, exposed.
// With tp_comm_overlap every collective is split into tp chunks pipelined
// with its GEMM (Transformer Engine userbuffers): all but one chunk hide
// behind the pass's compute.
// Where the weight-gradient pass runs apart (split_w), the input gradient's
// RS or AR has no weight-gradient GEMM beside it and is exposed in B (unless
// chunked with its own GEMM), and the input re-gather moves to W, whose GEMM
// it feeds.
void AddBlockTp(const PlanContext& c, double pairs, Seg& s, Hide& h) {
  if (c.plan->tp <= 1 || pairs <= 0) return;
  const Bytes bytes(c.tokens * static_cast<double>(c.work->hidden) * kAct);
  Seconds fwd, bwd_exposed, grad_reduce, regather;
  if (c.plan->sp) {
    const Seconds ag = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.tp).time;
    const Seconds rs = c.Comm(CollectiveOp::kReduceScatter, bytes, c.groups.tp).time;
    fwd = ag + rs;
    bwd_exposed = ag;
    grad_reduce = rs;
    regather = ag;
  } else {
    fwd = c.Comm(CollectiveOp::kAllReduce, bytes, c.groups.tp).time;
    grad_reduce = fwd;
  }
  const Seconds rec = c.plan->recompute == Recompute::kFull ? fwd : Seconds();
  s.total[kAxTp] += pairs * (fwd + bwd_exposed + grad_reduce + regather + rec);
  s.total_f[kAxTp] += pairs * fwd;
  // The W pass's share: its window and exposed time, or B's where they run together.
  auto& hide_w = c.split_w ? h.w : h.b;
  auto& exp_w = c.split_w ? s.exp_w : s.exp_b;
  if (c.job->tp_comm_overlap) {
    const double chunk = 1.0 / static_cast<double>(c.plan->tp);
    s.exp_f[kAxTp] += pairs * fwd * chunk;
    s.exp_b[kAxTp] += pairs * (bwd_exposed + grad_reduce + rec) * chunk;
    exp_w[kAxTp] += pairs * regather * chunk;
    h.f[kAxTp] += pairs * fwd * (1 - chunk);
    h.b[kAxTp] += pairs * (bwd_exposed + grad_reduce + rec) * (1 - chunk);
    hide_w[kAxTp] += pairs * regather * (1 - chunk);
    return;
  }
  s.exp_f[kAxTp] += pairs * fwd;
  s.exp_b[kAxTp] += pairs * (bwd_exposed + rec);
  (c.split_w ? s.exp_b : h.b)[kAxTp] += pairs * grad_reduce;
  hide_w[kAxTp] += pairs * regather;
}

void AddCp(const PlanContext& c, Seg& s, Hide& h) {
  if (c.plan->cp <= 1) return;
  const AttentionSpec& at = c.model->attention;
  const double width =
      at.kind == AttentionKind::kMla
          ? static_cast<double>(at.num_heads) *
                (at.mla.qk_nope_head_dim + at.mla.qk_rope_head_dim + at.mla.v_head_dim)
          : 2.0 * static_cast<double>(at.num_kv_heads * at.head_dim);
  // Ring attention passes every K/V shard round the cp ring: an all-gather
  // of b*s*width/tp elements, hidden behind the attention blocks it feeds
  // (Liu et al. 2023 arXiv:2310.01889 §3). Backward moves K/V and dK/dV.
  const Bytes bytes(static_cast<double>(c.plan->mbs * c.job->seq_len) * width * kAct /
                    static_cast<double>(c.plan->tp));
  const Seconds t = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.cp).time;
  const double rec = c.plan->recompute == Recompute::kFull ? 1.0 : 0.0;
  s.total[kAxCp] += t * (3.0 + rec);
  s.total_f[kAxCp] += t;
  h.f[kAxCp] += t;
  h.b[kAxCp] += t * (2.0 + rec);
}

void AddEp(const PlanContext& c, const BlockWork& b, Seg& s, Hide& h) {
  if (c.plan->ep <= 1 || b.top_k <= 0) return;
  const MoeSpec& moe = *c.model->moe;
  CollectiveOptions o;
  o.imbalance = c.lambda;
  o.top_k = moe.top_k;
  if (moe.num_groups > 1) o.max_units_per_token = moe.topk_groups;
  // Per-rank send buffer: T/tp tokens x k copies x h (FP8 dispatch under
  // FP8 training, BF16 combine: DeepSeek-V3 §3.3.3).
  const double copies =
      c.tokens / static_cast<double>(c.plan->tp) * b.top_k * static_cast<double>(c.work->hidden);
  const double disp_b = c.job->precision == Precision::kFp8 ? 1.0 : kAct;
  // Two-batch overlap: each half sends half the copies in its own all-to-all.
  const double n = Halves(c, b);
  const Seconds disp =
      n * c.Comm(CollectiveOp::kAllToAll, Bytes(copies * disp_b / n), c.groups.ep, o).time;
  const Seconds comb =
      n * c.Comm(CollectiveOp::kAllToAll, Bytes(copies * kAct / n), c.groups.ep, o).time;
  const Seconds f = disp + comb, bw = 2 * comb;  // backward: two BF16 all-to-alls
  // The dispatcher's device-to-host sync before the forward all-to-all:
  // under an overlap method the other pass's queued kernels cover the host
  // time in the window Settle charges; without one, AddHostBound charges it
  // after Settle. The backward reuses the forward's split sizes. Combined
  // 1F1B issues the other micro-batch's expert backward between the
  // forward's device-to-host copy and the host's wait on it (Megatron-Core
  // model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run;
  // token_dispatcher.py _maybe_dtoh_and_synchronize).
  const bool window = c.ep_window != EpWindow::kExposed;
  const Seconds host =
      c.job->moe_host_sync && window ? Seconds(n * c.cluster->chip.moe_dispatch_host_s) : Seconds();
  // Full recompute and the moe recompute module re-run the layer's forward,
  // its dispatch and combine included.
  const bool full = c.plan->recompute == Recompute::kFull ||
                    (c.plan->recompute == Recompute::kModules &&
                     (c.plan->recompute_modules & recompute_module::kMoe) != 0);
  const Seconds rec = full ? f : Seconds(), host_rec = full ? host : Seconds();
  s.total[kAxEp] += f + bw + rec;
  s.total_f[kAxEp] += f;
  s.total[kAxHost] += host + host_rec;
  s.total_f[kAxHost] += host;
  // What they hide behind is settled by Settle, one rule per EpWindow.
  auto& fwd = c.ep_window != EpWindow::kExposed ? h.f : s.exp_f;
  auto& bwd = c.ep_window != EpWindow::kExposed ? h.b : s.exp_b;
  fwd[kAxEp] += f;
  bwd[kAxEp] += bw + rec;
  fwd[kAxHost] += host;
  bwd[kAxHost] += host_rec;
}

// The dispatcher's sync without an overlap method: it empties the device
// queue, and the host then needs H = moe_dispatch_host_s to issue the
// block's forward kernels up to the next sync while the device runs them as
// they arrive (CUDA streams run asynchronously to the host: PyTorch "CUDA
// semantics", Asynchronous execution). The device idles for the part of H
// that the forward's device work D does not cover: max(0, H - D) (host-bound
// vs device-bound execution: TaxBreak arXiv:2603.12465; Megatron-Core MoE
// README "CPU Overhead Bottleneck"). Full recompute repeats the forward and
// its sync in the backward, with the same idle; the backward's own kernels
// are issued faster than they run, so the host does not hold them up.
// D is the forward's share of the block's time S = compute + exposed
// communication of all its passes, by FLOPs: 1 of 3 (2 per parameter and
// token forward, 4 backward: Narayanan et al. 2021 §3.5), 1 of 4 with full
// recompute. By FLOPs, not the forward's own time, because a window's
// exposure is spread over its passes in proportion to their compute and
// moves between them as compute changes: with D a fixed share of S the
// block takes S + n max(0, H - S/k) (n = 1 or 2 syncs, k = 3 or 4, n <= k),
// monotone in S and so in every compute and communication time.
void AddHostBound(const PlanContext& c, Seg& s) {
  if (c.ep_window != EpWindow::kExposed || !c.job->moe_host_sync || c.plan->ep <= 1) return;
  const Seconds host(c.cluster->chip.moe_dispatch_host_s);
  const Seconds block = s.cf + s.cb + s.cw + s.ExposedF() + s.ExposedB() + s.ExposedW();
  const bool full = c.plan->recompute == Recompute::kFull;
  const Seconds idle = Max(Seconds(), host - block * (full ? 0.25 : 1.0 / 3.0));
  s.exp_f[kAxHost] += idle;
  s.total[kAxHost] += idle;
  s.total_f[kAxHost] += idle;
  if (!full) return;
  s.exp_b[kAxHost] += idle;
  s.total[kAxHost] += idle;
}

Seconds Sum(const AxisTimes& a) {
  Seconds x;
  for (Seconds v : a) x += v;
  return x;
}

// Hidden communication shares the compute of its window: the window takes
//   max(compute, compute - core + cp, all hideable comm)
// (ring-attention K/V exchange overlaps only the attention core `core`);
// the excess is exposed, split over the axes in proportion to their time and
// over the window's passes in proportion to their compute, so every pass
// keeps compute x (window / compute) and none gets longer when compute gets
// faster. Monotone in every compute and communication time. Each helper adds
// `w` times the exposure it finds.
Seconds Exposed(Seconds compute, Seconds core, Seconds cp, Seconds all) {
  return std::max({compute, compute - core + cp, all}) - compute;
}

// e (x parts / all) onto each axis.
void Spread(Seconds e, const AxisTimes& parts, Seconds all, AxisTimes& out) {
  if (e <= Seconds() || all <= Seconds()) return;
  for (int a = 0; a < kNumAx; ++a) out[a] += e * parts[a].value() / all.value();
}

// One window over the passes with compute cf, cb, cw (zero for those outside
// it); `used` of its compute already hides other communication.
void SettleWindow(Seconds cf, Seconds cb, Seconds cw, Seconds used, Seconds core,
                  const AxisTimes& hide, double w, Seg& s) {
  const Seconds all = Sum(hide), compute = cf + cb + cw;
  if (all <= Seconds() || compute <= Seconds()) return;
  const Seconds e = w * Exposed(compute - used, core, hide[kAxCp], all);
  Spread(e * cf.value() / compute.value(), hide, all, s.exp_f);
  Spread(e * cb.value() / compute.value(), hide, all, s.exp_b);
  Spread(e * cw.value() / compute.value(), hide, all, s.exp_w);
}

// The backward's window: B and W together, or each its own where W runs
// apart (`split`: PlanContext::split_w). `used_b` of B's compute already
// hides other communication.
void SettleBackward(bool split, Seconds used_b, Seconds core_b, const AxisTimes& b_comm,
                    const AxisTimes& w_comm, double w, Seg& s) {
  const Seconds none;
  // A pass without compute (the embedding's B: its weight gradient is the
  // scatter-add) has no window of its own: its communication waits in the
  // other's.
  if (!split || s.cb <= Seconds() || s.cw <= Seconds()) {
    AxisTimes both = b_comm;
    for (int a = 0; a < kNumAx; ++a) both[a] += w_comm[a];
    return SettleWindow(none, s.cb, s.cw, used_b, core_b, both, w, s);
  }
  SettleWindow(none, s.cb, none, used_b, core_b, b_comm, w, s);
  SettleWindow(none, none, s.cw, none, none, w_comm, w, s);
}

// Forward and backward each in their own window.
void SettleApart(bool split, Seconds core_f, Seconds core_b, const Hide& h, double w, Seg& s) {
  const Seconds none;
  SettleWindow(s.cf, none, none, none, core_f, h.f, w, s);
  SettleBackward(split, none, core_b, h.b, h.w, w, s);
}

// A forward and a backward pass of two micro-batches share one window
// (DualPipe's F&B chunks, DeepSeek-V3 §3.2.1; combined 1F1B's layers,
// Megatron-Core moe_a2a_overlap.md); the window pools a whole chunk's
// compute, so it is settled on the chunk's sum (SettlePaired).
void DeferJoint(Seconds core_f, Seconds core_b, const Hide& h, double w, Seg& s) {
  for (int a = 0; a < kNumAx; ++a) s.pair[a] += w * (h.f[a] + h.b[a] + h.w[a]);
  s.pair_core += w * (core_f + core_b);
  s.pair_share = w;
}

// The all-to-all of the unpaired share u runs alone, exposed; the rest hides
// in a joint window (kPaired) or in its own pass beside the other half
// (kHalves). u is counted from the schedule (PlanContext::a2a_unpaired).
void SettleUnpaired(const PlanContext& c, Seconds core_f, Seconds core_b, const Hide& h, Seg& s) {
  const double u = c.a2a_unpaired;
  Hide alone = h;
  for (int a : {kAxEp, kAxHost}) {
    alone.f[a] = alone.b[a] = Seconds();
    s.exp_f[a] += u * h.f[a];
    s.exp_b[a] += u * h.b[a];
  }
  SettleApart(c.split_w, core_f, core_b, alone, u, s);
  if (c.ep_window == EpWindow::kPaired) return DeferJoint(core_f, core_b, h, 1.0 - u, s);
  SettleApart(c.split_w, core_f, core_b, h, 1.0 - u, s);
}

// Shared-expert overlap (Megatron-Core --moe-shared-expert-overlap): the
// all-to-all hides only behind the shared experts' matmuls of its pass; that
// compute is then not there for the pass's other communication.
void SettleShared(bool split, Seconds core_f, Seconds core_b, const Hide& h, Seg& s) {
  // The dispatcher's host time and its all-to-all hide together, each
  // keeping its share of what stays exposed.
  const Seconds ep_f = h.f[kAxEp] + h.f[kAxHost], ep_b = h.b[kAxEp] + h.b[kAxHost];
  const Seconds hid_f = std::min(ep_f, h.ep_window_f), hid_b = std::min(ep_b, h.ep_window_b);
  Hide rest = h;
  for (int a : {kAxEp, kAxHost}) {
    if (ep_f > Seconds()) s.exp_f[a] += h.f[a] * (1 - hid_f / ep_f);
    if (ep_b > Seconds()) s.exp_b[a] += h.b[a] * (1 - hid_b / ep_b);
    rest.f[a] = rest.b[a] = Seconds();
  }
  SettleWindow(s.cf, Seconds(), Seconds(), hid_f, core_f, rest.f, 1.0, s);
  SettleBackward(split, hid_b, core_b, rest.b, rest.w, 1.0, s);
}

// One rule per EpWindow: every schedule and method is charged here.
void Settle(const PlanContext& c, Seconds core_f, Seconds core_b, const Hide& h, Seg& s) {
  switch (c.ep_window) {
    case EpWindow::kExposed:
      return SettleApart(c.split_w, core_f, core_b, h, 1.0, s);
    case EpWindow::kShared:
      return SettleShared(c.split_w, core_f, core_b, h, s);
    case EpWindow::kPaired:
    case EpWindow::kHalves:
      return SettleUnpaired(c, core_f, core_b, h, s);
  }
}

}  // namespace

void SettlePaired(Seg& s) {
  const double w = s.pair_share;
  if (w > 0) {
    // `pair` and `pair_core` hold w times the window's communication and
    // core: settle the unweighted window and weight its exposure by w.
    AxisTimes hide{};
    for (int a = 0; a < kNumAx; ++a) hide[a] = s.pair[a] / w;
    SettleWindow(s.cf, s.cb, s.cw, Seconds(), s.pair_core / w, hide, w, s);
  }
  s.pair = {};
  s.pair_core = Seconds();
}

EpWindow EpWindowOf(const PlanSpec& plan, bool dual) {
  if (dual) return EpWindow::kPaired;
  switch (plan.a2a_overlap) {
    case EpOverlap::kCombined1F1B:
      return EpWindow::kPaired;
    case EpOverlap::kTwoBatch:
      return EpWindow::kHalves;
    case EpOverlap::kSharedExpert:
      return EpWindow::kShared;
    case EpOverlap::kNone:
      break;
  }
  return EpWindow::kExposed;
}

double HalvesUnpairedFraction(const ModelWork& work, const PlanSpec& plan) {
  const double chunks = static_cast<double>(std::max<int64_t>(plan.pp, 1) * ChunksPerDevice(plan));
  const double layers = static_cast<double>(work.MoeLayers(0, work.num_layers)) / chunks;
  return 1.0 / (4.0 * std::max(1.0, layers));
}

double A2aUnpairedFraction(const PlanSpec& plan, double m) {
  const double p = static_cast<double>(plan.pp);
  const double v = static_cast<double>(std::max<int64_t>(plan.vpp, 1));
  const double warmup = plan.pp > 1 ? (p - 1) + (v - 1) * p : 0;
  if (!(m * v > 0)) return 1;
  return std::min(1.0, (warmup + 1) / (m * v));
}

void Seg::Add(const Seg& o, double times) {
  cf += o.cf * times;
  cb += o.cb * times;
  cw += o.cw * times;
  for (int i = 0; i < kNumAx; ++i) {
    total[i] += o.total[i] * times;
    total_f[i] += o.total_f[i] * times;
    exp_f[i] += o.exp_f[i] * times;
    exp_b[i] += o.exp_b[i] * times;
    exp_w[i] += o.exp_w[i] * times;
  }
  act += o.act * times;
  act_extra += o.act_extra * times;
  act_work = std::max(act_work, o.act_work);
  params_dense += o.params_dense * times;
  params_expert += o.params_expert * times;
  for (int i = 0; i < kNumAx; ++i) pair[i] += o.pair[i] * times;
  pair_core += o.pair_core * times;
  pair_share = std::max(pair_share, o.pair_share);
}

Seconds Seg::ExposedF() const { return Sum(exp_f); }
Seconds Seg::ExposedB() const { return Sum(exp_b); }
Seconds Seg::ExposedW() const { return Sum(exp_w); }

CommCost CommMemo::Get(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                       const CollectiveOptions& options) {
  for (size_t i = 0; i < size_; ++i) {
    const Entry& e = entries_[i];
    if (e.op == op && e.bytes == bytes && e.group.size == group.size &&
        e.group.stride == group.stride && e.options.imbalance == options.imbalance &&
        e.options.max_units_per_token == options.max_units_per_token &&
        e.options.top_k == options.top_k && e.options.force == options.force) {
      return e.cost;
    }
  }
  const CommCost cost = Once(cluster, op, bytes, group, options);
  if (size_ < entries_.size()) entries_[size_++] = Entry{op, bytes, group, options, cost};
  return cost;
}

CommCost CommMemo::Once(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                        const CollectiveOptions& options) const {
  if (groups_ == nullptr || costs_ == nullptr) {
    return Collective(cluster, op, bytes, group, options);
  }
  return costs_->Get(cluster, *groups_, op, bytes, group, options);
}

CommLoad CommMemo::Load(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                        const CollectiveOptions& options) const {
  if (groups_ == nullptr || costs_ == nullptr) {
    return CollectiveLoad(cluster, op, bytes, group, options);
  }
  return costs_->GetLoad(cluster, *groups_, op, bytes, group, options);
}

namespace {

// Forward time the recompute modules re-run in backward (Megatron-LM
// --recompute-modules): the attention core, the norms, the MLA
// up-projections, the experts' activation, the dense or shared-expert MLP,
// or the whole MoE layer's compute (its all-to-all in AddEp).
Seconds ModuleRecomputeTime(const PlanContext& c, const BlockWork& b, const Compute& x) {
  namespace rm = recompute_module;
  const PlanSpec& p = *c.plan;
  if (p.recompute != Recompute::kModules) return Seconds();
  const unsigned r = p.recompute_modules;
  const ChipSpec& chip = c.cluster->chip;
  const double tp = static_cast<double>(p.tp);
  const bool moe = b.top_k > 0;
  Seconds t;
  if (r & rm::kCoreAttn) t += x.core;
  if (r & rm::kLayernorm) t += MemoryBoundTime(chip, c.tokens * b.norm_ew_bytes / tp);
  if ((r & rm::kMlaUpProj) && b.attn_proj.flops > 0) {
    t += x.proj * b.up_proj_flops / b.attn_proj.flops;
  }
  if (!moe && (r & rm::kMlp)) t += x.dense;
  if (moe && (r & rm::kMoe)) return t + x.expert + x.dense;
  if (moe && (r & rm::kSharedExperts)) t += x.shared;
  if (moe && (r & rm::kMoeAct)) {
    const double copies = c.tokens * b.top_k / tp * c.lambda;
    t += MemoryBoundTime(chip, copies * b.act_ew_copy_bytes);
  }
  return t;
}

ActivationSavers SaversOf(const PlanContext& c) {
  ActivationSavers s;
  s.recompute_modules = c.plan->recompute == Recompute::kModules ? c.plan->recompute_modules : 0;
  s.offload_modules = c.plan->offload_modules;
  s.fp8_moe_cache = c.job->fp8_moe_cache;
  s.expert_all_to_all = c.plan->ep > 1;
  return s;
}

// Activation offload: each block's offloaded tensors leave over the host
// link during its forward and come back before its backward; what the
// pass's compute does not cover is exposed (Megatron-LM fine-grained
// activation offloading runs the copies on their own stream).
void AddOffload(const PlanContext& c, const BlockWork& b, Seg& s) {
  if (c.plan->offload_modules == 0 || b.top_k <= 0) return;
  const BytesPerSecond link = c.cluster->chip.host_link_bandwidth;
  if (!(link.value() > 0)) return;
  const double bytes = OffloadedActivationBytes(b, *c.work, c.tokens, c.plan->tp, c.lambda,
                                                c.job->precision, SaversOf(c));
  const Seconds t = Bytes(bytes) / link;
  s.total[kAxOffload] += 2 * t;
  s.total_f[kAxOffload] += t;
  s.exp_f[kAxOffload] += Max(Seconds(), t - s.cf);
  s.exp_b[kAxOffload] += Max(Seconds(), t - s.cb);
}

// Megatron-LM without gradient accumulation fusion
// (JobSpec::grad_accumulation_fusion false): its local DDP's hook adds every
// micro-batch's 16-bit weight gradient into the main-grad buffer,
// param.main_grad.add_(param.grad.data) (megatron/model/distributed.py of
// 2021): a read of the 2-byte gradient and a read and write of the buffer
// (4-byte with fp32 accumulation, 2-byte with 16-bit gradients) per
// parameter the chip holds, memory-bound, in the weight-gradient pass.
Seconds GradAccumulationTime(const PlanContext& c, double params) {
  if (c.job->grad_accumulation_fusion || params <= 0) return Seconds();
  const double buffer = c.job->bf16_gradients ? 2.0 : 4.0;
  return MemoryBoundTime(c.cluster->chip, params * (2.0 + 2.0 * buffer));
}

}  // namespace

Seg BlockSeg(const PlanContext& c, const BlockWork& b, bool moe) {
  const PlanSpec& p = *c.plan;
  const Compute x = BlockCompute(c, b);
  Seg s;
  const Seconds matmul = x.proj + x.dense + x.expert;
  s.cf = matmul + x.core + x.ew + 0.5 * x.cast + x.weight_cast;
  // Input gradient: one matmul pass + attention core backward + element-wise
  // backward (~2x); weight gradient: one matmul pass.
  s.cb = matmul + x.core_b + 2 * x.ew + 0.5 * x.cast;
  s.cw = matmul;
  if (p.recompute == Recompute::kFull) s.cb += s.cf;
  if (p.recompute == Recompute::kSelective) s.cb += x.core;
  // Operator-level checkpointing re-runs the projections it does not keep,
  // the router's matmul, the routed experts' grouped GEMMs and the
  // element-wise ops (op_sac.cc OpSacKept).
  if (p.recompute == Recompute::kSelectiveOp) {
    s.cb += b.op_rerun_share * (x.proj + x.dense - x.router) + x.router + x.expert + x.ew;
    // Its save list (torchtitan parallelize_llama.py at 9dec370: aten.mm,
    // SDPA, reduce_scatter, abs, max) holds no FP8 cast: the re-run forward
    // casts every matmul input and weight again, all but the amax read of
    // dynamic scaling, whose abs and max are saved (3 of its 5 B).
    const double recast = c.job->fp8_dynamic_scaling ? 3.0 / 5.0 : 1.0;
    s.cb += recast * (0.5 * x.cast + x.weight_cast);
  }
  // JAX's dot-saving policies re-run the attention core, the element-wise
  // ops and the routed experts (blocks.cc DotsKept), and without the MLP's
  // input projections those matmuls (of a dense MLP or the shared experts).
  if (SavesDots(p.recompute)) {
    s.cb += x.core + x.ew + x.expert;
  }
  s.cb += RecomputedMlpShare(p.recompute, *c.model) * (moe ? x.shared : x.dense);
  s.cb += ModuleRecomputeTime(c, b, x);
  const double tp = static_cast<double>(p.tp);
  s.params_dense = static_cast<double>(b.params_dense) / tp;
  s.params_expert = static_cast<double>(b.params_expert) / static_cast<double>(p.ep * p.etp);
  s.cw += GradAccumulationTime(c, s.params_dense + s.params_expert);
  const double seq = static_cast<double>(c.job->seq_len);
  const ActivationSavers savers = SaversOf(c);
  s.act = Bytes(BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, p.recompute, 1.0,
                                     c.job->precision, savers));
  s.act_extra = Bytes(BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, p.recompute,
                                           c.lambda, c.job->precision, savers)) -
                s.act;
  if (p.recompute == Recompute::kModules) {
    s.act_work = Bytes(
        ModuleRecomputeWorkBytes(b, c.tokens, p.tp, p.sp, c.lambda, savers.recompute_modules));
  }
  if (p.recompute == Recompute::kFull) {
    s.act_work = Bytes(BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, Recompute::kNone,
                                            c.lambda, c.job->precision));
  }
  // Operator-level checkpointing rebuilds one block's recomputed tensors at a
  // time, beside the kept ones.
  if (p.recompute == Recompute::kSelectiveOp || SavesDots(p.recompute)) {
    s.act_work =
        Max(Bytes(), Bytes(BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp,
                                                Recompute::kNone, c.lambda, c.job->precision)) -
                         s.act - s.act_extra);
  }
  const bool tp_mlp = !moe || c.model->moe->num_shared_experts > 0 || p.etp > 1;
  Hide h;
  // The shared experts' backward: input and weight gradients (+ the
  // recomputed forward).
  h.ep_window_f = x.shared;
  const bool shared_rec =
      p.recompute == Recompute::kFull ||
      (p.recompute == Recompute::kModules &&
       (p.recompute_modules & (recompute_module::kSharedExperts | recompute_module::kMoe)) != 0);
  // Where W runs apart, only the input-gradient matmuls are in B's window.
  h.ep_window_b = x.shared * ((shared_rec ? 2.0 : 1.0) + (c.split_w ? 0.0 : 1.0));
  AddBlockTp(c, tp_mlp ? 2.0 : 1.0, s, h);
  AddCp(c, s, h);
  if (moe) AddEp(c, b, s, h);
  AddBlockFsdp(c, b, s, h);
  const bool core_rec = p.recompute == Recompute::kModules
                            ? (p.recompute_modules & recompute_module::kCoreAttn) != 0
                            : p.recompute != Recompute::kNone;
  const Seconds core_b = x.core_b + (core_rec ? x.core : Seconds());
  Settle(c, x.core, core_b, h, s);
  AddOffload(c, b, s);
  if (moe) AddHostBound(c, s);
  return s;
}

Seg EmbeddingSeg(const PlanContext& c) {
  Seg s;
  const double h = static_cast<double>(c.work->hidden), tp = static_cast<double>(c.plan->tp);
  // Row lookup (write T x h) forward, scatter-add of its gradient backward.
  s.cf = MemoryBoundTime(c.cluster->chip, c.tokens * h * kAct / tp);
  s.cw = 2 * s.cf;
  s.params_dense = static_cast<double>(c.work->params_embedding) / tp;
  s.cw += GradAccumulationTime(c, s.params_dense);
  AddTp(c, 0.5, s);  // vocab-parallel embedding: one reduce-scatter (fwd) / all-gather (bwd)
  Hide hide;
  AddWholeFsdp(c, s, hide);
  Settle(c, Seconds(), Seconds(), hide, s);
  return s;
}

namespace {

// The LM head's GEMM precision: 16-bit under FP8 training unless the job
// runs the output projection in FP8 (JobSpec::fp8_output_proj).
Precision HeadPrecision(const JobSpec& job) {
  return job.fp8_output_proj ? job.precision : Precision::kBf16;
}

}  // namespace

Seg HeadSeg(const PlanContext& c) {
  Seg s;
  const double tp = static_cast<double>(c.plan->tp);
  const ModelWork& w = *c.work;
  const Seconds g =
      Gemm(c, w.head, c.tokens, tp, tp, w.head.weights / tp, c.tokens, HeadPrecision(*c.job));
  const Seconds ew = MemoryBoundTime(c.cluster->chip, c.tokens * w.head_elementwise_bytes / tp);
  s.cf = g + ew;
  s.cb = g + ew;
  s.cw = g;
  s.params_dense = static_cast<double>(w.params_head) / tp;
  s.cw += GradAccumulationTime(c, s.params_dense);
  s.act = Bytes(c.tokens * w.head_act_bytes / tp);
  AddTp(c, 0.5, s);  // gather the sequence before the vocab-parallel head
  Hide h;
  AddWholeFsdp(c, s, h);
  Settle(c, Seconds(), Seconds(), h, s);
  return s;
}

Seg MtpSeg(const PlanContext& c, const Seg& block) {
  Seg s;
  if (c.work->mtp_layers <= 0) return s;
  const ModelWork& w = *c.work;
  Seg one = block;
  const double tp = static_cast<double>(c.plan->tp);
  const Seconds proj =
      Gemm(c, w.mtp_proj, c.tokens, tp, tp, w.mtp_proj.weights / tp, c.tokens, c.job->precision);
  const Seconds head =
      Gemm(c, w.head, c.tokens, tp, tp, w.head.weights / tp, c.tokens, HeadPrecision(*c.job)) +
      MemoryBoundTime(c.cluster->chip, c.tokens * w.head_elementwise_bytes / tp);
  one.cf += proj + head;
  one.cb += proj + head;
  one.cw += proj + head;
  one.params_dense += static_cast<double>(w.params_mtp_extra) / tp;
  one.act += Bytes(c.tokens * (3.0 * static_cast<double>(w.hidden) * kAct + w.head_act_bytes / tp));
  s.Add(one, static_cast<double>(w.mtp_layers));
  return s;
}

}  // namespace occam::step_internal
