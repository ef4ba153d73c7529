// Collectives on switched (NVLink / NVL72), mesh (AMD Infinity Fabric) and
// fat-tree / DCN tiers: ring, double binary tree, NVLS, hierarchical,
// direct. Sources: doc/cost-model.md § 4.3-4.6.
//
// Symbols as in collective_internal.h; m = m_0 (members per innermost unit).
#include <algorithm>
#include <cmath>

#include "cost/collective_internal.h"

namespace occam::collective_internal {
namespace {

// The group's innermost part alone: m_0 members on tier 0.
Layout Inner(const Layout& layout) {
  Layout in = layout;
  in.n = layout.members[0];
  in.top = layout.members[0] > 1 ? 0 : -1;
  return in;
}

// Double binary tree (NCCL Tree; doc/hardware.md § 7.1): chain inside the
// innermost unit, binary trees above; up then down, so latency
// 2 * ((m-1) alpha_0 + sum_{i>0} ceil(log2 f_i) alpha_i) and each rank moves
// about 2 S per direction over the slowest tier. Tree pipelines fixed chunks
// through the levels, so its efficiency is taken at S (not S / n).
Cost Tree(const Tiers& tiers, const Layout& layout, double bytes) {
  double latency = 0, slowest = 0;
  int limit = -1;
  PerTier busy{};
  for (int i = 0; i <= layout.top; ++i) {
    const auto u = static_cast<size_t>(i);
    if (layout.fanout[u] <= 1) continue;
    const TierSpec& t = tiers[u];
    const double hops = i == 0 ? layout.fanout[0] - 1 : std::ceil(std::log2(layout.fanout[u]));
    latency += 2 * hops * t.latency.value();
    const double rate =
        i == 0 ? InnerRate(t, layout.members[0]) : layout.members[u - 1] * TierRate(t);
    const double bw_time = 2 * bytes / (rate * Eta(t, bytes));
    busy[u] = bw_time;
    if (bw_time > slowest || limit < 0) {
      slowest = bw_time;
      limit = i;
    }
  }
  return Cost{latency + slowest, limit, busy};
}

// NVLink SHARP all-reduce (doc/hardware.md § 4.2, § 7.1): the switch reduces and
// multicasts, each chip sends S + S/m and receives S/m + S, so
// T = 2 alpha_0 + (1 + 1/m) S / (eta_nvls(S) B_0). Across units (NVLS-tree)
// the m reduced shards of S/m each run a ring all-reduce across.
Cost Nvls(const Tiers& tiers, const Layout& layout, double bytes) {
  const TierSpec& t = tiers[0];
  const double m = layout.members[0];
  if (t.kind != TierKind::kSwitch || !t.in_network_reduction || t.in_network_efficiency <= 0 ||
      m <= 1) {
    return Cost{};
  }
  const double half = t.half_bandwidth_bytes.value();
  const double chunk = bytes / m;  // each chip reduces and multicasts one S/m shard
  const double eta = t.in_network_efficiency * (half > 0 ? chunk / (chunk + half) : 1.0);
  TierSum sum;
  const double inside = (1 + 1 / m) * bytes / (TierRate(t) * eta);
  sum.Add(0, 2 * t.latency.value() + inside, inside);
  if (layout.top >= 1) sum.Add(Ring(tiers, Across(layout), 1, bytes / m, bytes / m, 2));
  return sum.Result();
}

// Reduce-scatter (or all-gather) inside the innermost unit, the collective on
// the S/m shard across units, all-gather inside (doc/hardware.md § 7.3).
// `inner_phases`: 2 for all-reduce (RS + AG inside), 1 for RS or AG.
Cost Hierarchical(const Tiers& tiers, const Layout& layout, double bytes, int phases) {
  const double m = layout.members[0];
  if (m <= 1 || layout.top < 1) return Cost{};
  TierSum sum;
  sum.Add(Ring(tiers, Inner(layout), 0, bytes, bytes, 1), phases);
  sum.Add(Ring(tiers, Across(layout), 1, bytes / m, bytes / m, phases));
  return sum.Result();
}

// Send/recv between ranks `stride` apart: one step on the lowest tier that
// holds both; on a mesh a pair shares one link.
Cost SendRecv(const Tiers& tiers, const Layout& layout, double bytes) {
  for (int i = 0; i <= layout.top; ++i) {
    const auto u = static_cast<size_t>(i);
    if (layout.fanout[u] <= 1) continue;
    const TierSpec& t = tiers[u];
    const double rate = i == 0 ? InnerRate(t, 2) : TierRate(t);
    Cost c{0, i};
    c.busy[u] = bytes / (rate * Eta(t, bytes));
    c.time = t.latency.value() + c.busy[u];
    return c;
  }
  return Cost{0, -1};
}

// The group's layout with its m_0 members per tier-0 unit split into virtual
// sub-units of `sub` members: levels [sub, m_0, m_1, ...], the first two both
// on tier 0 (`tiers`). On a non-blocking switch any subset of the unit gets
// the full per-chip rate (doc/hardware.md § 7.1-7.2), so this is the schedule
// a domain of sub-unit size runs, with its steps across sub-units on the
// switch (doc/cost-model.md § 4.6.1).
Layout SplitInner(const Layout& layout, double sub) {
  Layout v;
  v.num_tiers = layout.num_tiers + 1;
  v.n = layout.n;
  v.members[0] = sub;
  v.fanout[0] = sub;
  for (int i = 0; i < layout.num_tiers; ++i) {
    const auto u = static_cast<size_t>(i);
    v.members[u + 1] = layout.members[u];
    v.fanout[u + 1] = i == 0 ? layout.members[0] / sub : layout.fanout[u];
  }
  v.top = layout.top + 1;
  return v;
}

// Level of a layout -> the cluster tier it runs on: a split layout
// (`shift` 1) has one extra level on tier 0. Its two levels' busy times
// count on tier 0 once, the larger: the split schedules cost them as
// running at once (pipelined ring and tree) or one after the other, and
// the larger keeps tier 0's busy time within the call's time either way.
Cost OnCluster(Cost c, int shift) {
  if (c.tier > 0) c.tier -= shift;
  if (shift == 1) {
    c.busy[0] = std::max(c.busy[0], c.busy[1]);
    for (size_t i = 1; i + 1 < c.busy.size(); ++i) c.busy[i] = c.busy[i + 1];
    c.busy.back() = 0;
  }
  return c;
}

// The algorithms whose cost depends on the innermost unit's size (ring and
// send/recv do not: on a split layout they cost the same), run on `layout`
// (the group's own, `shift` 0, or a split one, `shift` 1).
void ConsiderAll(const Tiers& tiers, CollectiveOp op, double bytes, const Layout& layout, int shift,
                 const CollectiveOptions& options, Cost* best, CollectiveAlgorithm* algorithm) {
  const CollectiveAlgorithm force = options.force;
  switch (op) {
    case CollectiveOp::kAllReduce:
      Consider(OnCluster(Tree(tiers, layout, bytes), shift), CollectiveAlgorithm::kTree, force,
               best, algorithm);
      Consider(OnCluster(Nvls(tiers, layout, bytes), shift), CollectiveAlgorithm::kNvls, force,
               best, algorithm);
      Consider(OnCluster(Hierarchical(tiers, layout, bytes, 2), shift),
               CollectiveAlgorithm::kHierarchical, force, best, algorithm);
      break;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      Consider(OnCluster(Hierarchical(tiers, layout, bytes, 1), shift),
               CollectiveAlgorithm::kHierarchical, force, best, algorithm);
      break;
    case CollectiveOp::kAllToAll:
      Consider(OnCluster(AllToAllSwitched(tiers, bytes, layout, options), shift),
               CollectiveAlgorithm::kDirect, force, best, algorithm);
      break;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kSendRecv:
      break;
  }
}

// A larger switched domain can always run a smaller one's schedule: try the
// innermost unit split into sub-units of every power-of-two size below m_0
// (a domain of m/2 may itself have picked its own split, so every power of
// two down to 2 is needed; 1 costs what the unsplit layout costs). Only for
// a switched tier 0 with m_0 >= 4, and not when one algorithm is forced (its
// closed form on the group's own layout is asked for) (doc/cost-model.md § 4.6.1).
void ConsiderSplits(const ClusterSpec& cluster, CollectiveOp op, double bytes, const Layout& layout,
                    const CollectiveOptions& options, Cost* best, CollectiveAlgorithm* algorithm) {
  const double m = layout.members[0];
  if (options.force != CollectiveAlgorithm::kNone || cluster.tiers[0].kind != TierKind::kSwitch ||
      m < 4 || layout.num_tiers >= kMaxCollectiveTiers || op == CollectiveOp::kBroadcast ||
      op == CollectiveOp::kSendRecv) {
    return;
  }
  Tiers tiers;
  tiers.level[0] = &cluster.tiers[0];
  for (int i = 0; i < layout.num_tiers; ++i) {
    tiers.level[static_cast<size_t>(i) + 1] = &cluster.tiers[static_cast<size_t>(i)];
  }
  for (double sub = 2; sub < m; sub *= 2) {
    if (std::fmod(m, sub) != 0) break;
    ConsiderAll(tiers, op, bytes, SplitInner(layout, sub), 1, options, best, algorithm);
  }
}

}  // namespace

Cost BestSwitched(const ClusterSpec& cluster, CollectiveOp op, double bytes, const Layout& layout,
                  const CollectiveOptions& options, CollectiveAlgorithm* algorithm) {
  const CollectiveAlgorithm force = options.force;
  const Tiers tiers = ClusterTiers(cluster);
  Cost best;
  *algorithm = force;
  // A ring confined to a mesh unit talks to every peer directly (RCCL uses
  // all m-1 links): name it "direct".
  const bool mesh_only = cluster.tiers[0].kind == TierKind::kMesh && layout.top == 0;
  const CollectiveAlgorithm ring =
      mesh_only ? CollectiveAlgorithm::kDirect : CollectiveAlgorithm::kRing;
  switch (op) {
    case CollectiveOp::kAllReduce:
      Consider(Ring(tiers, layout, 0, bytes, bytes, 2), ring, force, &best, algorithm);
      break;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      Consider(Ring(tiers, layout, 0, bytes, bytes, 1), ring, force, &best, algorithm);
      break;
    case CollectiveOp::kAllToAll:
      break;
    case CollectiveOp::kBroadcast:
      // Pipelined ring broadcast: every rank forwards all S once.
      Consider(Ring(tiers, layout, 0, bytes * layout.n / (layout.n - 1), bytes, 1),
               CollectiveAlgorithm::kRing, force, &best, algorithm);
      break;
    case CollectiveOp::kSendRecv:
      Consider(SendRecv(tiers, layout, bytes), CollectiveAlgorithm::kDirect, force, &best,
               algorithm);
      break;
  }
  ConsiderAll(tiers, op, bytes, layout, 0, options, &best, algorithm);
  ConsiderSplits(cluster, op, bytes, layout, options, &best, algorithm);
  return best;
}

}  // namespace occam::collective_internal
