// The planner's view of a layout evaluator: validate a plan, evaluate it
// quickly for ranking, evaluate it fully for the few layouts that are
// printed. SearchLayouts adapts StepModel to it; tests substitute their own
// analytic double, so enumeration, pruning, ranking and the verdict can be
// tested apart from the cost model.
#pragma once

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
  // Full estimate with breakdown and bottleneck sentence.
  virtual Result<Estimate> Full(const PlanSpec& plan) const = 0;
};

}  // namespace occam::search
