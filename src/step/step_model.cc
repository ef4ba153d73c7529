// StepModel: precomputes the model's work once, then evaluates plans with
// the shared arithmetic of step_core.cc (Evaluate adds names and text).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "occam/schedule_traits.h"
#include "step/pipeline_timing.h"
#include "step/step_core.h"

namespace occam {

using step_internal::CoreResult;
using step_internal::PipelineTimingModel;
using step_internal::RunCore;

StepModel::StepModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StepModel::StepModel(StepModel&&) noexcept = default;
StepModel& StepModel::operator=(StepModel&&) noexcept = default;
StepModel::~StepModel() = default;

const ModelSpec& StepModel::model() const { return impl_->model; }
const ClusterSpec& StepModel::cluster() const { return impl_->cluster; }
const JobSpec& StepModel::job() const { return impl_->job; }

void StepModel::SetGemmCalibration(const ChipSpec& chip) {
  ChipSpec& c = impl_->cluster.chip;
  c.gemm_efficiency = chip.gemm_efficiency;
  c.gemm_half_tokens = chip.gemm_half_tokens;
  c.gemm_half_width = chip.gemm_half_width;
  c.gemm_fp8_ratio = chip.gemm_fp8_ratio;
  c.moe_dispatch_host_s = chip.moe_dispatch_host_s;
}

Result<StepModel> StepModel::Create(const ModelSpec& model, const ClusterSpec& cluster,
                                    const JobSpec& job) {
  OCCAM_RETURN_IF_ERROR(ValidateModel(model, model.name.empty() ? "model" : model.name));
  OCCAM_RETURN_IF_ERROR(ValidateCluster(cluster, cluster.name.empty() ? "cluster" : cluster.name));
  OCCAM_RETURN_IF_ERROR(ValidateJob(job, "job"));
  if (job.global_batch_seqs <= 0) {
    return InvalidInput("job.global_batch_seqs must be > 0 (got " +
                        std::to_string(job.global_batch_seqs) +
                        "); give --global-batch-seqs or --global-batch-tokens");
  }
  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->cluster = cluster;
  impl->job = job;
  impl->work = BuildModelWork(model, job.seq_len, ActivationOptionsOf(job));
  impl->model_flops_per_token = ModelFlopsPerToken(model, job.seq_len).value();
  // Recompute adds forward work per token: every block again (full), or
  // the attention core (selective); Korthikanti et al. 2022 §5.
  const ModelWork& w = impl->work;
  const double n_moe = static_cast<double>(w.MoeLayers(0, w.num_layers));
  const double n_dense = static_cast<double>(w.num_layers) - n_moe;
  const double mtp = static_cast<double>(w.mtp_layers);
  const BlockWork& mtp_block = model.moe ? w.moe : w.dense;
  impl->recompute_full_flops_per_token = n_dense * w.dense.ForwardFlops() +
                                         n_moe * w.moe.ForwardFlops() +
                                         mtp * mtp_block.ForwardFlops();
  impl->recompute_attn_flops_per_token = n_dense * w.dense.attn_core.flops +
                                         n_moe * w.moe.attn_core.flops +
                                         mtp * mtp_block.attn_core.flops;
  impl->recompute_mlp_flops_per_token =
      n_dense * w.dense.mlp.flops + n_moe * w.moe.mlp.flops + mtp * mtp_block.mlp.flops;
  // The routed experts' forward (0 for a dense block, whose top_k is 0).
  auto experts = [](const BlockWork& b) { return b.top_k * b.expert.flops; };
  // Operator-level checkpointing: the projections it does not keep, the
  // router and the routed experts (op_sac.cc, layer_cost.cc BlockSeg).
  auto op = [&](const BlockWork& b) {
    return b.op_rerun_share * (b.attn_proj.flops + b.mlp.flops) + b.router.flops + experts(b);
  };
  impl->recompute_op_flops_per_token =
      n_dense * op(w.dense) + n_moe * op(w.moe) + mtp * op(mtp_block);
  // JAX's dot-saving policies re-run the routed experts (layer_cost.cc).
  impl->recompute_expert_flops_per_token = n_moe * experts(w.moe) + mtp * experts(mtp_block);
  return StepModel(std::move(impl));
}

namespace {

QuickEstimate QuickOf(const CoreResult& r) {
  QuickEstimate q;
  q.step_time = r.step;
  q.mfu = r.mfu;
  q.memory_total = r.memory.total();
  q.fits = r.fits;
  q.memory_floor = r.memory_floor;
  return q;
}

}  // namespace

QuickEstimate StepModel::EvaluateClosedForm(const PlanSpec& plan) const {
  return QuickOf(RunCore(*impl_, plan, PipelineTimingModel::kClosedForm));
}

QuickEstimate StepModel::EvaluateQuick(const PlanSpec& plan) const {
  return QuickOf(RunCore(*impl_, plan));
}

namespace {

Seconds Compute(const step_internal::Seg& s) { return s.cf + s.cb + s.cw; }

// Schedules on which device d idles until micro-batch 0's forward has
// crossed the chunks before its first (one parameter copy; ZB-V bounds its
// closed form's fill instead, LowerBoundsFor).
bool OneWayFill(const PlanSpec& plan, bool all_forward_first) {
  return TraitsOf(plan.schedule).parameter_copies == 1 &&
         (plan.schedule != Schedule::kZbV || all_forward_first);
}

// The forward compute of one micro-batch through the chunks before `first`.
Seconds ForwardBefore(step_internal::ChunkSegMemo& chunks, int64_t first) {
  Seconds start;
  for (int64_t chunk = 0; chunk < first; ++chunk) start += chunks.Of(chunk).cf;
  return start;
}

// The tp, cp, ep and ZeRO-3 traffic of `t` (per axis): what a pass's
// windows hide at most their compute of (LinkTimeFor).
Seconds WindowTraffic(const step_internal::AxisTimes& t) {
  Seconds sum;
  for (int a :
       {step_internal::kAxTp, step_internal::kAxCp, step_internal::kAxEp, step_internal::kAxFsdp}) {
    sum += t[static_cast<size_t>(a)];
  }
  return sum;
}

// GPipe / 1F1B: sum_d t_d / (1 - (1 - 1/m)^p), derived below.
Seconds FillDrain(Seconds sum, double m, int64_t pp) {
  return sum / (1.0 - std::pow(1.0 - 1.0 / m, static_cast<double>(pp)));
}

}  // namespace

// Every device runs m micro-batches through its chunks one after another,
// so the slowest device's compute m * t_d is at least m * sum_d t_d / pp, and
// sum_d t_d is the whole model's compute per micro-batch (every chunk once).
// GPipe / 1F1B: device k cannot start before micro-batch 0 has crossed
// devices 0..k-1 and ends only after the last backward has crossed them
// back, so step >= m t_k + sum_{d<k} t_d for every k; the weights
// w_d ~ (1 - 1/m)^(p-1-d) average these into
// step >= sum_d t_d / (1 - (1 - 1/m)^p) (>= m sum_d t_d / p by Bernoulli).
// Memory: device d's parameters (its chunks', the tied embedding copy left
// out) sharded as RunCore shards them, over the largest groups any order or
// HSDP can give (dense: dp*cp ranks; experts: the edp group, whose size no
// order changes). Activations: device d holds InFlight(d) micro-batches of
// its chunks' bytes plus the logits on the head's device, the TP / EP
// buffers (CommBuffers) and ZeRO-3's unsharded copies (FullyShardedBuffers),
// as RunCore's closed form (the planner's ranking pass) counts them;
// InFlight without combined 1F1B's extra warm-up forward, the least of the
// all-to-all overlap variants the bound is shared by.
// Fill: device d can start no earlier than micro-batch 0 has crossed the
// chunks before its first one (one-way schedules: DualPipe feeds both ends;
// ZB-V bounds its closed form's fill instead, below),
// so the step is at least that forward time plus m times its compute.
// BlockSeg's compute and activations depend on the plan's degrees, tokens
// and lambda only: with every rank group of size one its collectives cost
// nothing, so the segments below are RunCore's without communication.
StepModel::LowerBounds StepModel::LowerBoundsFor(const PlanSpec& plan) const {
  const Impl& impl = *impl_;
  step_internal::PlanContext c;
  c.model = &impl.model;
  c.cluster = &impl.cluster;
  c.job = &impl.job;
  c.work = &impl.work;
  c.plan = &plan;
  c.tokens = static_cast<double>(plan.mbs * impl.job.seq_len) / static_cast<double>(plan.cp);
  c.lambda = impl.Lambda(plan);
  const step_internal::PlanSegs segs = step_internal::BuildSegs(impl, c);
  const double m =
      static_cast<double>(impl.job.global_batch_seqs) / static_cast<double>(plan.dp * plan.mbs);
  const bool all_forward_first = step_internal::AllForwardFirst(impl, plan);
  const int64_t per = step_internal::ChunksPerDevice(plan);
  const double w = step_internal::ChunkShare(plan);
  const double dense_shards = static_cast<double>(plan.dp * plan.cp);
  const double expert_shards =
      static_cast<double>(std::max<int64_t>(plan.tp * plan.cp * plan.dp / (plan.ep * plan.etp), 1));
  step_internal::ChunkSegMemo chunks(segs, impl.work);
  // ZB-V: its closed form's fill (BubbleTime: the forwards of every device
  // but the critical one, over its two chunks) is bounded below by the same
  // sum over every device but the one with the most forward compute.
  const bool zbv = plan.schedule == Schedule::kZbV && !all_forward_first;
  const bool one_way = OneWayFill(plan, all_forward_first);
  Seconds compute, filled, forwards, most_forward, most_compute;
  LowerBounds out;
  out.memory_by_zero.fill(Bytes(0));
  const Bytes buffers = step_internal::CommBuffers(c);
  PlanSpec no_overlap = plan;
  no_overlap.a2a_overlap = EpOverlap::kNone;
  for (int64_t d = 0; d < plan.pp; ++d) {
    Bytes lightest(-1);
    double dense = 0, expert = 0;
    bool head = false;
    Seconds mine, mine_forward;
    int64_t first_chunk = segs.chunks;
    for (int64_t k = 0; k < per; ++k) {
      const int64_t chunk = step_internal::ChunkOf(plan, d, k);
      first_chunk = std::min(first_chunk, chunk);
      const step_internal::Seg& s = chunks.Of(chunk);
      mine += w * Compute(s);
      mine_forward += w * s.cf;
      const Bytes chunk_held = s.act + s.act_extra;
      lightest = lightest < Bytes() ? chunk_held : Min(lightest, chunk_held);
      dense += s.params_dense;
      expert += s.params_expert;
      head = head || chunk == segs.chunks - 1;
    }
    compute += mine;
    forwards += mine_forward;
    most_forward = Max(most_forward, mine_forward);
    most_compute = Max(most_compute, mine);
    const Seconds start = one_way ? ForwardBefore(chunks, first_chunk) : Seconds();
    filled = Max(filled, start + m * mine);
    // The closed form's count of the device's lightest chunk: below both the
    // closed form (the mean chunk) and the simulated peak (step_core.cc
    // HeldFloor).
    Bytes held = step_internal::InFlightPasses(no_overlap, d, m, all_forward_first) *
                     step_internal::kPipelineRoundingFloor * lightest +
                 buffers;
    if (head) held += segs.logits * (all_forward_first ? m : 1.0);
    const StateBytesPerParam state = TrainingStateBytes(impl.job);
    for (int zero = 0; zero < 4; ++zero) {
      const StateMemory a = ShardedState(dense, zero, dense_shards, state);
      const StateMemory b = ShardedState(expert, zero, expert_shards, state);
      Bytes total = a.weights + a.grads + a.optimizer + b.weights + b.grads + b.optimizer + held;
      if (zero == 3) {
        total += step_internal::FullyShardedBuffers(c, dense + expert, first_chunk == 0, head);
      }
      out.memory_by_zero[static_cast<size_t>(zero)] =
          Max(out.memory_by_zero[static_cast<size_t>(zero)], total);
    }
  }
  const double p = static_cast<double>(plan.pp);
  Seconds bound = m * compute / p;
  if (plan.pp > 1 && (plan.schedule == Schedule::kGpipe || plan.schedule == Schedule::k1F1B)) {
    bound = std::max(bound, FillDrain(compute, m, plan.pp));
  }
  if (zbv && plan.pp > 1) {
    filled = Max(filled,
                 m * most_compute + (forwards - most_forward) /
                                        static_cast<double>(step_internal::ChunksPerDevice(plan)));
  }
  // GPipe and 1F1B: the closed form above already holds the fill.
  out.step_time = plan.schedule == Schedule::kGpipe || plan.schedule == Schedule::k1F1B
                      ? bound
                      : Max(bound, filled);
  return out;
}

// Every window of a pass hides at most its compute (Exposed: compute +
// exposed >= the window's communication, summed over its axes), and the
// windows of a pass follow one another, so a device's time per micro-batch
// is at least its tensor-, context- and expert-parallel traffic and ZeRO-3's
// per-block gathers and reduce-scatters together
// (DualPipe's paired windows too: SettlePaired), at least its MoE layers'
// dispatcher host time (each such forward lasts at least that, in a window
// or after the sync), and at least its compute plus the tensor-parallel
// collectives AddBlockTp charges outside every window; the step is at least
// m times the busiest device's. All are taken without recompute (full or
// module recompute repeats compute and collectives, never removes one) and
// without an all-to-all overlap method (two-batch overlap issues the same
// bytes in two halves; no method touches the tensor-parallel charges).
// The pipeline simulator and the closed forms run each chunk for its
// compute plus its exposed communication, so the per-micro-batch time t_d
// above (the largest of the three) also enters the fill/drain bounds that
// LowerBoundsFor takes with compute alone: GPipe / 1F1B
// sum_d t_d / (1 - (1 - 1/m)^p), and on one-way schedules the forward
// compute of the chunks before device d's first plus m t_d. Pipelines with
// a bubble are bounded by their traffic and their fill together. The
// closed forms (BubbleTime) charge m T_c plus the other devices' T_d (over
// v for interleaving), T_c the busiest device's: with T_c >= max t_d and
// T_d >= t_d that is at least (m - 1) max t_d + sum_d t_d (GPipe, 1F1B),
// m max t_d + (sum_d t_d - max t_d) / v (interleaved).
// Where no window pairs a forward with another micro-batch's backward
// (PairsPasses false), each forward alone lasts at least its own floor: its
// compute with its exposed TP, its forward traffic (its windows hide at
// most their compute), its MoE layers' host time. The one-way fill then
// takes those floors for the chunks before device d's first, instead of
// their forward compute; paired forwards keep the compute.
// ZeRO-2 reduce-scatters each micro-batch's gradients behind that
// micro-batch's backward (DataParallelTail, m rounds): each round exposes
// at least the reduction less the window, and the window is part of the
// device's time per micro-batch, so the step is at least m times the
// device's larger reduction (dense or expert; over its own chunks'
// parameters, a tied embedding copy left out).
bool PairsPasses(const PlanSpec& plan) {
  return step_internal::EpWindowOf(plan, step_internal::DualPipeline(plan)) ==
         step_internal::EpWindow::kPaired;
}

Seconds StepModel::LinkTimeFor(const PlanSpec& given) const {
  const Impl& impl = *impl_;
  const bool paired = PairsPasses(given);
  PlanSpec plan = given;
  plan.a2a_overlap = EpOverlap::kNone;
  plan.recompute = Recompute::kNone;
  plan.recompute_modules = 0;
  // ZeRO-0/1 reduce and gather outside the windows (DataParallelTail):
  // taken at ZeRO-1, the bound holds for both. ZeRO-3's gathers and
  // reduce-scatters are a window's communication like the rest, over its
  // HSDP group.
  if (plan.zero < 2) plan.zero = 1;
  if (plan.zero < 3) plan.hsdp = 0;
  step_internal::PlanContext c;
  step_internal::InitContext(impl, plan, c);
  const step_internal::PlanSegs segs = step_internal::BuildSegs(impl, c);
  const double m =
      static_cast<double>(impl.job.global_batch_seqs) / static_cast<double>(plan.dp * plan.mbs);
  const int64_t per = step_internal::ChunksPerDevice(plan);
  const double w = step_internal::ChunkShare(plan);
  // The dispatcher's host time per MoE layer forward (layer_cost.cc AddEp,
  // AddHostBound): the layer's passes together last at least that long per
  // micro-batch (its forward alone may not: the idle is a share of the
  // whole layer's time).
  const Seconds host = impl.job.moe_host_sync && plan.ep > 1 && impl.model.moe
                           ? Seconds(impl.cluster.chip.moe_dispatch_host_s)
                           : Seconds();
  step_internal::ChunkSegMemo chunks(segs, impl.work);
  const bool one_way = OneWayFill(plan, step_internal::AllForwardFirst(impl, plan));
  const auto tp = static_cast<size_t>(step_internal::kAxTp);
  // The forward of micro-batch 0 through every chunk before chunk c.
  std::vector<Seconds> before(static_cast<size_t>(segs.chunks) + 1);
  for (int64_t chunk = 0; one_way && chunk < segs.chunks; ++chunk) {
    const step_internal::ChunkKey key = step_internal::KeyOfChunk(segs, impl.work, chunk);
    const step_internal::Seg& s = chunks.OfKey(key);
    Seconds floor = s.cf;
    if (!paired) floor = Max(s.cf + s.exp_f[tp], WindowTraffic(s.total_f));
    before[static_cast<size_t>(chunk) + 1] = before[static_cast<size_t>(chunk)] + floor;
  }
  Seconds busiest, sum, filled, reduce;
  const double grad_bytes = step_internal::GradReduceBytesPerParam(impl.job);
  for (int64_t d = 0; d < plan.pp; ++d) {
    Seconds link, hosted, serial;
    double dense = 0, expert = 0;
    int64_t first_chunk = segs.chunks;
    for (int64_t k = 0; k < per; ++k) {
      const int64_t chunk = step_internal::ChunkOf(plan, d, k);
      first_chunk = std::min(first_chunk, chunk);
      const step_internal::ChunkKey key = step_internal::KeyOfChunk(segs, impl.work, chunk);
      const step_internal::Seg& s = chunks.OfKey(key);
      dense += s.params_dense;
      expert += s.params_expert;
      link += w * WindowTraffic(s.total);
      hosted += w * static_cast<double>(key.moe) * host;
      serial += w * (Compute(s) + s.exp_f[tp] + s.exp_b[tp] + s.exp_w[tp]);
    }
    const Seconds t = Max(serial, Max(link, hosted));
    busiest = Max(busiest, t);
    sum += t;
    filled = Max(filled, before[static_cast<size_t>(first_chunk)] + m * t);
    if (plan.zero == 2) {
      reduce =
          Max(reduce,
              c.LoadOnce(CollectiveOp::kReduceScatter, Bytes(grad_bytes * dense), c.dense_dp).time);
      reduce = Max(
          reduce,
          c.LoadOnce(CollectiveOp::kReduceScatter, Bytes(grad_bytes * expert), c.groups.edp).time);
    }
  }
  Seconds bound = Max(Max(m * busiest, filled), m * reduce);
  if (plan.pp > 1 && (plan.schedule == Schedule::kGpipe || plan.schedule == Schedule::k1F1B)) {
    bound = Max(bound, FillDrain(sum, m, plan.pp));
    bound = Max(bound, (m - 1.0) * busiest + sum);
  }
  if (plan.pp > 1 && plan.schedule == Schedule::kInterleaved) {
    bound = Max(bound, m * busiest + (sum - busiest) / static_cast<double>(per));
  }
  return bound;
}

Result<Estimate> StepModel::Evaluate(const PlanSpec& plan) const {
  OCCAM_RETURN_IF_ERROR(step_internal::CheckPlan(*impl_, plan));
  std::vector<MemoryBreakdown> device_memory;
  const CoreResult r =
      RunCore(*impl_, plan, step_internal::PipelineTimingModel::kSimulated, &device_memory);
  Estimate e = step_internal::BuildEstimate(*impl_, plan, r);
  e.memory_per_device = std::move(device_memory);
  return e;
}

Result<PipelineConfig> StepModel::PipelineFor(const PlanSpec& plan) const {
  OCCAM_RETURN_IF_ERROR(step_internal::CheckPlan(*impl_, plan));
  const step_internal::PlanContext ctx = step_internal::MakeContext(*impl_, plan);
  const step_internal::PlanSegs segs = step_internal::BuildSegs(*impl_, ctx);
  if (plan.pp <= 1) {
    PipelineConfig config;
    config.schedule = Schedule::kNone;
    config.microbatches = impl_->job.global_batch_seqs / (plan.dp * plan.mbs);
    const step_internal::Seg s = step_internal::ChunkSeg(segs, impl_->work, 0);
    config.chunks.push_back(ChunkCost{s.cf + s.ExposedF(), s.cb + s.ExposedB(), s.cw + s.ExposedW(),
                                      s.act + s.act_extra, Seconds(0), Seconds(0)});
    return config;
  }
  // Chunk costs as RunCore hands them to the simulator (step/pipeline_timing.h):
  // paired schedules with their all-to-all on the passes, for the pairs to hide.
  step_internal::PlanSegs paired;
  const bool pairs = step_internal::PairedSegs(*impl_, ctx, paired);
  const step_internal::PipelinePlan pp = step_internal::BuildPipelinePlan(
      *impl_, plan, segs, step_internal::P2pOne(ctx).time, pairs ? &paired : nullptr);
  PipelineConfig config = pp.config;
  // The estimate runs a global-batch aux loss's pipeline as gpipe; here the
  // simulator checks the plan's own schedule and says why it cannot run.
  config.schedule = plan.schedule;
  config.vpp = step_internal::SimLaneChunks(plan);
  return config;
}

Result<Estimate> EstimateStep(const ModelSpec& model, const ClusterSpec& cluster,
                              const JobSpec& job, const PlanSpec& plan) {
  OCCAM_ASSIGN_OR_RETURN(StepModel sm, StepModel::Create(model, cluster, job));
  return sm.Evaluate(plan);
}

}  // namespace occam
