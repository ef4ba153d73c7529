// Step collectives: a thin adapter over EstimateCollective / PlaceAxes.
#include "step/comm.h"

#include <cstring>
#include <vector>

namespace occam::step_internal {

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
                    const CollectiveOptions& options) {
  if (group.size <= 1 || bytes <= 0) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, Bytes(bytes), group, options);
  return CommCost{c.time.value(), c.limiting_tier};
}

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, double bytes,
                    const PreparedGroup& group, const CollectiveOptions& options) {
  if (group.group.size <= 1 || bytes <= 0) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, Bytes(bytes), group, options);
  return CommCost{c.time.value(), c.limiting_tier};
}

const PreparedGroup& GroupCache::Get(const ClusterSpec& cluster, RankGroup group,
                                     PreparedGroup& scratch) const {
  const uint64_t key = static_cast<uint64_t>(group.size) * 0x9E3779B97F4A7C15ULL ^
                       static_cast<uint64_t>(group.stride) * 0xC2B2AE3D27D4EB4FULL;
  const size_t home = static_cast<size_t>(key >> 40) % kSlots;
  for (size_t i = 0; i < kProbes; ++i) {
    Slot& slot = slots_[(home + i) % kSlots];
    uint32_t state = slot.state.load(std::memory_order_acquire);
    if (state == kFree &&
        slot.state.compare_exchange_strong(state, kWriting, std::memory_order_acquire)) {
      slot.group = PrepareGroup(cluster, group);
      slot.state.store(kReady, std::memory_order_release);
      return slot.group;
    }
    if (state == kWriting) break;  // not ready: do not wait
    if (slot.group.group.size == group.size && slot.group.group.stride == group.stride) {
      return slot.group;
    }
  }
  scratch = PrepareGroup(cluster, group);
  return scratch;
}

CommCost CollectiveCache::Get(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op,
                              double bytes, RankGroup group,
                              const CollectiveOptions& options) const {
  constexpr int64_t kMax = int64_t{1} << 31;
  const bool keyable = group.size < kMax && group.stride < kMax && options.top_k >= 0 &&
                       options.top_k < kMax && options.max_units_per_token >= 0 &&
                       options.max_units_per_token < kMax;
  uint64_t bits = 0;
  std::memcpy(&bits, &bytes, sizeof bits);
  const uint64_t h =
      (bits ^ static_cast<uint64_t>(group.size) * 0x9E3779B97F4A7C15ULL ^
       static_cast<uint64_t>(group.stride) * 0xC2B2AE3D27D4EB4FULL ^ static_cast<uint64_t>(op)) *
      0xFF51AFD7ED558CCDULL;
  const size_t home = static_cast<size_t>(h >> 40) % kSlots;
  Slot* claimed = nullptr;
  for (size_t i = 0; keyable && i < kProbes; ++i) {
    Slot& slot = slots_[(home + i) % kSlots];
    uint32_t state = slot.state.load(std::memory_order_acquire);
    if (state == kFree &&
        slot.state.compare_exchange_strong(state, kWriting, std::memory_order_acquire)) {
      claimed = &slot;
      break;
    }
    if (state == kWriting) break;  // not ready: do not wait
    if (slot.bytes == bytes && slot.op == op && slot.size == group.size &&
        slot.stride == group.stride && slot.imbalance == options.imbalance &&
        slot.top_k == options.top_k && slot.max_units == options.max_units_per_token &&
        slot.force == options.force) {
      return slot.cost;
    }
  }
  PreparedGroup scratch;
  const CommCost cost =
      Collective(cluster, op, bytes, groups.Get(cluster, group, scratch), options);
  if (claimed != nullptr) {
    claimed->op = op;
    claimed->force = options.force;
    claimed->size = static_cast<int32_t>(group.size);
    claimed->stride = static_cast<int32_t>(group.stride);
    claimed->top_k = static_cast<int32_t>(options.top_k);
    claimed->max_units = static_cast<int32_t>(options.max_units_per_token);
    claimed->bytes = bytes;
    claimed->imbalance = options.imbalance;
    claimed->cost = cost;
    claimed->state.store(kReady, std::memory_order_release);
  }
  return cost;
}

AxisGroups Groups(const PlanSpec& plan) {
  if (!plan.order.empty()) return PlaceAxes(plan, plan.order);
  // DefaultAxisOrder is one order for every plan (doc/cost-model.md § 5):
  // built once rather than allocated per layout.
  static const std::vector<Axis> kDefault = DefaultAxisOrder(PlanSpec{});
  return PlaceAxes(plan, kDefault);
}

}  // namespace occam::step_internal
