// Step collectives: a thin adapter over EstimateCollective / PlaceAxes.
#include "step/comm.h"

namespace occam::step_internal {

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
                    const CollectiveOptions& options) {
  if (group.size <= 1 || bytes <= 0) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, Bytes(bytes), group, options);
  return CommCost{c.time.value(), c.limiting_tier};
}

AxisGroups Groups(const PlanSpec& plan) {
  return PlaceAxes(plan, plan.order.empty() ? DefaultAxisOrder(plan) : plan.order);
}

}  // namespace occam::step_internal
