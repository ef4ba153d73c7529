// The collectives a step issues, costed on the cluster's tiers. One place
// where the step layer meets the collective model (occam/collective.h).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "occam/collective.h"
#include "occam/spec.h"

namespace occam::step_internal {

struct CommCost {
  double seconds = 0;
  int tier = -1;  // limiting tier index, -1 when nothing is sent
};

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
                    const CollectiveOptions& options = {});
// The same on a group prepared for `cluster` (PrepareGroup).
CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes,
                    const PreparedGroup& group, const CollectiveOptions& options = {});

// Prepared layouts (PrepareGroup) of the rank groups one StepModel meets,
// by (size, stride), for the one cluster it costs. Thread-safe without a
// lock: each slot is written once (claimed, filled, then published with
// release) and never changed; readers see only published slots. A group
// that finds no slot within a few probes, or one being written by another
// thread, is prepared into the caller's scratch instead. Allocation-free.
class GroupCache {
 public:
  const PreparedGroup& Get(const ClusterSpec& cluster, RankGroup group,
                           PreparedGroup& scratch) const;

 private:
  static constexpr size_t kSlots = 1024;
  static constexpr size_t kProbes = 8;
  enum : uint32_t { kFree = 0, kWriting = 1, kReady = 2 };
  struct Slot {
    std::atomic<uint32_t> state{kFree};
    PreparedGroup group;
  };
  mutable std::array<Slot, kSlots> slots_;
};

// Costs of the collectives one StepModel has already costed, by (op, bytes,
// group, options): layouts of one search repeat most of them (the gradient
// reduction of a stage's parameters does not depend on the micro-batch
// size, recompute or ZeRO stage). Collective() is a pure function of these
// and the cluster, so a hit returns exactly what a new call would. Same
// write-once slots as GroupCache: thread-safe without a lock, never
// evicts; a key without a slot is costed and not kept. Allocation-free.
class CollectiveCache {
 public:
  CommCost Get(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op, double bytes,
               RankGroup group, const CollectiveOptions& options) const;

 private:
  static constexpr size_t kSlots = 8192;
  static constexpr size_t kProbes = 8;
  enum : uint32_t { kFree = 0, kWriting = 1, kReady = 2 };
  // One cache line: the key (sizes, strides and counts that fit in 32 bits;
  // others are not kept) and the cost.
  struct alignas(64) Slot {
    std::atomic<uint32_t> state{kFree};
    CollectiveOp op = CollectiveOp::kAllReduce;
    CollectiveAlgorithm force = CollectiveAlgorithm::kNone;
    int32_t size = 0, stride = 0, top_k = 0, max_units = 0;
    double bytes = 0, imbalance = 0;
    CommCost cost;
  };
  mutable std::array<Slot, kSlots> slots_;
};

// The groups of every parallel axis for `plan` (explicit order or default).
AxisGroups Groups(const PlanSpec& plan);

}  // namespace occam::step_internal
