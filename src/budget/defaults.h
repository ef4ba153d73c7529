// Cited defaults of the whole-run model, per chip where they differ
// (doc/budget.md § Defaults lists each with its source).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "occam/spec.h"

namespace occam::budget {

// A default value with its source.
struct Cited {
  double value = 0;
  std::string source;
};

// Chip power (TDP / max board power), W; empty when none is published.
std::optional<Cited> DefaultChipWatts(const ChipSpec& chip);
// Chips per node (host): the unit the node failure rate counts.
Cited DefaultChipsPerNode(const ChipSpec& chip);
// Facility PUE: Google's fleet for TPUs, the industry average otherwise.
Cited DefaultPue(const ChipSpec& chip);
// Host, network and storage power as a fraction of chip TDP.
Cited DefaultHostPowerShare();
// Fractions of TDP while computing and while blocked.
Cited DefaultBusyPowerFraction();
Cited DefaultWaitPowerFraction();
// Llama 3 405B on 16,384 H100, 54 days: GPU-class interruptions per GPU-hour,
// and the other unexpected interruptions per 8-GPU node-hour.
Cited DefaultChipFailuresPerHour();
Cited DefaultNodeFailuresPerHour();
// Aggregate checkpoint storage bandwidth, GB/s (1e9 B/s).
Cited DefaultStorageGbps();
// Restart overhead without the checkpoint load, s.
Cited DefaultRestartOverheadS();
// Blocking time of one asynchronous checkpoint, s.
Cited DefaultAsyncStallS();
// Spare chips allocated beside the job, fraction.
Cited DefaultSpareFraction();

}  // namespace occam::budget
