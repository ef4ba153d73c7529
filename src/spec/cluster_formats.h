// Internal: readers shared by the cluster/job parsers and the catalog.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "occam/spec.h"
#include "spec/doc.h"

namespace occam::spec {

// How a catalog template is resized to a chip count (`sizing:` in
// data/clusters/*.yaml; see doc/input-formats.md and cluster_sizing.cc).
struct ClusterSizing {
  std::string rule;       // "gpu", "torus3d" or "torus2d"
  int64_t max_slice = 0;  // torus: largest ICI slice; more chips go multislice over DCN
  int64_t cube = 4;       // torus3d: slices >= cube^3 chips are whole cubes (wraparound)
  int64_t full_axis = 0;  // torus2d: only axes of this length wrap around
  std::vector<std::vector<int64_t>> shapes;  // torus2d: allowed slice shapes
  // gpu: a chip count that does not fill whole scale-up units is spread over
  // the fewest equal partial units of whole `partial_step`-chip trays, each at
  // least half full (GB200 NVL72: 4-GPU compute trays); 0 = whole units only.
  int64_t partial_step = 0;
};

struct ClusterDoc {
  ClusterSpec cluster;
  std::optional<ClusterSizing> sizing;
};

// A chip object: a catalog entry in data/hardware/chips.yaml or an inline
// `chip:` object in a cluster file. Fills calibration defaults from
// data/calibration.yaml when the object does not set them.
Result<ChipSpec> ReadChip(const Node& n);

// A whole cluster document (`cluster:` and optional `sizing:`), validated.
Result<ClusterDoc> ReadClusterDoc(std::string_view text, std::string_view origin);

// Applies data/calibration.yaml (gemm efficiency and half tokens) to `chip`.
Status ApplyCalibration(ChipSpec& chip, bool own_entry = true);

// Resizes a template to `chips` (InvalidInput with nearby valid counts when
// the count does not fit).
Result<ClusterSpec> SizeCluster(const ClusterDoc& doc, int64_t chips);

}  // namespace occam::spec
