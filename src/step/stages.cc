// Pipeline structure: layer split, chunk placement, in-flight micro-batches
// and bubble closed forms (sources in doc/cost-model.md §6).
#include "step/stages.h"

#include <algorithm>
#include <cmath>

#include "occam/schedule_traits.h"

namespace occam::step_internal {
namespace {

// Chunks on one lane of a plan: the schedule's fixed count, vpp where plans
// may set it, else 1.
int64_t PlanLaneChunks(const PlanSpec& plan) {
  const ScheduleTraits& t = TraitsOf(plan.schedule);
  if (t.lane_chunks > 0) return t.lane_chunks;
  return t.plan_vpp ? std::max<int64_t>(plan.vpp, 1) : 1;
}

int64_t ClampCount(double x, int64_t lo, int64_t hi) {
  const int64_t r = std::llround(x);
  return std::clamp(r, lo, std::max(lo, hi));
}

}  // namespace

LayerSplit::LayerSplit(const PlanSpec& plan, int64_t chunks, int64_t layers, double embed_units,
                       double head_units)
    : plan_(&plan), chunks_(chunks), layers_(layers) {
  if (!plan.stage_layers.empty() || chunks <= 1) {
    first_ = layers;
    return;
  }
  if (plan.first_layers > 0 && plan.pp > 1) {
    // Uneven ends (ValidatePlan checked the divisibility): chunk c lies on
    // rank c mod pp (looped placement), a rank's layers split over its chunks.
    uneven_ = true;
    const int64_t v = chunks / plan.pp;
    first_ = plan.first_layers / v;
    last_ = plan.last_layers / v;
    middle_q_ =
        plan.pp > 2 ? (layers - plan.first_layers - plan.last_layers) / (plan.pp - 2) / v : 0;
    return;
  }
  const double target =
      (static_cast<double>(layers) + embed_units + head_units) / static_cast<double>(chunks);
  const int64_t spare = layers - (chunks - 1);  // most one end chunk may take
  if (chunks == 2) {
    first_ = ClampCount((static_cast<double>(layers) + head_units - embed_units) / 2, 1, spare);
    last_ = layers - first_;
    return;
  }
  first_ = ClampCount(target - embed_units, 1, spare);
  last_ = ClampCount(target - head_units, 1, spare);
  // Every middle chunk needs a layer: give back from the larger end chunk.
  while (layers - first_ - last_ < chunks - 2) {
    if (first_ >= last_ && first_ > 1) {
      --first_;
    } else {
      --last_;
    }
  }
  const int64_t rest = layers - first_ - last_;
  middle_q_ = rest / (chunks - 2);
  middle_r_ = rest % (chunks - 2);
}

int64_t LayerSplit::Count(int64_t c) const {
  if (!plan_->stage_layers.empty()) return plan_->stage_layers[c];
  if (chunks_ <= 1) return layers_;
  if (uneven_) {
    const int64_t rank = c % plan_->pp;
    if (rank == 0) return first_;
    return rank == plan_->pp - 1 ? last_ : middle_q_;
  }
  if (c == 0) return first_;
  if (c == chunks_ - 1) return last_;
  return middle_q_ + (c - 1 < middle_r_ ? 1 : 0);
}

int64_t LayerSplit::Begin(int64_t c) const {
  if (!plan_->stage_layers.empty() || uneven_) {
    if (uneven_) {
      int64_t b = 0;
      for (int64_t i = 0; i < c; ++i) b += Count(i);
      return b;
    }
    int64_t b = 0;
    for (int64_t i = 0; i < c; ++i) b += plan_->stage_layers[i];
    return b;
  }
  if (c == 0) return 0;
  if (c == chunks_ - 1) return layers_ - last_;
  return first_ + (c - 1) * middle_q_ + std::min(c - 1, middle_r_);
}

int64_t ModelChunks(const PlanSpec& plan) { return plan.pp * PlanLaneChunks(plan); }

int64_t ChunksPerDevice(const PlanSpec& plan) {
  const ScheduleTraits& t = TraitsOf(plan.schedule);
  if (t.placement != ChunkPlacement::kLooped && plan.pp <= 1) return 1;
  return PlanLaneChunks(plan) * t.parameter_copies;
}

double ChunkShare(const PlanSpec& plan) {
  return ChunksPerDevice(plan) == 2
             ? 1.0 / static_cast<double>(TraitsOf(plan.schedule).parameter_copies)
             : 1.0;
}

int64_t SimLaneChunks(const PlanSpec& plan) {
  return TraitsOf(plan.schedule).parameter_copies > 1 ? 1 : ChunksPerDevice(plan);
}

int64_t ChunkOf(const PlanSpec& plan, int64_t d, int64_t k) {
  return ChunkOnDevice(plan.schedule, plan.pp, d, k);
}

double InFlight(const PlanSpec& plan, int64_t d, double m, bool all_forward_first) {
  const double p = static_cast<double>(plan.pp);
  const double dd = static_cast<double>(d);
  if (plan.pp <= 1 || plan.schedule == Schedule::kNone) return std::min(m, 1.0);
  if (all_forward_first || plan.schedule == Schedule::kGpipe) return m;
  switch (plan.schedule) {
    case Schedule::kInterleaved: {
      // Megatron-Core warm-up on rank d: 2(p-d-1) + (v-1)p forwards, +1 in
      // steady state (+1 more with a2a_overlap: combined 1F1B adds one
      // warm-up forward), each worth 1/v of the device's activations.
      const double v = static_cast<double>(std::max<int64_t>(plan.vpp, 1));
      const double extra = plan.a2a_overlap == EpOverlap::kCombined1F1B ? 2 : 1;
      return std::min(m * v, 2 * (p - dd - 1) + (v - 1) * p + extra) / v;
    }
    case Schedule::kZbH1:
      // Stage d runs p - d warm-up forwards, then keeps up to d weight-
      // gradient passes pending, whose inputs stay until W runs: p held on
      // every device (Qi et al. 2024, arXiv:2401.10241 §3.1; 1F1B's peak is
      // device 0's p; sim/schedules.cc BuildZbH1).
      return std::min(m, p);
    case Schedule::kZbV:
      return std::min(m, p);  // ZB-V keeps 1F1B's peak (Qi et al. 2024)
    case Schedule::kDualPipe:
      return std::min(m, p + 1);  // DeepSeek-V3 Table 2: PP + 1
    case Schedule::kDualPipeV:
      return std::min(m, p + 0.5);  // PP+1 half-device stages (DualPipe README)
    default:
      return std::min(m, p - dd);  // 1F1B: stage d holds p - d
  }
}

double InFlightPasses(const PlanSpec& plan, int64_t d, double m, bool all_forward_first) {
  return InFlight(plan, d, m, all_forward_first) * static_cast<double>(ChunksPerDevice(plan)) *
         ChunkShare(plan);
}

Seconds BubbleTime(const PlanSpec& plan, const DeviceTimes& sum_all, const DeviceTimes& crit,
                   bool all_forward_first, double m) {
  if (plan.pp <= 1 || plan.schedule == Schedule::kNone) return Seconds();
  const double v = static_cast<double>(ChunksPerDevice(plan));
  const Seconds others = sum_all.total() - crit.total();  // (p-1) t for equal stages
  const double p = static_cast<double>(plan.pp);
  if (all_forward_first) return others / v;
  switch (plan.schedule) {
    case Schedule::kGpipe:
    case Schedule::k1F1B:
      return others;  // (p-1)(F+B): Narayanan et al. 2021 §2.2
    case Schedule::kInterleaved:
      return others / v;  // (p-1)(F+B)/v: ibid. §2.2.2
    case Schedule::kZbH1: {
      // (p-1)(F + B - W): Qi et al. 2024 (arXiv:2401.10241) §3, where the
      // deferred W passes fill the rest of 1F1B's bubble. Never below the
      // fill: the last device waits for micro-batch 0's forward through the
      // p - 1 before it, whatever W holds (as ZB-V below). Nor below the
      // drain with fewer micro-batches than stages: the last micro-batch's
      // B crosses the p - 1 other devices back to the first, which has only
      // its m - 1 earlier W passes to fill that wait (the last one follows
      // its B), (p-1)(F + B) - (m-1) W; on equal stages the step is then
      // (p - 1 + m)(F + B) + W, as the simulator plays it.
      const Seconds sum = sum_all.f + sum_all.b - sum_all.w;
      const Seconds drain = sum_all.f + sum_all.b - (crit.f + crit.b) - (m - 1) * crit.w;
      return Max(Max(Max(Seconds(), sum - (crit.f + crit.b - crit.w)), drain), sum_all.f - crit.f);
    }
    case Schedule::kZbV:
      // Zero bubble in the steady state (Qi et al. 2024, arXiv:2405.15362),
      // but the last device waits for micro-batch 0 to cross the p - 1
      // first-half chunks before it: Σ' F / 2 = (p-1) F_chunk on equal stages,
      // what the simulator idles every device (doc/cost-model.md §7.3).
      return (sum_all.f - crit.f) / v;
    case Schedule::kDualPipe:
      // (PP/2 - 1)(F&B + B - 3W) with F&B = F + B: DeepSeek-V3 Table 2.
      return Max(Seconds(), (p / 2 - 1) * (crit.f + 2 * crit.b - crit.w));
    case Schedule::kDualPipeV:
      // The same with 2p half-size stages on p devices (DualPipe README).
      return Max(Seconds(), (p - 1) * (crit.f + 2 * crit.b - crit.w) / 2);
    default:
      return others;
  }
}

}  // namespace occam::step_internal
