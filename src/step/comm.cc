// Step collectives: a thin adapter over EstimateCollective / PlaceAxes.
#include "step/comm.h"

#include <cstring>

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

bool CollectiveCache::Key::operator==(const Key& o) const {
  return op == o.op && bytes == o.bytes && group.size == o.group.size &&
         group.stride == o.group.stride && options.imbalance == o.options.imbalance &&
         options.max_units_per_token == o.options.max_units_per_token &&
         options.top_k == o.options.top_k && options.force == o.options.force;
}

CommCost CollectiveCache::Get(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op,
                              double bytes, RankGroup group,
                              const CollectiveOptions& options) const {
  const Key key{op, bytes, group, options};
  uint64_t bits = 0;
  std::memcpy(&bits, &bytes, sizeof bits);
  const uint64_t h =
      (bits ^ static_cast<uint64_t>(group.size) * 0x9E3779B97F4A7C15ULL ^
       static_cast<uint64_t>(group.stride) * 0xC2B2AE3D27D4EB4FULL ^ static_cast<uint64_t>(op)) *
      0xFF51AFD7ED558CCDULL;
  const size_t home = static_cast<size_t>(h >> 40) % kSlots;
  Slot* claimed = nullptr;
  for (size_t i = 0; i < kProbes && claimed == nullptr; ++i) {
    Slot& slot = slots_[(home + i) % kSlots];
    uint32_t state = slot.state.load(std::memory_order_acquire);
    if (state == kFree &&
        slot.state.compare_exchange_strong(state, kWriting, std::memory_order_acquire)) {
      claimed = &slot;
      break;
    }
    if (state == kWriting) break;  // not ready: do not wait
    if (slot.key == key) return slot.cost;
  }
  PreparedGroup scratch;
  const CommCost cost =
      Collective(cluster, op, bytes, groups.Get(cluster, group, scratch), options);
  if (claimed != nullptr) {
    claimed->key = key;
    claimed->cost = cost;
    claimed->state.store(kReady, std::memory_order_release);
  }
  return cost;
}

AxisGroups Groups(const PlanSpec& plan) {
  return PlaceAxes(plan, plan.order.empty() ? DefaultAxisOrder(plan) : plan.order);
}

}  // namespace occam::step_internal
