// Per-micro-batch block costs on one chip (see layer_cost.h for symbols).
#include "step/layer_cost.h"

#include <algorithm>

#include "step/comm.h"

namespace occam::step_internal {
namespace {

constexpr double kAct = kActivationBytes;

double WeightBytes(const JobSpec& job) { return job.precision == Precision::kFp8 ? 1.0 : 2.0; }

// Time of a GEMM group over `rows` rows (tokens) with work divided by `div`;
// `split` ranks share its weights (divide the larger matmul dimension: the
// width term of the GEMM efficiency, doc/cost-model.md §2).
double Gemm(const PlanContext& c, const GemmWork& g, double rows, double div, double split,
            double weights, double eta_rows, Precision precision) {
  const double flops = rows * g.WidthWeightedFlops(split, c.cluster->chip.gemm_half_width) / div;
  const double bytes = weights * WeightBytes(*c.job) + rows * g.io / div * kAct;
  return GemmTime(c.cluster->chip, precision, flops, eta_rows, bytes).value();
}

struct Compute {
  double proj = 0, dense = 0, expert = 0, ew = 0;
  double core = 0, core_b = 0;  // attention core, forward and backward (input gradients)
  double cast = 0;  // FP8 casts of GEMM inputs (forward) and output gradients (backward)
};

Compute BlockCompute(const PlanContext& c, const BlockWork& b) {
  const PlanSpec& p = *c.plan;
  const double tp = static_cast<double>(p.tp), t = c.tokens;
  const Precision prec = c.job->precision;
  Compute x;
  x.proj = Gemm(c, b.attn_proj, t, tp, tp, b.attn_proj.weights / tp, t, prec);
  // Attention core stays in BF16 (DeepSeek-V3 §3.3.1 keeps it out of FP8).
  const double core = Gemm(c, b.attn_core, t, tp, 1, 0, t, Precision::kBf16);
  // Backward: 2x the forward matmuls (FlashAttention-2 §3.1.2); a
  // materialised score matrix adds its HBM passes (blocks.cc).
  x.core = core + MemoryBoundTime(c.cluster->chip, t * b.score_bytes_fwd / tp).value();
  x.core_b = 2 * core + MemoryBoundTime(c.cluster->chip, t * b.score_bytes_bwd / tp).value();
  x.dense = Gemm(c, b.mlp, t, tp, tp, b.mlp.weights / tp, t, prec) +
            Gemm(c, b.router, t, tp, 1, b.router.weights, t, prec);
  if (b.top_k > 0) {
    const double e = static_cast<double>(c.model->moe->num_experts);
    const double ep = static_cast<double>(p.ep), etp = static_cast<double>(p.etp);
    // Rows per local expert: T k ep etp / (E tp); the busiest rank gets lambda x.
    const double rows = t * b.top_k / tp;
    const double per_expert = rows * ep * etp / e;
    x.expert = Gemm(c, b.expert, rows * c.lambda, 1.0, etp, e / ep * b.expert.weights / etp,
                    per_expert * c.lambda, prec);
  }
  x.ew = MemoryBoundTime(c.cluster->chip, t * b.elementwise_bytes / tp).value();
  if (prec == Precision::kFp8) {
    // FP8 GEMMs read FP8 copies of their inputs and output gradients: a
    // memory-bound cast, half in each pass (doc/cost-model.md §2).
    x.cast = MemoryBoundTime(c.cluster->chip, Fp8CastBytes(b, t, p.tp, p.etp, c.lambda)).value();
  }
  return x;
}

void AddTp(const PlanContext& c, double pairs, Seg& s) {
  if (c.plan->tp <= 1 || pairs <= 0) return;
  const double bytes = c.tokens * static_cast<double>(c.work->hidden) * kAct;
  double one = 0;
  if (c.plan->sp) {
    one = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.tp).seconds +
          c.Comm(CollectiveOp::kReduceScatter, bytes, c.groups.tp).seconds;
  } else {
    one = c.Comm(CollectiveOp::kAllReduce, bytes, c.groups.tp).seconds;
  }
  // Forward and backward each run `pairs` AG+RS (Korthikanti §4.2.2); not overlapped.
  const double rec = c.plan->recompute == Recompute::kFull ? 1.0 : 0.0;
  s.exp_f[kAxTp] += pairs * one;
  s.exp_b[kAxTp] += pairs * one * (1.0 + rec);
  s.total[kAxTp] += pairs * one * (2.0 + rec);
}

// Communication that can hide behind compute, per pass (forward f,
// backward b = input + weight gradient) and axis; settled by Settle().
struct Hide {
  std::array<double, kNumAx> f{}, b{};
};

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
void AddBlockTp(const PlanContext& c, double pairs, Seg& s, Hide& h) {
  if (c.plan->tp <= 1 || pairs <= 0) return;
  const double bytes = c.tokens * static_cast<double>(c.work->hidden) * kAct;
  double fwd = 0, bwd_exposed = 0, bwd_hidden = 0;
  if (c.plan->sp) {
    const double ag = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.tp).seconds;
    const double rs = c.Comm(CollectiveOp::kReduceScatter, bytes, c.groups.tp).seconds;
    fwd = ag + rs;
    bwd_exposed = ag;
    bwd_hidden = rs + ag;
  } else {
    fwd = c.Comm(CollectiveOp::kAllReduce, bytes, c.groups.tp).seconds;
    bwd_hidden = fwd;
  }
  const double rec = c.plan->recompute == Recompute::kFull ? fwd : 0.0;
  s.total[kAxTp] += pairs * (fwd + bwd_exposed + bwd_hidden + rec);
  if (c.job->tp_comm_overlap) {
    const double chunk = 1.0 / static_cast<double>(c.plan->tp);
    s.exp_f[kAxTp] += pairs * fwd * chunk;
    s.exp_b[kAxTp] += pairs * (bwd_exposed + bwd_hidden + rec) * chunk;
    h.f[kAxTp] += pairs * fwd * (1 - chunk);
    h.b[kAxTp] += pairs * (bwd_exposed + bwd_hidden + rec) * (1 - chunk);
    return;
  }
  s.exp_f[kAxTp] += pairs * fwd;
  s.exp_b[kAxTp] += pairs * (bwd_exposed + rec);
  h.b[kAxTp] += pairs * bwd_hidden;
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
  const double bytes = static_cast<double>(c.plan->mbs * c.job->seq_len) * width * kAct /
                       static_cast<double>(c.plan->tp);
  const double t = c.Comm(CollectiveOp::kAllGather, bytes, c.groups.cp).seconds;
  const double rec = c.plan->recompute == Recompute::kFull ? 1.0 : 0.0;
  s.total[kAxCp] += t * (3.0 + rec);
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
  const double disp = c.Comm(CollectiveOp::kAllToAll, copies * disp_b, c.groups.ep, o).seconds;
  const double comb = c.Comm(CollectiveOp::kAllToAll, copies * kAct, c.groups.ep, o).seconds;
  // The dispatcher's device-to-host sync before the forward all-to-all: the
  // host time after it is exposed unless another pass's kernels are queued
  // (paired passes below). The backward reuses the forward's split sizes.
  const double host = c.cluster->chip.moe_dispatch_host_s;
  const double f = disp + comb + host, bw = 2 * comb;  // backward: two BF16 all-to-alls
  const double rec = c.plan->recompute == Recompute::kFull ? f : 0.0;
  s.total[kAxEp] += f + bw + rec;
  if (c.dual || c.a2a) {
    // DualPipe pairs a forward chunk with a backward chunk: each direction's
    // all-to-all hides behind the other's compute (DeepSeek-V3 §3.2.1).
    // Combined 1F1B pairs them layer by layer (Megatron-Core
    // moe_a2a_overlap.md). Settle exposes the passes either leaves unpaired.
    h.f[kAxEp] += f;
    h.b[kAxEp] += bw + rec;
  } else {
    s.exp_f[kAxEp] += f;
    s.exp_b[kAxEp] += bw + rec;
  }
}

// ZeRO-3 / FSDP: gather weights before forward and backward, reduce-scatter
// gradients after backward, each prefetched behind the block's compute.
void AddFsdp(const PlanContext& c, Seg& s, Hide& h) {
  if (c.plan->zero < 3) return;
  auto gather = [&](double params, RankGroup g) {
    return c.Comm(CollectiveOp::kAllGather, params * 2.0, g).seconds;
  };
  auto scatter = [&](double params, RankGroup g) {
    return c.Comm(CollectiveOp::kReduceScatter, params * 4.0, g).seconds;
  };
  const double ag = gather(s.params_dense, c.fsdp_dense) + gather(s.params_expert, c.fsdp_expert);
  const double rs = scatter(s.params_dense, c.fsdp_dense) + scatter(s.params_expert, c.fsdp_expert);
  s.total[kAxFsdp] += 2 * ag + rs;
  h.f[kAxFsdp] += ag;
  h.b[kAxFsdp] += ag + rs;
}

double Sum(const std::array<double, kNumAx>& a) {
  double x = 0;
  for (double v : a) x += v;
  return x;
}

// Hidden communication shares the compute of its pass: the pass takes
//   max(compute, compute - core + cp, all hideable comm)
// (ring-attention K/V exchange overlaps only the attention core `core`);
// the excess is exposed, split over the axes in proportion to their time.
// Monotone in every compute and communication time. A paired forward and
// backward (DualPipe, combined 1F1B) share one window. Each helper adds
// `w` times the exposure it finds to s.exp_f / s.exp_b.
double Exposed(double compute, double core, double cp, double all) {
  return std::max({compute, compute - core + cp, all}) - compute;
}

void Spread(double e, const std::array<double, kNumAx>& parts, double all,
            std::array<double, kNumAx>& out) {
  if (e <= 0 || all <= 0) return;
  for (int a = 0; a < kNumAx; ++a) out[a] += e * parts[a] / all;
}

void SettleApart(double core_f, double core_b, const Hide& h, double w, Seg& s) {
  Spread(w * Exposed(s.cf, core_f, h.f[kAxCp], Sum(h.f)), h.f, Sum(h.f), s.exp_f);
  Spread(w * Exposed(s.cb + s.cw, core_b, h.b[kAxCp], Sum(h.b)), h.b, Sum(h.b), s.exp_b);
}

void SettleJoint(double core_f, double core_b, const Hide& h, double w, Seg& s) {
  const double hf = Sum(h.f), hb = Sum(h.b);
  if (hf + hb <= 0) return;
  const double e =
      w * Exposed(s.cf + s.cb + s.cw, core_f + core_b, h.f[kAxCp] + h.b[kAxCp], hf + hb);
  Spread(e * (hf / (hf + hb)), h.f, hf, s.exp_f);
  Spread(e * (hb / (hf + hb)), h.b, hb, s.exp_b);
}

// One rule for every schedule that pairs passes (DualPipe's F&B chunks,
// combined 1F1B's layers): the unpaired share u of passes runs alone with
// its all-to-all exposed; the rest pairs a forward with a backward in one
// window. u is counted from the schedule (PlanContext::a2a_unpaired).
void Settle(const PlanContext& c, double core_f, double core_b, const Hide& h, Seg& s) {
  if (!c.a2a && !c.dual) return SettleApart(core_f, core_b, h, 1.0, s);
  const double u = c.a2a_unpaired;
  Hide alone = h;
  alone.f[kAxEp] = alone.b[kAxEp] = 0;
  s.exp_f[kAxEp] += u * h.f[kAxEp];
  s.exp_b[kAxEp] += u * h.b[kAxEp];
  SettleApart(core_f, core_b, alone, u, s);
  SettleJoint(core_f, core_b, h, 1.0 - u, s);
}

}  // namespace

double A2aUnpairedFraction(const PlanSpec& plan, double m) {
  const double p = static_cast<double>(plan.pp);
  const double v = static_cast<double>(std::max<int64_t>(plan.vpp, 1));
  const double warmup = plan.pp > 1 ? 2 * (p - 1) + (v - 1) * p : 0;
  if (!(m * v > 0)) return 1;
  return std::min(1.0, (warmup + 1) / (m * v));
}

void Seg::Add(const Seg& o, double times) {
  cf += o.cf * times;
  cb += o.cb * times;
  cw += o.cw * times;
  for (int i = 0; i < kNumAx; ++i) {
    total[i] += o.total[i] * times;
    exp_f[i] += o.exp_f[i] * times;
    exp_b[i] += o.exp_b[i] * times;
  }
  act += o.act * times;
  act_extra += o.act_extra * times;
  act_work = std::max(act_work, o.act_work);
  params_dense += o.params_dense * times;
  params_expert += o.params_expert * times;
}

double Seg::ExposedF() const {
  double e = 0;
  for (double x : exp_f) e += x;
  return e;
}
double Seg::ExposedB() const {
  double e = 0;
  for (double x : exp_b) e += x;
  return e;
}

CommCost CommMemo::Get(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
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

CommCost CommMemo::Once(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
                        const CollectiveOptions& options) const {
  if (groups_ == nullptr || costs_ == nullptr) {
    return Collective(cluster, op, bytes, group, options);
  }
  return costs_->Get(cluster, *groups_, op, bytes, group, options);
}

Seg BlockSeg(const PlanContext& c, const BlockWork& b, bool moe) {
  const PlanSpec& p = *c.plan;
  const Compute x = BlockCompute(c, b);
  Seg s;
  const double matmul = x.proj + x.dense + x.expert;
  s.cf = matmul + x.core + x.ew + 0.5 * x.cast;
  // Input gradient: one matmul pass + attention core backward + element-wise
  // backward (~2x); weight gradient: one matmul pass.
  s.cb = matmul + x.core_b + 2 * x.ew + 0.5 * x.cast;
  s.cw = matmul;
  if (p.recompute == Recompute::kFull) s.cb += s.cf;
  if (p.recompute == Recompute::kSelective) s.cb += x.core;
  // Operator-level checkpointing re-runs every second matmul and the
  // element-wise ops (ActivationWork::op_tp).
  if (p.recompute == Recompute::kSelectiveOp) s.cb += 0.5 * matmul + x.ew;
  const double tp = static_cast<double>(p.tp);
  s.params_dense = static_cast<double>(b.params_dense) / tp;
  s.params_expert = static_cast<double>(b.params_expert) / static_cast<double>(p.ep * p.etp);
  const double seq = static_cast<double>(c.job->seq_len);
  s.act = BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, p.recompute, 1.0,
                               c.job->precision);
  s.act_extra = BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, p.recompute, c.lambda,
                                     c.job->precision) -
                s.act;
  if (p.recompute == Recompute::kFull) {
    s.act_work = BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp, Recompute::kNone,
                                      c.lambda, c.job->precision);
  }
  // Operator-level checkpointing rebuilds one block's recomputed tensors at a
  // time, beside the kept ones.
  if (p.recompute == Recompute::kSelectiveOp) {
    s.act_work = std::max(0.0, BlockActivationBytes(b, *c.work, c.tokens, seq, p.tp, p.sp,
                                                    Recompute::kNone, c.lambda, c.job->precision) -
                                   s.act - s.act_extra);
  }
  const bool tp_mlp = !moe || c.model->moe->num_shared_experts > 0 || p.etp > 1;
  Hide h;
  AddBlockTp(c, tp_mlp ? 2.0 : 1.0, s, h);
  AddCp(c, s, h);
  if (moe) AddEp(c, b, s, h);
  AddFsdp(c, s, h);
  const double core_b = x.core_b + (p.recompute == Recompute::kNone ? 0.0 : x.core);
  Settle(c, x.core, core_b, h, s);
  return s;
}

Seg EmbeddingSeg(const PlanContext& c) {
  Seg s;
  const double h = static_cast<double>(c.work->hidden), tp = static_cast<double>(c.plan->tp);
  // Row lookup (write T x h) forward, scatter-add of its gradient backward.
  s.cf = MemoryBoundTime(c.cluster->chip, c.tokens * h * kAct / tp).value();
  s.cw = 2 * s.cf;
  s.params_dense = static_cast<double>(c.work->params_embedding) / tp;
  AddTp(c, 0.5, s);  // vocab-parallel embedding: one reduce-scatter (fwd) / all-gather (bwd)
  Hide hide;
  AddFsdp(c, s, hide);
  Settle(c, 0, 0, hide, s);
  return s;
}

Seg HeadSeg(const PlanContext& c) {
  Seg s;
  const double tp = static_cast<double>(c.plan->tp);
  const ModelWork& w = *c.work;
  const double g =
      Gemm(c, w.head, c.tokens, tp, tp, w.head.weights / tp, c.tokens, c.job->precision);
  const double ew =
      MemoryBoundTime(c.cluster->chip, c.tokens * w.head_elementwise_bytes / tp).value();
  s.cf = g + ew;
  s.cb = g + ew;
  s.cw = g;
  s.params_dense = static_cast<double>(w.params_head) / tp;
  s.act = c.tokens * w.head_act_bytes / tp;
  AddTp(c, 0.5, s);  // gather the sequence before the vocab-parallel head
  Hide h;
  AddFsdp(c, s, h);
  Settle(c, 0, 0, h, s);
  return s;
}

Seg MtpSeg(const PlanContext& c, const Seg& block) {
  Seg s;
  if (c.work->mtp_layers <= 0) return s;
  const ModelWork& w = *c.work;
  Seg one = block;
  const double tp = static_cast<double>(c.plan->tp);
  const double proj =
      Gemm(c, w.mtp_proj, c.tokens, tp, tp, w.mtp_proj.weights / tp, c.tokens, c.job->precision);
  const double head =
      Gemm(c, w.head, c.tokens, tp, tp, w.head.weights / tp, c.tokens, c.job->precision) +
      MemoryBoundTime(c.cluster->chip, c.tokens * w.head_elementwise_bytes / tp).value();
  one.cf += proj + head;
  one.cb += proj + head;
  one.cw += proj + head;
  one.params_dense += static_cast<double>(w.params_mtp_extra) / tp;
  one.act += c.tokens * (3.0 * static_cast<double>(w.hidden) * kAct + w.head_act_bytes / tp);
  s.Add(one, static_cast<double>(w.mtp_layers));
  return s;
}

}  // namespace occam::step_internal
