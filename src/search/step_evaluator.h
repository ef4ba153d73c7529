// The planner's evaluator on top of StepModel (thread-safe const methods).
#pragma once

#include "occam/step.h"
#include "search/evaluator.h"

namespace occam::search {

class StepModelEvaluator final : public LayoutEvaluator {
 public:
  // `step` must outlive the evaluator.
  explicit StepModelEvaluator(const StepModel& step) : step_(step) {}
  Status Validate(const PlanSpec& plan) const override {
    return ValidatePlan(step_.model(), step_.cluster(), step_.job(), plan);
  }
  // Ranking pass: the pipeline's closed forms (the kept layouts are
  // re-evaluated with Full, the simulated pipeline; search_core.cc Refine).
  QuickEstimate Quick(const PlanSpec& plan) const override {
    return step_.EvaluateClosedForm(plan);
  }
  bool SimulatedFits(const PlanSpec& plan) const override { return step_.EvaluateQuick(plan).fits; }
  Result<Estimate> Full(const PlanSpec& plan) const override { return step_.Evaluate(plan); }
  PlanBounds LowerBounds(const PlanSpec& plan) const override {
    const StepModel::LowerBounds b = step_.LowerBoundsFor(plan);
    PlanBounds out{b.step_time.value(), {}};
    for (size_t z = 0; z < out.memory_bytes.size(); ++z) {
      out.memory_bytes[z] = b.memory_by_zero[z].value();
    }
    return out;
  }
  double LinkSeconds(const PlanSpec& plan) const override {
    return step_.LinkTimeFor(plan).value();
  }

 private:
  const StepModel& step_;
};

}  // namespace occam::search
