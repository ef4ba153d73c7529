// Lower bounds on memory and step time; see bounds.h.
//
// Symbols: h hidden, V vocab, L layers, f dense MLP width, f_e routed-expert
// width, E experts, k top-k, N chips, tp/cp/pp/dp/ep/etp degrees, m
// micro-batches per pipeline, v virtual stages.
#include "search/bounds.h"

#include <algorithm>

#include "occam/element_bytes.h"
#include "occam/schedule_traits.h"

namespace occam::search {

Bounds::Bounds(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job) {
  const double h = static_cast<double>(model.hidden);
  const double mats = model.gated_mlp ? 3.0 : 2.0;
  const double vocab = static_cast<double>(model.vocab) * h;
  const double head = model.tied_embeddings ? 0.0 : vocab;
  double dense_mlp_layers = static_cast<double>(model.num_layers);
  double moe_layers = 0, experts = 0, active_experts = 0, shared = 0;
  if (model.moe && model.moe->num_experts > 0) {
    const MoeSpec& m = *model.moe;
    const int64_t after = std::max<int64_t>(0, model.num_layers - m.first_k_dense);
    moe_layers = static_cast<double>(after / std::max<int64_t>(1, m.layer_freq));
    // Only the leading dense layers are surely dense under every convention.
    dense_mlp_layers = static_cast<double>(m.first_k_dense);
    const double expert = mats * h * static_cast<double>(m.expert_ffn);
    experts = moe_layers * static_cast<double>(m.num_experts) * expert;
    active_experts = moe_layers * static_cast<double>(m.top_k) * expert;
    shared = moe_layers * static_cast<double>(m.num_shared_experts) * mats * h *
             static_cast<double>(m.shared_expert_ffn);
  }
  const double dense_mlp = dense_mlp_layers * mats * h * static_cast<double>(model.ffn_hidden);
  dense_params_ = vocab + head + dense_mlp + shared;
  expert_params_ = experts;
  // 6 FLOPs per weight per token for forward + backward (Kaplan et al. 2020,
  // arXiv:2001.08361 §2.1), counting only the matmul weights above (the
  // input embedding is a lookup; attention is left out of the bound).
  const double lm_head = vocab;
  flops_per_token_ = 6.0 * (lm_head + dense_mlp + shared + active_experts);
  tokens_ = static_cast<double>(job.global_batch_tokens());
  batch_seqs_ = static_cast<double>(job.global_batch_seqs);
  chips_ = static_cast<double>(std::max<int64_t>(1, cluster.num_chips));
  peak_ = job.precision == Precision::kFp8 ? Max(cluster.chip.peak_fp8, cluster.chip.peak_bf16)
                                           : cluster.chip.peak_bf16;
  capacity_ = cluster.chip.hbm * (1.0 - job.memory_headroom);
  weight_bytes_ = WeightReadBytes(job.precision);
}

// weights: dense / (tp pp) + experts / (ep etp pp), divided by the data
// ranks for ZeRO-3 (at most N chips in total); optimizer state sharded over
// every data rank for ZeRO >= 1: params / N at best. Bytes per weight: the
// GEMM's read size (one under FP8 training); optimizer state: the floor of
// any recipe (two BF16 Adam moments), below the modelled fp32 state; the
// gradients are left out.
Bytes Bounds::MemoryLowerBound(const PlanSpec& p) const {
  const double tp_pp = static_cast<double>(p.tp * p.pp);
  const double ep_pp = static_cast<double>(p.ep * p.etp * p.pp);
  double weights = dense_params_ / tp_pp + expert_params_ / ep_pp;
  if (p.zero >= 3) weights = (dense_params_ + expert_params_) / chips_;
  double optimizer = (dense_params_ + expert_params_) / chips_;
  if (p.zero == 0) optimizer = dense_params_ / tp_pp + expert_params_ / ep_pp;
  return Bytes(weights * weight_bytes_ + optimizer * kOptimizerStateFloorBytesPerParam);
}

// compute >= F_token * tokens / (N * peak), x 4/3 for full recompute (one
// more forward); schedules with a fill/drain bubble stretch it by
// (m v + pp - 1) / (m v) (Narayanan et al. 2021, arXiv:2104.04473 §2.2).
Seconds Bounds::StepTimeLowerBound(const PlanSpec& p) const {
  double seconds = flops_per_token_ * tokens_ / chips_ / peak_.value();
  if (p.recompute == Recompute::kFull) seconds *= 4.0 / 3.0;
  const bool bubble = TraitsOf(p.schedule).fill_drain_bubble;
  if (bubble && p.pp > 1 && p.dp > 0 && p.mbs > 0) {
    const double mv = batch_seqs_ / static_cast<double>(p.dp * p.mbs) * static_cast<double>(p.vpp);
    if (mv > 0) seconds *= (mv + static_cast<double>(p.pp - 1)) / mv;
  }
  return Seconds(seconds);
}

}  // namespace occam::search
