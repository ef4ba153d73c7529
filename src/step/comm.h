// The collectives a step issues, costed on the cluster's tiers. One place
// where the step layer meets the collective model (occam/collective.h).
#pragma once

#include <array>
#include <cstdint>

#include "occam/collective.h"
#include "occam/element_bytes.h"
#include "occam/spec.h"
#include "occam/units.h"
#include "step/write_once_table.h"

namespace occam::step_internal {

// Bytes per parameter that a gradient reduction (all-reduce, reduce-scatter)
// moves: the gradients in the dtype the job holds them. fp32 main gradients
// by default (Megatron's distributed-optimizer convention, element_bytes.h);
// 16-bit when the job keeps 16-bit gradients (JobSpec::bf16_gradients:
// DeepSpeed's ZeRO reduce-scatters the fp16 param.grad itself,
// _reduce_scatter_gradient in deepspeed/runtime/zero/partition_parameters.py
// of v0.3.13; torchtitan training.dtype bfloat16). doc/cost-model.md §5.
inline double GradReduceBytesPerParam(const JobSpec& job) {
  return job.bf16_gradients ? kBf16GradBytesPerParam : kGradBytesPerParam;
}

// Seconds per cluster tier.
using TierSeconds = std::array<Seconds, kMaxCollectiveTiers>;

struct CommCost {
  Seconds time;
  int tier = -1;  // limiting tier index, -1 when nothing is sent
};

// A collective's cost with the time each tier's links spend on it
// (CollectiveCost::busy): what two calls issued together share.
struct CommLoad {
  Seconds time;
  int tier = -1;
  TierSeconds busy{};
};

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                    const CollectiveOptions& options = {});
// The same on a group prepared for `cluster` (PrepareGroup).
CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                    const PreparedGroup& group, const CollectiveOptions& options = {});
// The same with the busy time per tier.
CommLoad CollectiveLoad(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                        const CollectiveOptions& options = {});
CommLoad CollectiveLoad(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                        const PreparedGroup& group, const CollectiveOptions& options = {});

// How long two collectives issued together take: each at least its own
// time, and a tier both cross carries both at once, so its links are busy
// for the sum of their busy times (CollectiveCost::busy). Calls on
// different links run side by side; calls bound by the same links take
// about the sum of their times.
Seconds TogetherTime(const CommLoad& a, const CommLoad& b);
// How far the two, issued together at the start of a window of `window`
// seconds, run past its end when each tier's links also carry `other` of the
// window's own traffic: max(0, T_a - window, T_b - window, max_i (busy_a,i +
// busy_b,i + other_i - window)). Never above TogetherTime(a, b).
Seconds ExcessOver(const CommLoad& a, const CommLoad& b, Seconds window, const TierSeconds& other);

// Prepared layouts (PrepareGroup) of the rank groups one StepModel meets,
// by (size, stride), for the one cluster it costs: a WriteOnceTable
// (thread-safe without a lock, never evicts). A group without a slot is
// prepared into the caller's scratch instead.
class GroupCache {
 public:
  const PreparedGroup& Get(const ClusterSpec& cluster, RankGroup group,
                           PreparedGroup& scratch) const;

 private:
  struct Key {
    int64_t size = 0, stride = 0;
    TorusMapping mapping = TorusMapping::kLinear;
    bool operator==(const Key&) const = default;
  };
  WriteOnceTable<Key, PreparedGroup, 1024> table_;
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
  CommCost Get(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op, Bytes bytes,
               RankGroup group, const CollectiveOptions& options) const;
  // The same call with its busy times (CollectiveLoad), from a table of its
  // own: only the probes and the data-parallel tail ask for them, and Get's
  // slots stay small.
  CommLoad GetLoad(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op,
                   Bytes bytes, RankGroup group, const CollectiveOptions& options) const;

 private:
  // Sizes, strides and counts that fit in 32 bits (others are not kept).
  struct Key {
    CollectiveOp op = CollectiveOp::kAllReduce;
    CollectiveAlgorithm force = CollectiveAlgorithm::kNone;
    TorusMapping mapping = TorusMapping::kLinear;
    int32_t size = 0, stride = 0, top_k = 0, max_units = 0;
    double bytes = 0, imbalance = 0;
    bool operator==(const Key&) const = default;
  };
  // The key of a call and its slot's hash; false when it cannot be kept.
  static bool KeyOf(CollectiveOp op, Bytes bytes, RankGroup group, const CollectiveOptions& options,
                    Key& key, size_t& home);
  // `table`'s value for the call, else make() (kept when a slot is free).
  template <class Table, class Make>
  static auto Lookup(const Table& table, CollectiveOp op, Bytes bytes, RankGroup group,
                     const CollectiveOptions& options, Make&& make) {
    Key key;
    size_t home = 0;
    if (!KeyOf(op, bytes, group, options, key, home)) return make();
    return table.Get(home, key, make);
  }
  WriteOnceTable<Key, CommCost, 8192> table_;
  WriteOnceTable<Key, CommLoad, 8192> loads_;
};

// The groups of every parallel axis for `plan` (explicit order or default).
AxisGroups Groups(const PlanSpec& plan);

}  // namespace occam::step_internal
