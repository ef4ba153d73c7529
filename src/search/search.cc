// SearchLayouts: the planner on top of StepModel; see include/occam/search.h.
#include "occam/search.h"

#include "search/evaluator.h"
#include "search/search_core.h"

namespace occam {
namespace {

// Adapts StepModel (thread-safe const methods) to the planner's evaluator.
class StepModelEvaluator final : public search::LayoutEvaluator {
 public:
  explicit StepModelEvaluator(const StepModel& step) : step_(step) {}
  Status Validate(const PlanSpec& plan) const override {
    return ValidatePlan(step_.model(), step_.cluster(), step_.job(), plan);
  }
  QuickEstimate Quick(const PlanSpec& plan) const override { return step_.EvaluateQuick(plan); }
  Result<Estimate> Full(const PlanSpec& plan) const override { return step_.Evaluate(plan); }

 private:
  const StepModel& step_;
};

}  // namespace

Result<SearchResult> SearchLayouts(const ModelSpec& model, const ClusterSpec& cluster,
                                   const JobSpec& job, const SearchOptions& options) {
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(model, cluster, job));
  const StepModelEvaluator evaluator(step);
  return search::RunSearch(step.model(), step.cluster(), step.job(), options, evaluator);
}

}  // namespace occam
