// EstimateCollective: layout of a group on the tiers, the shared ring
// building block, and the choice of the fastest algorithm.
// Sources: doc/cost-model.md § 4 (symbols in collective_internal.h).
#include "occam/collective.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "cost/collective_internal.h"

namespace occam {

namespace ci = collective_internal;

std::string_view CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all-reduce";
    case CollectiveOp::kReduceScatter:
      return "reduce-scatter";
    case CollectiveOp::kAllGather:
      return "all-gather";
    case CollectiveOp::kAllToAll:
      return "all-to-all";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kSendRecv:
      return "send-recv";
  }
  return "?";
}

std::string_view CollectiveAlgorithmName(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kNone:
      return "none";
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kTree:
      return "tree";
    case CollectiveAlgorithm::kNvls:
      return "nvls";
    case CollectiveAlgorithm::kHierarchical:
      return "hierarchical";
    case CollectiveAlgorithm::kTorus:
      return "torus";
    case CollectiveAlgorithm::kDirect:
      return "direct";
  }
  return "?";
}

double BusBandwidthFactor(CollectiveOp op, int64_t n) {
  if (n <= 1) return 0.0;
  const double nn = static_cast<double>(n);
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (nn - 1) / nn;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kAllToAll:
      return (nn - 1) / nn;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

Status ValidateCollectiveGroup(const ClusterSpec& cluster, RankGroup group, std::string_view what) {
  const std::string w(what);
  if (cluster.tiers.empty()) return InvalidInput("cluster '" + cluster.name + "' has no tiers");
  if (cluster.tiers.size() > static_cast<size_t>(kMaxCollectiveTiers)) {
    return InvalidInput("cluster '" + cluster.name + "' has " +
                        std::to_string(cluster.tiers.size()) + " tiers; occam models at most " +
                        std::to_string(kMaxCollectiveTiers));
  }
  if (group.size < 1) {
    return InvalidInput(w + ": group size must be >= 1 (got " + std::to_string(group.size) + ")");
  }
  if (group.stride < 1) {
    return InvalidInput(w + ": stride must be >= 1 (got " + std::to_string(group.stride) + ")");
  }
  if (group.size > cluster.num_chips || group.stride > cluster.num_chips ||
      group.size * group.stride > cluster.num_chips) {
    return InvalidInput(w + ": a group of " + std::to_string(group.size) + " ranks with stride " +
                        std::to_string(group.stride) + " needs " +
                        std::to_string(group.size * group.stride) + " chips but the cluster has " +
                        std::to_string(cluster.num_chips) + " (lower the size or the stride)");
  }
  return Status::Ok();
}

namespace collective_internal {

Layout MakeLayout(const ClusterSpec& cluster, RankGroup group) {
  Layout l;
  l.num_tiers = static_cast<int>(std::min<size_t>(cluster.tiers.size(), kMaxCollectiveTiers));
  const int64_t n = std::max<int64_t>(group.size, 1);
  const int64_t s = std::max<int64_t>(group.stride, 1);
  l.n = static_cast<double>(n);
  int64_t prev = 1;
  for (int i = 0; i < l.num_tiers; ++i) {
    const int64_t unit = std::max<int64_t>(cluster.tiers[static_cast<size_t>(i)].size, 1);
    // Members of an aligned progression inside one block of `unit` ranks.
    int64_t m = s >= unit ? 1 : std::min(n, std::max<int64_t>(unit / s, 1));
    if (i == l.num_tiers - 1) m = n;  // the outermost tier holds every rank
    m = std::max(m, prev);
    l.members[static_cast<size_t>(i)] = static_cast<double>(m);
    l.fanout[static_cast<size_t>(i)] = static_cast<double>(m) / static_cast<double>(prev);
    if (m > prev) l.top = i;
    prev = m;
  }
  return l;
}

Layout Across(const Layout& layout) {
  Layout a = layout;
  const double inner = layout.members[0];
  for (int i = 0; i < layout.num_tiers; ++i) a.members[static_cast<size_t>(i)] /= inner;
  a.fanout[0] = 1;
  a.n = layout.n / inner;
  if (a.top == 0) a.top = -1;
  return a;
}

Cost TierSum::Result() const {
  Cost c;
  c.time = total;
  c.busy = busy;
  double most = -1;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] > most && part[i] > 0) {
      most = part[i];
      c.tier = static_cast<int>(i);
    }
  }
  return c;
}

double Eta(const TierSpec& tier, double bytes) {
  const double half = tier.half_bandwidth_bytes.value();
  if (bytes <= 0 || half <= 0) return tier.efficiency;
  return tier.efficiency * bytes / (bytes + half);
}

double TierRate(const TierSpec& tier) {
  const double o = tier.oversubscription > 1.0 ? tier.oversubscription : 1.0;
  return tier.bandwidth.value() / o;
}

double InnerRate(const TierSpec& tier, double m) {
  if (tier.kind == TierKind::kMesh && tier.size > 1) {
    return TierRate(tier) * (m - 1) / static_cast<double>(tier.size - 1);
  }
  return TierRate(tier);
}

Tiers ClusterTiers(const ClusterSpec& cluster) {
  Tiers t;
  const size_t n = std::min<size_t>(cluster.tiers.size(), kMaxCollectiveTiers);
  for (size_t i = 0; i < n; ++i) t.level[i] = &cluster.tiers[i];
  return t;
}

Cost Ring(const ClusterSpec& cluster, const Layout& layout, int base, double traffic, double msg,
          int phases) {
  return Ring(ClusterTiers(cluster), layout, base, traffic, msg, phases);
}

Cost Ring(const Tiers& tiers, const Layout& layout, int base, double traffic, double msg,
          int phases) {
  if (layout.n <= 1 || layout.top < base) return Cost{0.0, -1};
  const double steps = (layout.n - 1) / layout.n;
  // Ring edges whose highest crossed tier is i: c_i = (f_i - 1) * prod_{j>i} f_j.
  double above = 1;
  std::array<double, kMaxCollectiveTiers> edges{};
  for (int i = layout.top; i >= base; --i) {
    const auto u = static_cast<size_t>(i);
    edges[u] = (layout.fanout[u] - 1) * above;
    above *= layout.fanout[u];
  }
  double latency = 0, slowest = 0;
  int limit = -1;
  PerTier busy{};
  for (int i = base; i <= layout.top; ++i) {
    const auto u = static_cast<size_t>(i);
    if (layout.fanout[u] <= 1) continue;
    const TierSpec& t = tiers[u];
    // Each unit below crosses tier i through its own members' links.
    const double rate =
        i == 0 ? InnerRate(t, layout.members[0]) : layout.members[u - 1] * TierRate(t);
    const double bw_time = phases * steps * traffic / (rate * Eta(t, msg / layout.n));
    latency += phases * edges[u] * t.latency.value();
    busy[u] = bw_time;
    if (bw_time > slowest || limit < 0) {
      slowest = bw_time;
      limit = i;
    }
  }
  return Cost{latency + slowest, limit, busy};
}

void Consider(Cost candidate, CollectiveAlgorithm algorithm, CollectiveAlgorithm force, Cost* best,
              CollectiveAlgorithm* best_algorithm) {
  if (force != CollectiveAlgorithm::kNone && force != algorithm) return;
  if (candidate.time < best->time) {
    *best = candidate;
    *best_algorithm = algorithm;
  }
}

}  // namespace collective_internal

PreparedGroup PrepareGroup(const ClusterSpec& cluster, RankGroup group) {
  return PreparedGroup{group, ci::MakeLayout(cluster, group)};
}

CollectiveCost EstimateCollective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                                  const PreparedGroup& prepared, const CollectiveOptions& options) {
  CollectiveCost out;
  const RankGroup group = prepared.group;
  if (group.size <= 1 || bytes.value() <= 0) return out;  // nothing to move
  if (cluster.tiers.empty()) {
    out.time = Seconds(ci::kInf);
    return out;
  }
  const ci::Layout& layout = prepared.layout;
  CollectiveAlgorithm algorithm = options.force;
  const ci::Cost cost =
      cluster.tiers[0].kind == TierKind::kTorus
          ? ci::BestTorus(cluster, op, bytes.value(), group, layout, options, &algorithm)
          : ci::BestSwitched(cluster, op, bytes.value(), layout, options, &algorithm);
  out.time = Seconds(cost.time);
  out.algorithm = algorithm;
  out.limiting_tier = cost.tier;
  for (size_t i = 0; i < out.busy.size(); ++i) out.busy[i] = Seconds(cost.busy[i]);
  if (cost.time > 0 && std::isfinite(cost.time)) {
    out.algbw = bytes / out.time;
    out.busbw = out.algbw * BusBandwidthFactor(op, group.size);
  }
  return out;
}

CollectiveCost EstimateCollective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                                  RankGroup group, const CollectiveOptions& options) {
  if (group.size <= 1 || bytes.value() <= 0) return {};  // nothing to move
  if (cluster.tiers.empty())
    return EstimateCollective(cluster, op, bytes, PreparedGroup{group, {}}, options);
  return EstimateCollective(cluster, op, bytes, PrepareGroup(cluster, group), options);
}

std::vector<int64_t> MembersPerTier(const ClusterSpec& cluster, RankGroup group) {
  const ci::Layout layout = ci::MakeLayout(cluster, group);
  std::vector<int64_t> out(static_cast<size_t>(layout.num_tiers));
  for (int i = 0; i < layout.num_tiers; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int64_t>(layout.members[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace occam
