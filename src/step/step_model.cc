// StepModel: precomputes the model's work once, then evaluates plans with
// the shared arithmetic of step_core.cc (Evaluate adds names and text).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "step/pipeline_timing.h"
#include "step/step_core.h"

namespace occam {

using step_internal::CoreResult;
using step_internal::RunCore;

StepModel::StepModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StepModel::StepModel(StepModel&&) noexcept = default;
StepModel& StepModel::operator=(StepModel&&) noexcept = default;
StepModel::~StepModel() = default;

const ModelSpec& StepModel::model() const { return impl_->model; }
const ClusterSpec& StepModel::cluster() const { return impl_->cluster; }
const JobSpec& StepModel::job() const { return impl_->job; }

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
  impl->work = BuildModelWork(model, job.seq_len);
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
  return StepModel(std::move(impl));
}

QuickEstimate StepModel::EvaluateQuick(const PlanSpec& plan) const {
  const CoreResult r = RunCore(*impl_, plan);
  QuickEstimate q;
  q.step_time = Seconds(r.step);
  q.mfu = r.mfu;
  q.memory_total = r.memory.total();
  q.fits = r.fits;
  return q;
}

namespace {

double Compute(const step_internal::Seg& s) { return s.cf + s.cb + s.cw; }

}  // namespace

// Every device runs m micro-batches through its chunks one after another,
// so the slowest device's compute m * t_d is at least m * sum_d t_d / pp, and
// sum_d t_d is the whole model's compute per micro-batch (every chunk once).
// GPipe / 1F1B: device k cannot start before micro-batch 0 has crossed
// devices 0..k-1 and ends only after the last backward has crossed them
// back, so step >= m t_k + sum_{d<k} t_d for every k; the weights
// w_d ~ (1 - 1/m)^(p-1-d) average these into
// step >= sum_d t_d / (1 - (1 - 1/m)^p) (>= m sum_d t_d / p by Bernoulli).
// BlockSeg's compute (cf, cb, cw) depends on the plan's degrees, tokens and
// lambda only: with every rank group of size one its collectives cost nothing.
Seconds StepModel::ComputeLowerBound(const PlanSpec& plan) const {
  const Impl& impl = *impl_;
  step_internal::PlanContext c;
  c.model = &impl.model;
  c.cluster = &impl.cluster;
  c.job = &impl.job;
  c.work = &impl.work;
  c.plan = &plan;
  c.tokens = static_cast<double>(plan.mbs * impl.job.seq_len) / static_cast<double>(plan.cp);
  c.lambda = impl.Lambda(plan);
  const ModelWork& w = impl.work;
  const step_internal::Seg dense = step_internal::BlockSeg(c, w.dense, false);
  step_internal::Seg moe;
  if (impl.model.moe) moe = step_internal::BlockSeg(c, w.moe, true);
  const auto n_moe = static_cast<double>(w.MoeLayers(0, w.num_layers));
  const double per_microbatch = (static_cast<double>(w.num_layers) - n_moe) * Compute(dense) +
                                n_moe * Compute(moe) + Compute(step_internal::EmbeddingSeg(c)) +
                                Compute(step_internal::HeadSeg(c)) +
                                Compute(step_internal::MtpSeg(c, impl.model.moe ? moe : dense));
  const double m =
      static_cast<double>(impl.job.global_batch_seqs) / static_cast<double>(plan.dp * plan.mbs);
  const double p = static_cast<double>(plan.pp);
  double bound = m * per_microbatch / p;
  if (plan.pp > 1 && (plan.schedule == Schedule::kGpipe || plan.schedule == Schedule::k1F1B)) {
    bound = std::max(bound, per_microbatch / (1.0 - std::pow(1.0 - 1.0 / m, p)));
  }
  return Seconds(bound);
}

Result<Estimate> StepModel::Evaluate(const PlanSpec& plan) const {
  OCCAM_RETURN_IF_ERROR(step_internal::CheckPlan(*impl_, plan));
  const CoreResult r = RunCore(*impl_, plan);
  return step_internal::BuildEstimate(*impl_, plan, r);
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
    config.chunks.push_back(ChunkCost{Seconds(s.cf + s.ExposedF()), Seconds(s.cb + s.ExposedB()),
                                      Seconds(s.cw), Bytes(s.act + s.act_extra), Seconds(0),
                                      Seconds(0)});
    return config;
  }
  // Chunk costs as step/pipeline_timing.h builds them (communication already
  // net of DualPipe's overlap, so nothing is hidden twice).
  const step_internal::PipelinePlan pp = step_internal::BuildPipelinePlan(
      *impl_, plan, segs, step_internal::P2pOne(*impl_, ctx).seconds);
  PipelineConfig config = pp.config;
  // The estimate runs a global-batch aux loss's pipeline as gpipe; here the
  // simulator checks the plan's own schedule and says why it cannot run.
  config.schedule = plan.schedule;
  config.vpp = plan.schedule == Schedule::kDualPipe ? 1 : step_internal::ChunksPerDevice(plan);
  return config;
}

Result<Estimate> EstimateStep(const ModelSpec& model, const ClusterSpec& cluster,
                              const JobSpec& job, const PlanSpec& plan) {
  OCCAM_ASSIGN_OR_RETURN(StepModel sm, StepModel::Create(model, cluster, job));
  return sm.Evaluate(plan);
}

}  // namespace occam
