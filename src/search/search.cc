// SearchLayouts: the planner on top of StepModel; see include/occam/search.h.
#include "occam/search.h"

#include "search/search_core.h"
#include "search/step_evaluator.h"

namespace occam {

Result<SearchResult> SearchLayouts(const ModelSpec& model, const ClusterSpec& cluster,
                                   const JobSpec& job, const SearchOptions& options) {
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(model, cluster, job));
  const search::StepModelEvaluator evaluator(step);
  return search::RunSearch(step.model(), step.cluster(), step.job(), options, evaluator);
}

}  // namespace occam
