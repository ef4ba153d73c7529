// The collectives a step issues, costed on the cluster's tiers. One place
// where the step layer meets the collective model (occam/collective.h).
#pragma once

#include "occam/collective.h"
#include "occam/spec.h"

namespace occam::step_internal {

struct CommCost {
  double seconds = 0;
  int tier = -1;  // limiting tier index, -1 when nothing is sent
};

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
                    const CollectiveOptions& options = {});

// The groups of every parallel axis for `plan` (explicit order or default).
AxisGroups Groups(const PlanSpec& plan);

}  // namespace occam::step_internal
