// ValidatePlan: divisibility and size rules of a parallel layout.
#include "occam/spec.h"

namespace occam {

Status ValidatePlan(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job,
                    const PlanSpec& plan) {
  (void)model;
  (void)job;
  if (plan.chips() != cluster.num_chips) {
    return InvalidInput("plan field 'dp': tp*cp*pp*dp = " + std::to_string(plan.chips()) +
                        " but the cluster has " + std::to_string(cluster.num_chips) + " chips");
  }
  return Status::Ok();
}

}  // namespace occam
