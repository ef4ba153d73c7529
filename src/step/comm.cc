// Step collectives: a thin adapter over EstimateCollective / PlaceAxes.
#include "step/comm.h"

#include <cstring>
#include <vector>

namespace occam::step_internal {

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                    const CollectiveOptions& options) {
  if (group.size <= 1 || bytes <= Bytes(0)) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, bytes, group, options);
  return CommCost{c.time, c.limiting_tier};
}

CommCost Collective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                    const PreparedGroup& group, const CollectiveOptions& options) {
  if (group.group.size <= 1 || bytes <= Bytes(0)) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, bytes, group, options);
  return CommCost{c.time, c.limiting_tier};
}

CommLoad CollectiveLoad(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes, RankGroup group,
                        const CollectiveOptions& options) {
  if (group.size <= 1 || bytes <= Bytes(0)) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, bytes, group, options);
  return CommLoad{c.time, c.limiting_tier, c.busy};
}

CommLoad CollectiveLoad(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                        const PreparedGroup& group, const CollectiveOptions& options) {
  if (group.group.size <= 1 || bytes <= Bytes(0)) return {};
  const CollectiveCost c = EstimateCollective(cluster, op, bytes, group, options);
  return CommLoad{c.time, c.limiting_tier, c.busy};
}

Seconds TogetherTime(const CommLoad& a, const CommLoad& b) {
  Seconds t = Max(a.time, b.time);
  for (size_t i = 0; i < a.busy.size(); ++i) t = Max(t, a.busy[i] + b.busy[i]);
  return t;
}

Seconds ExcessOver(const CommLoad& a, const CommLoad& b, Seconds window, const TierSeconds& other) {
  Seconds e = Max(Seconds(), Max(a.time, b.time) - window);
  for (size_t i = 0; i < a.busy.size(); ++i) {
    // A tier neither call crosses is not waited for.
    if (a.busy[i] + b.busy[i] > Seconds()) e = Max(e, a.busy[i] + b.busy[i] + other[i] - window);
  }
  return Min(e, TogetherTime(a, b));
}

const PreparedGroup& GroupCache::Get(const ClusterSpec& cluster, RankGroup group,
                                     PreparedGroup& scratch) const {
  const uint64_t key = static_cast<uint64_t>(group.size) * 0x9E3779B97F4A7C15ULL ^
                       static_cast<uint64_t>(group.stride) * 0xC2B2AE3D27D4EB4FULL;
  return table_.GetRef(static_cast<size_t>(key >> 40), Key{group.size, group.stride, group.mapping},
                       scratch, [&] { return PrepareGroup(cluster, group); });
}

bool CollectiveCache::KeyOf(CollectiveOp op, Bytes bytes, RankGroup group,
                            const CollectiveOptions& options, Key& key, size_t& home) {
  constexpr int64_t kMax = int64_t{1} << 31;
  const bool keyable = group.size < kMax && group.stride < kMax && options.top_k >= 0 &&
                       options.top_k < kMax && options.max_units_per_token >= 0 &&
                       options.max_units_per_token < kMax;
  if (!keyable) return false;
  const double size = bytes.value();
  uint64_t bits = 0;
  std::memcpy(&bits, &size, sizeof bits);
  const uint64_t h =
      (bits ^ static_cast<uint64_t>(group.size) * 0x9E3779B97F4A7C15ULL ^
       static_cast<uint64_t>(group.stride) * 0xC2B2AE3D27D4EB4FULL ^ static_cast<uint64_t>(op)) *
      0xFF51AFD7ED558CCDULL;
  key = Key{op,
            options.force,
            group.mapping,
            static_cast<int32_t>(group.size),
            static_cast<int32_t>(group.stride),
            static_cast<int32_t>(options.top_k),
            static_cast<int32_t>(options.max_units_per_token),
            size,
            options.imbalance};
  home = static_cast<size_t>(h >> 40);
  return true;
}

CommCost CollectiveCache::Get(const ClusterSpec& cluster, const GroupCache& groups, CollectiveOp op,
                              Bytes bytes, RankGroup group,
                              const CollectiveOptions& options) const {
  return Lookup(table_, op, bytes, group, options, [&] {
    PreparedGroup scratch;
    return Collective(cluster, op, bytes, groups.Get(cluster, group, scratch), options);
  });
}

CommLoad CollectiveCache::GetLoad(const ClusterSpec& cluster, const GroupCache& groups,
                                  CollectiveOp op, Bytes bytes, RankGroup group,
                                  const CollectiveOptions& options) const {
  return Lookup(loads_, op, bytes, group, options, [&] {
    PreparedGroup scratch;
    return CollectiveLoad(cluster, op, bytes, groups.Get(cluster, group, scratch), options);
  });
}

AxisGroups Groups(const PlanSpec& plan) {
  if (!plan.order.empty()) return PlaceAxes(plan, plan.order);
  // DefaultAxisOrder is one order for every plan (doc/cost-model.md § 5):
  // built once rather than allocated per layout.
  static const std::vector<Axis> kDefault = DefaultAxisOrder(PlanSpec{});
  return PlaceAxes(plan, kDefault);
}

}  // namespace occam::step_internal
