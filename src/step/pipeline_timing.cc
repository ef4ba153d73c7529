// The simulated pipeline of a plan (see pipeline_timing.h; doc/cost-model.md
// §6 "Pipeline" and §7.4).
#include "step/pipeline_timing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "occam/schedule_traits.h"
#include "step/stages.h"

namespace occam::step_internal {
namespace {

bool IsVOrDual(Schedule s) { return TraitsOf(s).placement != ChunkPlacement::kLooped; }

// Micro-batch step of the schedule's repeating pattern (occam/schedule_traits.h).
int64_t MicrobatchUnit(Schedule s, int64_t p) { return MicrobatchPeriod(s, p); }

int64_t RoundUp(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

bool Affine(double a, double b, double c) {
  return std::abs((c - b) - (b - a)) <= 1e-9 * std::max({std::abs(a), std::abs(b), std::abs(c)});
}

// Makespan and per-device peaks at m micro-batches. Past the fill, a
// schedule repeats one pattern per micro-batch group, so both are affine in
// m (max-plus periodic regime); when three simulations at m0, m0 + d and
// m0 + 2d (m0 >= 4p and 2S, d >= p) lie on one line, m is extrapolated from
// them, else simulated in full. A hit costs three lookups at any m.
Result<PipelineSummary> SummaryAt(PipelineCache& cache, PipelineConfig ref) {
  const int64_t m = ref.microbatches;
  const int64_t unit = MicrobatchUnit(ref.schedule, ref.stages);
  const int64_t chunks = static_cast<int64_t>(ref.chunks.size());
  const int64_t m0 = RoundUp(std::max(4 * ref.stages, 2 * chunks), unit);
  const int64_t d = RoundUp(ref.stages, unit);
  if (m <= m0 + 2 * d) return cache.Get(ref);
  PipelineSummary at[3];
  for (int i = 0; i < 3; ++i) {
    ref.microbatches = m0 + i * d;
    OCCAM_ASSIGN_OR_RETURN(at[i], cache.Get(ref));
  }
  ref.microbatches = m;
  const double x = static_cast<double>(m - m0) / static_cast<double>(d);
  auto line = [x](double a, double b) { return a + x * (b - a); };
  bool ok = Affine(at[0].makespan.value(), at[1].makespan.value(), at[2].makespan.value());
  const size_t n = at[0].device_peak_activation.size();
  for (size_t k = 0; ok && k < n; ++k) {
    ok = at[1].device_peak_activation.size() == n && at[2].device_peak_activation.size() == n &&
         Affine(at[0].device_peak_activation[k].value(), at[1].device_peak_activation[k].value(),
                at[2].device_peak_activation[k].value());
  }
  if (!ok) return cache.Get(ref);
  PipelineSummary out = at[2];
  out.makespan = Seconds(line(at[0].makespan.value(), at[1].makespan.value()));
  for (size_t k = 0; k < n; ++k) {
    out.device_peak_activation[k] = Bytes(
        line(at[0].device_peak_activation[k].value(), at[1].device_peak_activation[k].value()));
  }
  return out;
}

}  // namespace

double QuantizedRelative(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  constexpr int kDrop = 52 - kPipelineKeyBits;
  uint64_t bits = std::bit_cast<uint64_t>(x);
  bits += uint64_t{1} << (kDrop - 1);  // carries into the exponent when the mantissa overflows
  bits &= ~((uint64_t{1} << kDrop) - 1);
  return std::bit_cast<double>(bits);
}

PipelinePlan BuildPipelinePlan(const StepModel::Impl& impl, const PlanSpec& plan,
                               const PlanSegs& segs, Seconds p2p, const PlanSegs* paired) {
  PipelinePlan out;
  PipelineConfig& c = out.config;
  c.schedule = plan.schedule;
  c.stages = plan.pp;
  c.vpp = plan.schedule == Schedule::kDualPipe ? 1 : ChunksPerDevice(plan);
  c.microbatches = impl.job.global_batch_seqs / (plan.dp * plan.mbs);
  if (impl.job.balance == BalanceMethod::kGlobalAuxLoss && impl.model.moe.has_value()) {
    // All forwards before any backward (doc/cost-model.md §7.2): gpipe keeps
    // the chunk placement c mod p of 1F1B, ZB-H1 and interleaved, not a V's.
    out.converted = plan.schedule != Schedule::kGpipe;
    out.supported = !IsVOrDual(plan.schedule);
    c.schedule = Schedule::kGpipe;
    c.require_all_forward_first = true;
  }
  c.combined_1f1b = plan.a2a_overlap == EpOverlap::kCombined1F1B;
  c.chunks.reserve(static_cast<size_t>(segs.chunks));
  ChunkSegMemo chunks(paired != nullptr ? *paired : segs, impl.work);
  for (int64_t k = 0; k < segs.chunks; ++k) {
    const Seg& s = chunks.Of(k);
    ChunkCost cost;
    cost.forward = s.cf + s.ExposedF();
    cost.backward_input = s.cb + s.ExposedB();
    cost.backward_weight = s.cw + s.ExposedW();
    cost.activation = s.act + s.act_extra;
    if (paired != nullptr) {
      cost.forward_comm = s.exp_f[kAxEp] + s.exp_f[kAxHost];
      cost.backward_comm = s.exp_b[kAxEp] + s.exp_b[kAxHost] + s.exp_w[kAxEp] + s.exp_w[kAxHost];
    }
    c.chunks.push_back(cost);
  }
  c.p2p = p2p;
  return out;
}

PipelineTiming SimulatedPipeline(PipelineCache& cache, const PipelineConfig& config) {
  PipelineTiming out;
  if (config.chunks.empty()) return out;
  // Every time and size keeps kPipelineKeyBits mantissa bits in absolute
  // terms (a monotone rounding, so a faster chunk never simulates slower);
  // the cache keys them relative to chunk 0's rounded F and activation.
  const double time_unit = QuantizedRelative(config.chunks[0].forward.value());
  const double byte_unit = QuantizedRelative(config.chunks[0].activation.value());
  if (!(time_unit > 0) || !(byte_unit > 0)) return out;
  PipelineConfig ref = config;
  auto rel = [&](Seconds t) { return Seconds(QuantizedRelative(t.value()) / time_unit); };
  for (ChunkCost& k : ref.chunks) {
    k.forward = rel(k.forward);
    k.backward_input = rel(k.backward_input);
    k.backward_weight = rel(k.backward_weight);
    // Rounded no higher than the pass it is part of (the simulator's rule).
    k.forward_comm = Min(rel(k.forward_comm), k.forward);
    k.backward_comm = Min(rel(k.backward_comm), k.backward_input + k.backward_weight);
    k.activation = Bytes(QuantizedRelative(k.activation.value()) / byte_unit);
  }
  ref.p2p = rel(ref.p2p);
  // A shape the simulator rejects (ValidatePlan applies the same rules, so
  // only sizes past its operation limit) keeps the closed forms.
  const Result<PipelineSummary> r = SummaryAt(cache, ref);
  if (!r.ok()) return out;
  out.ok = true;
  out.makespan = r->makespan.value() * time_unit;
  out.device_peak_bytes.reserve(r->device_peak_activation.size());
  for (Bytes b : r->device_peak_activation) out.device_peak_bytes.push_back(b.value() * byte_unit);
  return out;
}

}  // namespace occam::step_internal
