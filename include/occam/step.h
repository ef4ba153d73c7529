// One layout's step estimate: assembles the cost layer's per-stage times,
// sizes and collectives, plays the pipeline through the simulator, and
// returns step time, MFU, memory, breakdown and bottleneck.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "occam/simulate.h"
#include "occam/spec.h"
#include "occam/status.h"
#include "occam/units.h"

namespace occam {

struct MemoryBreakdown {
  Bytes weights;
  Bytes grads;
  Bytes optimizer;
  Bytes activations;  // stored activations of the micro-batches in flight
  Bytes logits;       // head device: kept logits + the loss's fp32 working copy
  Bytes other;        // communication buffers, workspace, MoE capacity headroom
  Bytes total() const { return weights + grads + optimizer + activations + logits + other; }
};

// One line of the time breakdown.
struct TimeItem {
  std::string what;  // "compute", "dp reduce-scatter", "pipeline bubble", ...
  std::string axis;  // "tp", "cp", "ep", "dp", "pp", "" for compute/bubble
  std::string tier;  // tier name the collective is limited by, "" otherwise
  Seconds total;     // time the work takes
  Seconds exposed;   // part of it on the critical path
};

struct Estimate {
  PlanSpec plan;
  Seconds step_time;
  double tokens_per_s = 0;
  double tokens_per_s_per_chip = 0;
  FlopsPerSecond model_flops_per_chip;  // achieved model FLOP/s per chip
  double mfu = 0;                       // model FLOPs / (step time * chips * peak)
  double hfu = 0;                       // hardware FLOPs (with recompute) / same
  Flops model_flops_per_token;
  int64_t params_total = 0;
  int64_t params_active = 0;
  MemoryBreakdown memory;  // per chip, on the most loaded device
  // Per chip on each pipeline device, in device order (pp entries; `memory`
  // is the one with the largest total). Filled by Evaluate only.
  std::vector<MemoryBreakdown> memory_per_device;
  Bytes memory_capacity;  // usable HBM after headroom
  bool fits = false;
  Seconds bubble;
  std::vector<TimeItem> breakdown;
  std::string bottleneck;                // one sentence
  std::vector<std::string> assumptions;  // defaults filled in, policies applied
};

// The numbers the planner ranks by; computed by the same arithmetic as
// Estimate, without building strings.
struct QuickEstimate {
  Seconds step_time;
  double mfu = 0;
  Bytes memory_total;
  bool fits = false;
  // EvaluateClosedForm with pp > 1: the memory with each device's in-flight
  // count of its lightest chunk, below what the simulated pipeline holds
  // (the closed form counts the mean chunk, which on uneven chunks can weigh
  // more). Otherwise memory_total.
  Bytes memory_floor;
};

// Whether a window of `plan` pools a forward with another micro-batch's
// backward: DualPipe / DualPipeV's F&B chunks (pp > 1) and combined 1F1B
// (doc/cost-model.md § 6). Such a forward may end before its own traffic.
bool PairsPasses(const PlanSpec& plan);

// Precomputes what does not depend on the plan (per-layer shapes, FLOPs,
// parameter counts), so evaluating a plan is cheap arithmetic.
class StepModel {
 public:
  static Result<StepModel> Create(const ModelSpec& model, const ClusterSpec& cluster,
                                  const JobSpec& job);
  StepModel(StepModel&&) noexcept;
  StepModel& operator=(StepModel&&) noexcept;
  ~StepModel();

  // Full estimate with breakdown. Validates the plan first.
  Result<Estimate> Evaluate(const PlanSpec& plan) const;
  // Fast path for the planner. REQUIRES: ValidatePlan(...) ok for `plan`.
  // Allocation-free arithmetic; agrees with Evaluate to the last bit.
  QuickEstimate EvaluateQuick(const PlanSpec& plan) const;
  // The same arithmetic with the pipeline's closed forms (bubble and
  // in-flight micro-batches, doc/cost-model.md §6) instead of the simulator:
  // the planner ranks with it and re-evaluates its shortlist with Evaluate.
  // Equal to EvaluateQuick when pp = 1. REQUIRES: as EvaluateQuick.
  QuickEstimate EvaluateClosedForm(const PlanSpec& plan) const;
  // Lower bounds for the planner, much cheaper than EvaluateQuick.
  // step_time <= EvaluateQuick(plan).step_time: the matmul, attention and
  // element-wise time of the whole model for m micro-batches spread over the
  // pp devices, plus the fill and drain that GPipe and 1F1B cannot avoid,
  // and for every device of a one-way pipeline the forward time of the
  // chunks before its first one plus m times its own compute
  // (communication, other bubbles and the optimizer left out).
  // memory_by_zero[z] <= EvaluateQuick(plan).memory_total when plan.zero ==
  // z: the fullest device's weights, gradients and optimizer state sharded
  // over at most cp*dp (dense) and edp (expert) ranks, plus the activations
  // it holds at its peak (balanced routing; no buffers or work space).
  // Neither depends on plan.zero, hsdp, order or a2a_overlap.
  // REQUIRES: as EvaluateQuick, or a plan that only fails ValidatePlan's
  // schedule rules.
  struct LowerBounds {
    Seconds step_time;
    std::array<Bytes, 4> memory_by_zero;
  };
  LowerBounds LowerBoundsFor(const PlanSpec& plan) const;
  // A second lower bound on EvaluateQuick(plan).step_time: m times the
  // busiest device's tp, cp, ep and ZeRO-3 traffic per micro-batch (or its
  // compute, or its MoE dispatcher host time), with the pipeline's fill
  // and drain, and under ZeRO-2 m times its gradient reduce-scatter.
  // Depends on the degrees, mbs, order, mesh and on plan.zero (ZeRO-0 and 1
  // alike; ZeRO-3 on hsdp too), and on a2a_overlap only through
  // PairsPasses (a paired forward's floor is its compute); taken without
  // recompute, it bounds every recompute policy. REQUIRES: as
  // LowerBoundsFor.
  Seconds LinkTimeFor(const PlanSpec& plan) const;

  // The pipeline of `plan` as the simulator takes it: one ChunkCost per
  // model chunk (forward, input-grad and weight-grad time of one
  // micro-batch incl. exposed per-micro-batch communication; activation
  // bytes), the p2p time and the micro-batch count. DualPipe / DualPipeV and
  // combined 1F1B: every pass carries all its expert all-to-all, marked as
  // forward_comm / backward_comm for the schedule's F&B pairs to hide, as
  // the estimate simulates it. Validates the plan.
  Result<PipelineConfig> PipelineFor(const PlanSpec& plan) const;

  // Replaces the chip's GEMM calibration (gemm_efficiency, gemm_half_tokens,
  // gemm_half_width, gemm_fp8_ratio, moe_dispatch_host_s) with `chip`'s, for
  // calibration fits. Every cache is kept: none depends on these values
  // (collective costs, MoE imbalance, simulated pipelines keyed by relative
  // durations). REQUIRES: no concurrent Evaluate* call on this object.
  void SetGemmCalibration(const ChipSpec& chip);

  const ModelSpec& model() const;
  const ClusterSpec& cluster() const;
  const JobSpec& job() const;

  struct Impl;

 private:
  explicit StepModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Convenience: Create + Evaluate.
Result<Estimate> EstimateStep(const ModelSpec& model, const ClusterSpec& cluster,
                              const JobSpec& job, const PlanSpec& plan);

}  // namespace occam
