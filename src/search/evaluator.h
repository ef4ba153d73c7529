// The planner's view of a layout evaluator: validate a plan, evaluate it
// quickly for ranking, evaluate it fully for the few layouts that are
// printed. SearchLayouts adapts StepModel to it; tests substitute their own
// analytic double, so enumeration, pruning, ranking and the verdict can be
// tested apart from the cost model.
#pragma once

#include <array>

#include "occam/spec.h"
#include "occam/status.h"
#include "occam/step.h"

namespace occam::search {

// REQUIRES: every method is safe to call concurrently from several threads
// (the search calls them from its worker threads).
class LayoutEvaluator {
 public:
  virtual ~LayoutEvaluator() = default;
  // Divisibility and size rules (ValidatePlan or an equivalent).
  virtual Status Validate(const PlanSpec& plan) const = 0;
  // REQUIRES: Validate(plan).ok().
  virtual QuickEstimate Quick(const PlanSpec& plan) const = 0;
  // Whether the layout fits with the simulated pipeline's memory (the
  // ranking pass asks when Quick's memory is over capacity but its
  // memory_floor is not).
  virtual bool SimulatedFits(const PlanSpec& plan) const { return Quick(plan).fits; }
  // Full estimate with breakdown and bottleneck sentence.
  virtual Result<Estimate> Full(const PlanSpec& plan) const = 0;
  // Lower bounds much cheaper than Quick (0 = no bound): step_seconds <=
  // Quick(plan).step_time; memory_bytes[z] <= Quick(plan).memory_total when
  // plan.zero == z. Called before Validate on every enumerated
  // plan, so it must be safe on plans Validate would reject. CONTRACT: both
  // depend only on the shape (tp, cp, pp, vpp, dp, ep, etp, schedule),
  // plan.mbs and plan.recompute: the search computes them once per (shape,
  // mbs, recompute) and reuses them across ZeRO stage, HSDP, axis order and
  // a2a_overlap variants.
  struct PlanBounds {
    double step_seconds = 0;
    std::array<double, 4> memory_bytes{};
  };
  virtual PlanBounds LowerBounds(const PlanSpec& plan) const {
    (void)plan;
    return {};
  }
  // A lower bound on Quick(plan)'s step time in seconds shared by the
  // variants that differ only in recompute, all-to-all overlap and ZeRO
  // stage 0 or 1 (ZeRO-2 has its own; ZeRO-3 one per HSDP group; 0 when
  // unknown).
  virtual double LinkSeconds(const PlanSpec& plan) const {
    (void)plan;
    return 0;
  }
};

}  // namespace occam::search
