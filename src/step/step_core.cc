// One layout's step: per-device pipeline times, bubble, data-parallel tail,
// optimizer, memory per device, MFU. Symbols: p = plan.pp, m micro-batches,
// S model chunks, d device. Sources: doc/cost-model.md §6.
#include "step/step_core.h"

#include <algorithm>
#include <array>

#include "occam/element_bytes.h"
#include "occam/schedule_traits.h"
#include "step/comm.h"
#include "step/pipeline_timing.h"

namespace occam::step_internal {
namespace {

// Megatron-Core DDP bucket: max(40M, 1M x dp) parameters
// (distributed_data_parallel_config.py, bucket_size); the last one is exposed.
double BucketParams(double dp) { return std::max(40e6, 1e6 * dp); }

// dp x cp as one group when the two axes are adjacent (gradients of dense
// weights are reduced over both: Megatron-Core with context parallelism).
RankGroup Merge(RankGroup inner, RankGroup outer) {
  if (inner.size <= 1) return outer;
  if (outer.size <= 1) return inner;
  if (outer.stride == inner.stride * inner.size)
    return {inner.size * outer.size, inner.stride, inner.mapping};
  return outer.size >= inner.size ? outer : inner;
}

}  // namespace

}  // namespace occam::step_internal

namespace occam::step_internal {

bool AllForwardFirst(const StepModel::Impl& impl, const PlanSpec& plan) {
  return impl.job.balance == BalanceMethod::kGlobalAuxLoss && impl.model.moe.has_value() &&
         plan.pp > 1;
}

void InitContext(const StepModel::Impl& impl, const PlanSpec& plan, PlanContext& c) {
  c.memo.set_caches(&impl.group_cache, &impl.collective_cache);
  c.model = &impl.model;
  c.cluster = &impl.cluster;
  c.job = &impl.job;
  c.work = &impl.work;
  c.plan = &plan;
  c.groups = Groups(plan);
  c.dense_dp = Merge(c.groups.cp, c.groups.dp);
  c.fsdp_dense = plan.hsdp > 0 ? RankGroup{plan.hsdp, c.groups.dp.stride, plan.mesh} : c.dense_dp;
  c.fsdp_expert = c.groups.edp;
  c.tokens = static_cast<double>(plan.mbs * impl.job.seq_len) / static_cast<double>(plan.cp);
  c.lambda = impl.Lambda(plan);
  c.dual = DualPipeline(plan);
  c.split_w = TraitsOf(plan.schedule).defers_weight_grad && plan.pp > 1;
  const int64_t m = impl.job.global_batch_seqs / std::max<int64_t>(plan.dp * plan.mbs, 1);
  c.ep_window = EpWindowOf(plan, c.dual);
  if (c.dual) {
    c.a2a_unpaired = UnpairedPassFraction(plan.schedule, plan.pp, m);
  } else if (c.ep_window == EpWindow::kPaired) {
    c.a2a_unpaired = A2aUnpairedFraction(plan, static_cast<double>(m));
  } else if (c.ep_window == EpWindow::kHalves) {
    c.a2a_unpaired = HalvesUnpairedFraction(impl.work, plan);
  }
  const Bytes probe(c.tokens * static_cast<double>(impl.work.hidden) * kActivationBytes);
  auto set = [&](int a, const CommLoad& cc) {
    const auto u = static_cast<size_t>(a);
    c.tier[u] = cc.tier;
    c.busy_share[u] = {};
    if (!(cc.time > Seconds())) return;
    for (size_t i = 0; i < cc.busy.size(); ++i) c.busy_share[u][i] = cc.busy[i] / cc.time;
  };
  set(kAxTp, c.LoadOnce(CollectiveOp::kAllGather, probe, c.groups.tp));
  set(kAxCp, c.LoadOnce(CollectiveOp::kAllGather, probe, c.groups.cp));
  set(kAxEp, c.LoadOnce(CollectiveOp::kAllToAll, probe, c.groups.ep));
  set(kAxFsdp, c.LoadOnce(CollectiveOp::kAllGather, probe, c.fsdp_dense));
}

PlanContext MakeContext(const StepModel::Impl& impl, const PlanSpec& plan) {
  PlanContext c;
  InitContext(impl, plan, c);
  return c;
}

PlanSegs BuildSegs(const StepModel::Impl& impl, const PlanContext& ctx) {
  const PlanSpec& plan = *ctx.plan;
  const int64_t chunks = ModelChunks(plan);
  // Default split: embedding ~1 layer-equivalent on chunk 0; head + loss ~1
  // and each MTP module ~2 (a block + a head pass) on the last chunk.
  const double head_units = 1.0 + 2.0 * static_cast<double>(impl.work.mtp_layers);
  PlanSegs s;
  s.split = LayerSplit(plan, chunks, impl.work.num_layers, 1.0, head_units);
  s.chunks = chunks;
  s.dense = BlockSeg(ctx, impl.work.dense, false);
  if (impl.model.moe) s.moe = BlockSeg(ctx, impl.work.moe, true);
  s.embed = EmbeddingSeg(ctx);
  s.head = HeadSeg(ctx);
  const LossMemory loss = LossBytes(
      s.head.act.value(), ctx.tokens * static_cast<double>(impl.work.hidden) * kActivationBytes,
      impl.job.loss_chunks, impl.job.cross_entropy != CrossEntropyImpl::kEager,
      impl.job.compiled_loss, plan.tp > 1);
  s.logits = Bytes(loss.held);
  s.loss_peak = Bytes(loss.peak);
  s.head.act = Bytes();
  s.mtp = MtpSeg(ctx, impl.model.moe ? s.moe : s.dense);
  return s;
}

bool PairedSegs(const StepModel::Impl& impl, const PlanContext& ctx, PlanSegs& out) {
  if (ctx.ep_window != EpWindow::kPaired || ctx.plan->pp <= 1) return false;
  PlanContext raw = ctx;
  raw.ep_window = EpWindow::kExposed;
  out = BuildSegs(impl, raw);
  return true;
}

ChunkKey KeyOfChunk(const PlanSegs& segs, const ModelWork& work, int64_t c) {
  const int64_t begin = segs.split.Begin(c), n = segs.split.Count(c);
  const int64_t n_moe = work.MoeLayers(begin, begin + n);
  return ChunkKey{n - n_moe, n_moe, c == 0, c == segs.chunks - 1};
}

Seg ChunkSegOf(const PlanSegs& segs, const ChunkKey& k) {
  Seg s;
  s.Add(segs.dense, static_cast<double>(k.dense));
  if (k.moe > 0) s.Add(segs.moe, static_cast<double>(k.moe));
  if (k.first) s.Add(segs.embed, 1);
  if (k.last) {
    s.Add(segs.head, 1);
    s.Add(segs.mtp, 1);
  }
  SettlePaired(s);
  return s;
}

Seg ChunkSeg(const PlanSegs& segs, const ModelWork& work, int64_t c) {
  return ChunkSegOf(segs, KeyOfChunk(segs, work, c));
}

const Seg& ChunkSegMemo::OfKey(const ChunkKey& key) {
  for (size_t i = 0; i < size_; ++i) {
    if (keys_[i] == key) return sums_[i];
  }
  Seg& slot = size_ < kSlots ? sums_[size_] : spill_;
  slot = ChunkSegOf(segs_, key);
  if (size_ < kSlots) keys_[size_++] = key;
  return slot;
}

namespace {

struct DeviceResult {
  Seg seg;  // per micro-batch costs (DualPipe: mean of its two stage copies)
  double params_dense = 0, params_expert = 0;  // held by the device
  bool has_head = false;
  bool has_embedding = false;
  // Chunks (weighted by ChunkShare) that send to a next stage / receive
  // from a previous one: torch.distributed.pipelining's buffers.
  double sends = 0, receives = 0;
  // The least activations of one micro-batch through one of its chunks
  // (unweighted, both kinds): the floor of what an in-flight chunk holds.
  Bytes lightest_chunk{-1};
};

// What Device() depends on besides the plan: the keys of the device's
// chunks in order. Devices with equal keys (the interior stages of an even
// split) have equal results.
struct DeviceKey {
  static constexpr int64_t kMaxChunks = 4;
  std::array<ChunkKey, kMaxChunks> chunk{};
  bool operator==(const DeviceKey&) const = default;
};

// False when the device has more chunks than a key holds.
// `per`: ChunksPerDevice(plan).
bool KeyOfDevice(const PlanSegs& segs, const StepModel::Impl& impl, const PlanSpec& plan, int64_t d,
                 int64_t per, DeviceKey& key) {
  if (per > DeviceKey::kMaxChunks) return false;
  for (int64_t k = 0; k < per; ++k) {
    key.chunk[static_cast<size_t>(k)] = KeyOfChunk(segs, impl.work, ChunkOf(plan, d, k));
  }
  return true;
}

DeviceResult Device(const PlanSegs& segs, ChunkSegMemo& chunks, const StepModel::Impl& impl,
                    const PlanSpec& plan, int64_t d) {
  DeviceResult r;
  const int64_t per = ChunksPerDevice(plan);
  const double w = ChunkShare(plan);
  bool first_two_have_embedding = false;
  for (int64_t k = 0; k < per; ++k) {
    const ChunkKey key = KeyOfChunk(segs, impl.work, ChunkOf(plan, d, k));
    const Seg& chunk = chunks.OfKey(key);
    r.seg.Add(chunk, w);
    const Bytes held = chunk.act + chunk.act_extra;
    r.lightest_chunk = r.lightest_chunk < Bytes() ? held : Min(r.lightest_chunk, held);
    r.params_dense += chunk.params_dense;
    r.params_expert += chunk.params_expert;
    if (key.last) r.has_head = true;
    if (key.first) r.has_embedding = true;
    if (!key.last) r.sends += w;
    if (!key.first) r.receives += w;
    if (k < 2 && key.first) first_two_have_embedding = true;
  }
  // Tied embeddings: the head's device keeps its own copy (Megatron-Core).
  if (impl.work.tied_embeddings && r.has_head && !first_two_have_embedding) {
    r.params_dense +=
        static_cast<double>(impl.work.params_embedding) / static_cast<double>(plan.tp);
  }
  return r;
}

// Seconds each tier's links carry the device's own traffic in one
// micro-batch's forward (or backward, recompute included): each axis's
// communication in that pass, hidden or exposed, times the share of it that
// keeps the tier busy (PlanContext::busy_share).
TierSeconds PassBusy(const PlanContext& c, const Seg& s, bool forward) {
  TierSeconds out{};
  const size_t tiers = std::min(out.size(), c.cluster->tiers.size());
  for (size_t a = 0; a < static_cast<size_t>(kNumAx); ++a) {
    const Seconds comm = forward ? s.total_f[a] : s.total[a] - s.total_f[a];
    if (!(comm > Seconds())) continue;
    for (size_t i = 0; i < tiers; ++i) out[i] += comm * c.busy_share[a][i];
  }
  return out;
}

// Gradient reduction and weight gathering after the last micro-batch,
// overlapped with that micro-batch's backward (and the next step's first
// forward) except the last bucket (Megatron-Core overlap_grad_reduce /
// overlap_param_gather); all exposed when the job does not overlap them.
// The dense and the expert reductions (and the two gathers) run at once,
// each from its own buffers over its own group (Megatron-Core
// distributed_data_parallel.py), behind one window (ExcessOver), whose links also carry the pass's
// own traffic (PassBusy: an expert all-to-all over the same NICs, hidden or not); the exposed part
// is split between them by their time. Repeated devices are skipped by the caller and repeated
// calls are found in the StepModel's CollectiveCache.
void DataParallelTail(const PlanContext& c, const DeviceResult& dev, const DeviceTimes& t,
                      CoreResult& out) {
  const PlanSpec& p = *c.plan;
  const double dp = static_cast<double>(c.dense_dp.size);
  const double params = dev.params_dense + dev.params_expert;
  const double last = !c.job->overlap_grad_reduce ? 1.0
                      : params > 0                ? std::min(1.0, BucketParams(dp) / params)
                                                  : 0;
  // `times` rounds per step, each behind one micro-batch's window; the last
  // one also exposes its last bucket. Keeps the device whose pair exposes
  // the most.
  const TierSeconds busy_b = PassBusy(c, dev.seg, false), busy_f = PassBusy(c, dev.seg, true);
  auto pair = [&](TailItem& a, TailItem& b, const CommLoad& ca, const CommLoad& cb, Seconds window,
                  const TierSeconds& other, double times) {
    const Seconds excess = ExcessOver(ca, cb, window, other);
    const Seconds exposed = (times - 1.0) * excess + std::max(excess, TogetherTime(ca, cb) * last);
    if (exposed <= a.exposed + b.exposed) return;
    const Seconds sum = ca.time + cb.time;
    const double share_a = sum > Seconds() ? ca.time / sum : 0.0;
    a = TailItem{times * ca.time, exposed * share_a, ca.tier};
    b = TailItem{times * cb.time, exposed * (1.0 - share_a), cb.tier};
  };
  const double grad_bytes = GradReduceBytesPerParam(*c.job);
  if (p.zero >= 3) {
    if (p.hsdp > 0 && p.hsdp < c.dense_dp.size) {
      // HSDP: replicas all-reduce their gradient shard once per step.
      const RankGroup rep{c.dense_dp.size / p.hsdp, c.fsdp_dense.stride * p.hsdp, p.mesh};
      TailItem none;
      pair(out.dp_grad, none,
           c.LoadOnce(CollectiveOp::kAllReduce, Bytes(grad_bytes * dev.params_dense / p.hsdp), rep),
           CommLoad{}, t.b + t.w, busy_b, 1.0);
    }
    return;
  }
  const CollectiveOp grad_op =
      p.zero == 0 ? CollectiveOp::kAllReduce : CollectiveOp::kReduceScatter;
  // ZeRO-2 keeps only its gradient shard, so the gradients of every
  // micro-batch are reduce-scattered as its backward produces them
  // (Rajbhandari et al. 2020 §5.2, P_os+g; DeepSpeed stage_1_and_2.py reduces
  // each bucket in every backward); ZeRO-0/1 accumulate the full gradient and
  // reduce once per step.
  const double times = p.zero == 2 ? out.m : 1.0;
  pair(out.dp_grad, out.edp_grad,
       c.LoadOnce(grad_op, Bytes(grad_bytes * dev.params_dense), c.dense_dp),
       c.LoadOnce(grad_op, Bytes(grad_bytes * dev.params_expert), c.groups.edp), t.b + t.w, busy_b,
       times);
  if (p.zero >= 1) {
    pair(out.dp_gather, out.edp_gather,
         c.LoadOnce(CollectiveOp::kAllGather, Bytes(kWeightBytesPerParam * dev.params_dense),
                    c.dense_dp),
         c.LoadOnce(CollectiveOp::kAllGather, Bytes(kWeightBytesPerParam * dev.params_expert),
                    c.groups.edp),
         t.f, busy_f, 1.0);
  }
}

// Parameters of the largest block on one chip (the dense block, or a MoE
// block with its experts over ep): what FSDP gathers or reduces at once.
double LargestBlockParams(const PlanContext& c) {
  return static_cast<double>(std::max(
      c.work->dense.params_dense,
      c.work->moe.params_dense + c.work->moe.params_expert / std::max<int64_t>(c.plan->ep, 1)));
}

}  // namespace

// Unsharded copies ZeRO-3 / FSDP holds beside its shards (doc/cost-model.md
// §3). With a pipeline, the stage's 16-bit weights stay gathered and its
// gradients unsharded (fp32) until the last micro-batch: torchtitan sets
// reshard_after_forward = False under PP (parallelize_llama.py, "to avoid
// per-microbatch all-gathers") and torch.distributed.pipelining syncs and
// reshards FSDP gradients only in the last backward. Without one, two
// gathered blocks (the running one and the prefetched next) and the root
// unit (embedding, final norm, head: FSDP2's fully_shard(model) after the
// blocks), gathered through the whole forward on the devices that hold it.
//
// With fsdp_per_tensor the unit is one weight matrix (DeepSpeed ZeRO-3 of
// 2021): a module's forward pre-hook gathers its parameters and the post-hook
// releases them (deepspeed/runtime/zero/parameter_offload.py,
// pre_/post_sub_module_forward_function), so what is held unsharded is the
// matrix in use, and the next one where gathers are prefetched
// (fsdp_overlap); without prefetch the gathers are synchronous, one at a time.
Bytes FullyShardedBuffers(const PlanContext& c, double params, bool has_embedding, bool has_head) {
  const PlanSpec& p = *c.plan;
  const double tp = static_cast<double>(p.tp);
  if (p.pp > 1) return Bytes((kBf16Bytes + kFp32Bytes) * params);
  if (c.job->fsdp_per_tensor) {
    const double in_flight = c.job->fsdp_overlap ? 2.0 : 1.0;
    return Bytes(kBf16Bytes * in_flight * LargestFsdpMatrix(c, has_embedding, has_head));
  }
  const double block = LargestBlockParams(c);
  double root = 0;
  if (has_embedding) root += static_cast<double>(c.work->params_embedding);
  if (has_head) root += static_cast<double>(c.work->params_head);
  return Bytes(kBf16Bytes * (2.0 * block + root) / tp);
}

namespace {

// FSDP2's gradients while the blocks' backward runs, without a pipeline
// (with one, FullyShardedBuffers already holds the stage's unsharded
// gradients). A block's gradients are written unsharded in the 16-bit
// parameter dtype, then copied into a reduce-scatter input of the reduce
// dtype (the job's gradient width: fp32 under torchtitan's
// mixed_precision_reduce "float32") and freed; that input is kept until the
// next block's reduce-scatter is issued (torch/distributed/fsdp/_fully_shard/
// _fsdp_collectives.py foreach_reduce, _fsdp_param_group.py
// reduce_scatter_state), so one block's 16-bit gradients and the previous
// block's reduce-scatter input are alive together. The root unit
// (embedding, final norm, head: fully_shard(model)) reduces only in the
// final callback of the backward, so the head's 16-bit gradient, written in
// the loss's backward, stays unsharded through the blocks' backward.
double FullyShardedGradBuffers(const PlanContext& c, const DeviceResult& dev,
                               const StateBytesPerParam& state) {
  const PlanSpec& p = *c.plan;
  if (p.pp > 1) return 0.0;
  // Per weight matrix (fsdp_per_tensor): one matrix's 16-bit gradient and the
  // previous one's reduce-scatter input; the head's gradient is reduced as
  // soon as its backward produces it, like any other matrix
  // (_reduce_scatter_gradient per parameter,
  // deepspeed/runtime/zero/partition_parameters.py).
  if (c.job->fsdp_per_tensor) {
    return (kBf16Bytes + state.grad) * LargestFsdpMatrix(c, dev.has_embedding, dev.has_head);
  }
  const double tp = static_cast<double>(p.tp);
  const double block = LargestBlockParams(c);
  const double head = dev.has_head ? static_cast<double>(c.work->params_head) : 0.0;
  return (kBf16Bytes * (block + head) + state.grad * block) / tp;
}

// Activation gradients of the device's largest block while its backward
// runs (BlockGradientBytes).
double GradientWork(const PlanContext& c) {
  const PlanSpec& p = *c.plan;
  double g = BlockGradientBytes(c.work->dense, *c.work, c.tokens, p.tp, p.sp, c.lambda);
  if (c.model->moe) {
    g = std::max(g, BlockGradientBytes(c.work->moe, *c.work, c.tokens, p.tp, p.sp, c.lambda));
  }
  return g;
}

// Stored activations the device holds at its peak: `held_act` of them
// balanced-routing activations, `held_extra` routing-imbalance headroom.
struct Held {
  Bytes act, extra;
};

}  // namespace

Bytes BoundaryBytes(const PlanContext& c) {
  const PlanSpec& p = *c.plan;
  return Bytes(c.tokens * static_cast<double>(c.work->hidden) * kActivationBytes /
               (p.sp ? static_cast<double>(p.tp) : 1.0));
}

// TP all-gather buffers (2 x T h), EP receive buffers (lambda k T/tp h,
// send + receive).
Bytes CommBuffers(const PlanContext& c) {
  const PlanSpec& p = *c.plan;
  double out = 0;
  const double th = c.tokens * static_cast<double>(c.work->hidden) * kActivationBytes;
  if (p.tp > 1) out += 2.0 * th;
  if (p.ep > 1 && c.model->moe) {
    out +=
        2.0 * c.lambda * static_cast<double>(c.model->moe->top_k) * th / static_cast<double>(p.tp);
  }
  return Bytes(out);
}

namespace {

// What PyTorch's torch.distributed.pipelining keeps beside the blocks'
// activations (JobSpec::torch_pipelining; stage.py): forward_one_chunk puts
// each micro-batch's stage output in fwd_cache until its backward (Megatron-
// Core frees it after the send, deallocate_output_tensor), and
// _prepare_forward_infra / _prepare_backward_infra allocate one activation
// and one gradient receive buffer per micro-batch that live through the
// step. A received activation is the stage's input, already stored by its
// first block while the micro-batch is in flight, so only the buffers of
// micro-batches not in flight add. `inflight`: micro-batches through all of
// the device's chunks (held activations over one micro-batch's); the
// per-chunk split assumes equal counts per chunk (exact for one chunk per
// device).
struct StageBuffers {
  Bytes outputs, receive;
};
StageBuffers TorchPipeliningBuffers(const PlanContext& c, const DeviceResult& dev, double inflight,
                                    double m) {
  const PlanSpec& p = *c.plan;
  if (!c.job->torch_pipelining || p.pp <= 1) return {};
  const double boundary = BoundaryBytes(c).value();
  const double in_flight = std::min(inflight, m);
  return {Bytes(dev.sends * in_flight * boundary),
          Bytes((dev.sends * m + dev.receives * (m - in_flight)) * boundary)};
}

MemoryBreakdown DeviceMemory(const PlanContext& c, const PlanSegs& segs, const DeviceResult& dev,
                             Held held, double m, bool all_forward_first) {
  const PlanSpec& p = *c.plan;
  const double shard_d = static_cast<double>(c.fsdp_dense.size);
  const double shard_e = static_cast<double>(std::max<int64_t>(c.fsdp_expert.size, 1));
  const StateBytesPerParam state = TrainingStateBytes(*c.job);
  const StateMemory a =
      ShardedState(dev.params_dense, p.zero,
                   p.zero >= 3 ? shard_d : static_cast<double>(c.dense_dp.size), state);
  const StateMemory b = ShardedState(dev.params_expert, p.zero, shard_e, state);
  MemoryBreakdown mem;
  mem.weights = a.weights + b.weights;
  mem.grads = a.grads + b.grads;
  mem.optimizer = a.optimizer + b.optimizer;
  mem.activations = held.act;
  const double inflight = dev.seg.act > Bytes() ? held.act / dev.seg.act : 0.0;
  const StageBuffers stage = TorchPipeliningBuffers(c, dev, inflight, m);
  mem.activations += stage.outputs;
  // Combined 1F1B: a paired layer builds the next micro-batch's activations
  // before its backward frees the previous one's (doc/cost-model.md).
  if (c.ep_window == EpWindow::kPaired && !c.dual) {
    mem.activations += segs.moe.act + segs.moe.act_extra;
  }
  // Routing-imbalance headroom, TP / EP buffers, ZeRO-3 prefetch (two
  // gathered blocks).
  double other = held.extra.value() + CommBuffers(c).value() + stage.receive.value();
  if (p.zero >= 3) {
    other += FullyShardedBuffers(c, dev.params_dense + dev.params_expert, dev.has_embedding,
                                 dev.has_head)
                 .value();
  }
  mem.other = Bytes(other);
  // Two moments of the backward peak: the loss's (its held tensors and
  // working set, on the head's device) and a block's backward (the rebuilt
  // block, its activation gradients and FSDP2's gradient buffers, with the
  // logits of the micro-batches whose loss has not run yet). Autograd frees
  // the loss's tensors before the blocks' backward, so the peak is the
  // larger of the two, not their sum (doc/cost-model.md §3).
  MemoryBreakdown loss = mem;
  if (dev.has_head) loss.logits = segs.logits * (all_forward_first ? m : 1.0) + segs.loss_peak;
  MemoryBreakdown blocks = mem;
  blocks.activations += dev.seg.act_work + Bytes(GradientWork(c));
  if (dev.has_head && all_forward_first) blocks.logits = segs.logits * (m - 1.0);
  if (p.zero >= 3) blocks.other += Bytes(FullyShardedGradBuffers(c, dev, state));
  return loss.total() > blocks.total() ? loss : blocks;
}

DeviceTimes TimesOf(const Seg& s) {
  return DeviceTimes{s.cf + s.ExposedF(), s.cb + s.ExposedB(), s.cw + s.ExposedW()};
}

}  // namespace

CommCost P2pOne(const PlanContext& c) {
  return c.CommOnce(CollectiveOp::kSendRecv, BoundaryBytes(c), c.groups.pp);
}

namespace {

// Held activations of device d: at its simulated peak (split into the two
// kinds in the device's own proportion; exact for one chunk per device), or
// InFlight micro-batches of its chunks.
Held HeldOf(const PlanSpec& plan, const DeviceResult& dev, int64_t d, double m, bool aff,
            const PipelineTiming& sim) {
  if (!sim.ok) {
    const double inflight = InFlight(plan, d, m, aff);
    return Held{inflight * dev.seg.act, inflight * dev.seg.act_extra};
  }
  // Combined 1F1B's one more warm-up chunk forward (stages.cc InFlight) is
  // in the simulated peak: its pairs hold the forward's activations from
  // the pair's start (PipelineConfig::combined_1f1b).
  const Bytes peak(sim.device_peak_bytes[static_cast<size_t>(d)]);
  const Bytes per = dev.seg.act + dev.seg.act_extra;
  const double share = per > Bytes() ? dev.seg.act / per : 1.0;
  return Held{peak * share, peak * (1.0 - share)};
}

// The closed form's in-flight count on device d, every chunk taken at the
// device's lightest: below the simulated peak, which holds at least that
// many chunk passes (PipelineTiming.SimulatedPeakHoldsTheClosedFormCount),
// each at least the lightest (less the simulator's rounding); split into the two kinds as HeldOf
// splits the simulated peak.
Held HeldFloor(const PlanSpec& plan, const DeviceResult& dev, int64_t d, double m, bool aff) {
  const Bytes floor = InFlightPasses(plan, d, m, aff) * kPipelineRoundingFloor * dev.lightest_chunk;
  const Bytes per = dev.seg.act + dev.seg.act_extra;
  const double share = per > Bytes() ? dev.seg.act / per : 1.0;
  return Held{floor * share, floor * (1.0 - share)};
}

// Devices already costed, by key (DeviceKey). A repeat adds its times to
// the sums; its tail, optimizer time and critical period are the first
// copy's (the maxima ignore an equal value). Its memory differs only by the
// activations it holds: it is costed unless `held` of an already costed copy
// is at least as large in both kinds (memory is monotone in them).
struct Seen {
  DeviceKey key;
  DeviceResult dev;
  DeviceTimes t;
  Held held;
};

// What AllDevices gathers over the pipeline devices besides `out`'s fields.
struct DeviceSweep {
  DeviceTimes sum;         // per micro-batch times summed over devices
  DeviceTimes crit;        // the slowest device's
  Seconds crit_total{-1};  // its total per micro-batch
  Seconds optimizer;       // the slowest optimizer step
};

// Costs every pipeline device (devices with equal chunks once) and fills
// out.crit, the data-parallel tail items and out.memory (the device with
// the most memory).
DeviceSweep AllDevices(const StepModel::Impl& impl, const PlanSpec& plan, const PlanSegs& segs,
                       const PipelineTiming& sim, CoreResult& out,
                       std::vector<MemoryBreakdown>* device_memory) {
  DeviceSweep r;
  DeviceTimes& sum = r.sum;
  DeviceTimes& crit = r.crit;
  Seconds& crit_total = r.crit_total;
  Seconds& opt = r.optimizer;
  const PlanContext& c = out.ctx;
  std::array<Seen, 8> seen;
  size_t n_seen = 0;
  double worst_mem = -1;
  const int64_t per = ChunksPerDevice(plan);
  DeviceKey key;  // chunks past `per` stay default
  DeviceResult fresh;
  ChunkSegMemo chunks(segs, impl.work);
  for (int64_t d = 0; d < plan.pp; ++d) {
    const bool keyed = KeyOfDevice(segs, impl, plan, d, per, key);
    Seen* repeat = nullptr;
    for (size_t i = 0; keyed && i < n_seen && repeat == nullptr; ++i) {
      if (seen[i].key == key) repeat = &seen[i];
    }
    if (repeat == nullptr) fresh = Device(segs, chunks, impl, plan, d);
    const DeviceResult& dev = repeat ? repeat->dev : fresh;
    const DeviceTimes t = repeat ? repeat->t : TimesOf(dev.seg);
    sum.f += t.f;
    sum.b += t.b;
    sum.w += t.w;
    const Held held = HeldOf(plan, dev, d, out.m, out.all_forward_first, sim);
    if (repeat == nullptr) {
      if (t.total() > crit_total) {
        crit_total = t.total();
        crit = t;
        out.crit = dev.seg;
      }
      DataParallelTail(c, dev, t, out);
      const double owned =
          plan.zero >= 1 ? dev.params_dense / static_cast<double>(c.fsdp_dense.size) +
                               dev.params_expert /
                                   static_cast<double>(std::max<int64_t>(c.fsdp_expert.size, 1))
                         : dev.params_dense + dev.params_expert;
      // Adam's update reads the gradient, master and moments, writes them
      // back and the 16-bit weight (kAdamUpdateTrafficBytesPerParam with the
      // job's state precisions).
      const StateBytesPerParam state = TrainingStateBytes(impl.job);
      const double traffic = state.grad + 2 * state.optimizer + kWeightBytesPerParam;
      opt = std::max(opt, MemoryBoundTime(impl.cluster.chip, traffic * owned));
      if (keyed && n_seen < seen.size()) {
        seen[n_seen] = Seen{key, dev, t, held};
        repeat = &seen[n_seen++];
      }
    } else if (held.act <= repeat->held.act && held.extra <= repeat->held.extra) {
      if (device_memory != nullptr) {
        device_memory->push_back(DeviceMemory(c, segs, dev, held, out.m, out.all_forward_first));
      }
      continue;  // no more memory than a costed copy
    } else if (held.act >= repeat->held.act && held.extra >= repeat->held.extra) {
      repeat->held = held;
    }
    const MemoryBreakdown mem = DeviceMemory(c, segs, dev, held, out.m, out.all_forward_first);
    if (device_memory != nullptr) device_memory->push_back(mem);
    const Bytes floor =
        sim.ok || plan.pp <= 1
            ? mem.total()
            : DeviceMemory(c, segs, dev, HeldFloor(plan, dev, d, out.m, out.all_forward_first),
                           out.m, out.all_forward_first)
                  .total();
    out.memory_floor = Max(out.memory_floor, floor);
    if (mem.total().value() > worst_mem) {
      worst_mem = mem.total().value();
      out.memory = mem;
    }
  }
  return r;
}

}  // namespace

CoreResult RunCore(const StepModel::Impl& impl, const PlanSpec& plan, PipelineTimingModel model,
                   std::vector<MemoryBreakdown>* device_memory) {
  CoreResult out;
  InitContext(impl, plan, out.ctx);
  const PlanContext& c = out.ctx;
  const PlanSegs segs = BuildSegs(impl, c);
  out.m = static_cast<double>(impl.job.global_batch_seqs) / static_cast<double>(plan.dp * plan.mbs);
  out.all_forward_first = AllForwardFirst(impl, plan);
  out.capacity = impl.cluster.chip.hbm * (1.0 - impl.job.memory_headroom);
  CommCost p2p_one;
  PipelineTiming sim;  // ok = false: closed forms
  if (plan.pp > 1) {
    p2p_one = P2pOne(c);
    if (model == PipelineTimingModel::kSimulated) {
      // p2p stays out of the simulation (its fill/drain exposure is the
      // closed form below): without transfers competing for send/recv
      // streams the simulated makespan is monotone in every duration.
      // DualPipe / DualPipeV and combined 1F1B: the simulator plays the F&B
      // pairs on passes that carry all their expert all-to-all
      // (doc/cost-model.md "Expert all-to-all overlap").
      PlanSegs paired;
      const bool pairs = PairedSegs(impl, c, paired);
      const PipelinePlan pipe =
          BuildPipelinePlan(impl, plan, segs, Seconds(), pairs ? &paired : nullptr);
      out.converted = pipe.converted;
      if (pipe.supported) sim = SimulatedPipeline(impl.pipeline_cache, pipe.config);
    }
  }
  out.simulated = sim.ok;
  DeviceSweep devices = AllDevices(impl, plan, segs, sim, out, device_memory);
  const DeviceTimes& sum = devices.sum;
  DeviceTimes& crit = devices.crit;
  const Seconds crit_total = devices.crit_total;
  const Seconds opt = devices.optimizer;
  out.optimizer = TailItem{opt, opt, -1};
  out.crit_period = crit_total;
  if (plan.pp > 1) {
    // One activation (or its gradient) per chunk boundary per micro-batch;
    // the fill and drain cross S-1 boundaries each way unhidden.
    const double per = static_cast<double>(ChunksPerDevice(plan));
    out.p2p = TailItem{2.0 * out.m * per * p2p_one.time,
                       2.0 * static_cast<double>(segs.chunks - 1) * p2p_one.time, p2p_one.tier};
  }
  if (sim.ok) {
    // The simulated makespan holds the fill, the drain and uneven chunks:
    // the bubble is what it adds to the critical device's m t*
    // (doc/cost-model.md §6).
    out.bubble = Max(Seconds(), Seconds(sim.makespan) - out.m * crit_total);
  } else {
    if (c.dual) {
      // DualPipe's (F&B + B - 3W) counts compute: the hidden part of the
      // overlapped communication stays out of it (it would otherwise grow as
      // compute shrinks), the unhidden tp collectives stay in.
      const Seg& k = out.crit;
      crit = DeviceTimes{k.cf + k.exp_f[kAxTp], k.cb + k.exp_b[kAxTp], k.cw + k.exp_w[kAxTp]};
    }
    out.bubble = BubbleTime(plan, sum, crit, out.all_forward_first, out.m);
  }
  out.step = out.m * crit_total + out.bubble + out.p2p.exposed + out.dp_grad.exposed +
             out.edp_grad.exposed + out.dp_gather.exposed + out.edp_gather.exposed +
             out.optimizer.exposed;
  out.fits = out.memory.total() <= out.capacity;
  const double tokens = static_cast<double>(impl.job.global_batch_tokens());
  const double peak = (impl.job.precision == Precision::kFp8 ? impl.cluster.chip.peak_fp8
                                                             : impl.cluster.chip.peak_bf16)
                          .value();
  const double denom = out.step.value() * static_cast<double>(plan.chips()) * peak;
  double hw = impl.model_flops_per_token;
  if (plan.recompute == Recompute::kFull) hw += impl.recompute_full_flops_per_token;
  if (plan.recompute == Recompute::kSelective) hw += impl.recompute_attn_flops_per_token;
  if (SavesDots(plan.recompute)) {
    hw += impl.recompute_attn_flops_per_token + impl.recompute_expert_flops_per_token;
  }
  hw += RecomputedMlpShare(plan.recompute, impl.model) * impl.recompute_mlp_flops_per_token;
  if (plan.recompute == Recompute::kSelectiveOp) hw += impl.recompute_op_flops_per_token;
  out.mfu = impl.model_flops_per_token * tokens / denom;
  out.hfu = hw * tokens / denom;
  return out;
}

}  // namespace occam::step_internal
