// The pipeline part of a step from the simulator (src/sim/, doc/cost-model.md
// §6 and §7.4): makespan of m micro-batches through the plan's schedule
// (fill, steady state, drain, p2p transfers) and each device's peak of held
// activations, memoised by shape in a caller-owned PipelineCache. RunCore
// uses it for every pp > 1 plan (PipelineTimingModel::kSimulated).
//
// Symbols: p pipeline devices (plan.pp), v chunks per device, S model
// chunks, m micro-batches per step, F/B/W forward, input-gradient and
// weight-gradient time of one chunk and one micro-batch.
#pragma once

#include <vector>

#include "occam/simulate.h"
#include "step/step_core.h"

namespace occam::step_internal {

// Cache-key resolution: every time and every size keeps this many mantissa
// bits (in absolute terms, a monotone rounding) before the cache keys them
// relative to chunk 0's F and activation, so plans whose costs agree to
// within 2^-(bits+1) mostly share one simulation. The makespan and the
// peaks are positively homogeneous and monotone in the durations and sizes
// (sums and maxima of them), so the relative error of a simulated value is
// at most 2^-(bits+1) = 0.2%, and a plan with faster chunks never
// simulates slower.
inline constexpr int kPipelineKeyBits = 8;
// The most the rounding can lower a chunk's simulated activation: the
// floors below the simulated peak (HeldFloor, the memory bound) allow for it.
inline constexpr double kPipelineRoundingFloor = 1.0 - 1.0 / (2 << kPipelineKeyBits);

// Rounds x > 0 to kPipelineKeyBits mantissa bits (nearest, ties up);
// relative error <= 2^-(kPipelineKeyBits+1). Zero stays zero.
double QuantizedRelative(double x);

// The plan's pipeline as the simulator takes it, in seconds and bytes.
// Without `paired`, each pass carries its exposed communication as `segs`
// settled it (for paired schedules, net of the F&B overlap at the mean
// unpaired share, layer_cost.cc Settle): forward_comm = backward_comm = 0.
// With `paired` (DualPipe / DualPipeV and combined 1F1B, whose pairs the
// simulator plays: the same plan's segs with the expert all-to-all and the
// dispatcher's host time left on their passes, EpWindow::kExposed), each
// pass carries all of it and marks it as forward_comm / backward_comm, and
// the simulator's F&B pairs decide what is hidden (doc/cost-model.md
// "Expert all-to-all overlap"). A global-batch aux
// loss on an MoE pipeline runs all forwards first: gpipe with the same v
// (`converted`). REQUIRES: plan.pp > 1 and a valid plan.
struct PipelinePlan {
  PipelineConfig config;
  bool converted = false;  // schedule replaced by gpipe (global-batch aux loss)
  bool supported = true;   // false: V / DualPipe placement under all-forward-first
};
PipelinePlan BuildPipelinePlan(const StepModel::Impl& impl, const PlanSpec& plan,
                               const PlanSegs& segs, Seconds p2p, const PlanSegs* paired = nullptr);

// What the step takes from one simulation (real units).
struct PipelineTiming {
  bool ok = false;      // false: no simulation (unsupported); use the closed forms
  double makespan = 0;  // seconds
  std::vector<double> device_peak_bytes;  // per device: held chunk activations at the peak
};

// Simulates `config` through `cache` with quantized costs (reference units:
// chunk 0's rounded F = 1 s, its rounded activation = 1 B), extrapolating
// long pipelines in m (see pipeline_timing.cc SummaryAt), and rescales.
// ok = false when the simulator rejects the config.
PipelineTiming SimulatedPipeline(PipelineCache& cache, const PipelineConfig& config);

}  // namespace occam::step_internal
