// Lower bounds on memory and step time; see bounds.h.
//
// Symbols: N chips, tp/cp/pp/dp/ep/etp degrees, m micro-batches per
// pipeline, v virtual stages, T tokens per step.
#include "search/bounds.h"

#include <algorithm>

#include "occam/cost.h"
#include "occam/element_bytes.h"
#include "occam/schedule_traits.h"

namespace occam::search {

// The counts are the step model's own (BuildModelWork; FlashAttention's
// causal span, which a materialised score matrix only lengthens). It charges
// every GEMM of them at no more than the peak (GemmTime's efficiency is at
// most 1, the width penalty only adds, the expert imbalance lambda >= 1, the
// attention core runs at the BF16 peak <= the peak used here), three times
// per token (ModelFlopsPerToken), and under full recompute one more forward
// of every block (the MTP modules' included), not of the LM head passes and
// MTP projections.
Bounds::Bounds(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job) {
  const ModelWork w = BuildModelWork(model, job.seq_len);
  const BlockWork& mtp_block = model.moe ? w.moe : w.dense;
  const auto n_moe = static_cast<double>(w.MoeLayers(0, w.num_layers));
  const auto mtp = static_cast<double>(w.mtp_layers);
  expert_params_ = (n_moe + mtp) * static_cast<double>(mtp_block.params_expert);
  dense_params_ = static_cast<double>(w.params.total + w.params.mtp) - expert_params_;
  flops_per_token_ = ModelFlopsPerToken(model, job.seq_len).value();
  const double not_blocks = (1.0 + mtp) * w.head.flops + mtp * w.mtp_proj.flops;
  recompute_flops_per_token_ = flops_per_token_ / 3.0 - not_blocks;
  tokens_ = static_cast<double>(job.global_batch_tokens());
  batch_seqs_ = static_cast<double>(job.global_batch_seqs);
  chips_ = static_cast<double>(std::max<int64_t>(1, cluster.num_chips));
  peak_ = job.precision == Precision::kFp8 ? Max(cluster.chip.peak_fp8, cluster.chip.peak_bf16)
                                           : cluster.chip.peak_bf16;
  capacity_ = cluster.chip.hbm * (1.0 - job.memory_headroom);
  weight_bytes_ = WeightReadBytes(job.precision);
}

// weights: dense / (tp pp) + experts / (ep etp pp) (the step model's split
// over the pipeline devices, whose fullest holds at least the mean), divided
// by the data ranks for ZeRO-3 (at most N chips in total); optimizer state
// sharded over every data rank for ZeRO >= 1: params / N at best. Bytes per
// weight: the GEMM's read size (one under FP8 training); optimizer state:
// the floor of any recipe (two BF16 Adam moments), below the modelled fp32
// state; the gradients are left out.
Bytes Bounds::MemoryLowerBound(const PlanSpec& p) const {
  const double tp_pp = static_cast<double>(p.tp * p.pp);
  const double ep_pp = static_cast<double>(p.ep * p.etp * p.pp);
  double weights = dense_params_ / tp_pp + expert_params_ / ep_pp;
  if (p.zero >= 3) weights = (dense_params_ + expert_params_) / chips_;
  double optimizer = (dense_params_ + expert_params_) / chips_;
  if (p.zero == 0) optimizer = dense_params_ / tp_pp + expert_params_ / ep_pp;
  return Bytes(weights * weight_bytes_ + optimizer * kOptimizerStateFloorBytesPerParam);
}

// compute >= F_token T / (N peak) (+ the recomputed forward under full
// recompute); schedules with a fill/drain bubble stretch it by
// (m v + pp - 1) / (m v) (Narayanan et al. 2021, arXiv:2104.04473 §2.2):
// the step model's closed form charges m u* + (sum_d u_d - u*) / v with u*
// the busiest device's time per micro-batch, at least the mean's
// (m + (pp - 1) / v) mean_d u_d.
Seconds Bounds::StepTimeLowerBound(const PlanSpec& p) const {
  double flops = flops_per_token_;
  if (p.recompute == Recompute::kFull) flops += recompute_flops_per_token_;
  double seconds = flops * tokens_ / chips_ / peak_.value();
  const bool bubble = TraitsOf(p.schedule).fill_drain_bubble;
  if (bubble && p.pp > 1 && p.dp > 0 && p.mbs > 0) {
    const double mv = batch_seqs_ / static_cast<double>(p.dp * p.mbs) * static_cast<double>(p.vpp);
    if (mv > 0) seconds *= (mv + static_cast<double>(p.pp - 1)) / mv;
  }
  return Seconds(seconds);
}

}  // namespace occam::search
