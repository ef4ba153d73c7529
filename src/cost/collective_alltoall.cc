// All-to-all on switched / mesh / fat-tree tiers: uniform, and expert
// dispatch with top-k routing and node-limited routing (each token reaches at
// most M innermost units, DeepSeek-V3 M = 4), as DeepEP runs it: one copy per
// (token, destination unit) crosses the network, then it is forwarded inside
// the unit to each destination rank. Sources: doc/cost-model.md § 4.7.
//
// Two kernels, chosen per tier (TierSpec::alltoall_all_peers):
// * pairwise (NCCL all-to-all: grouped send/recv, one pipeline per peer): the
//   size-dependent efficiency is taken at one peer's share, so the fixed
//   per-transfer cost is paid once per peer; one alpha per tier;
// * all peers in flight (DeepEP / HybridEP): a rank's transfers to all its
//   peers run at once on a non-blocking switch, so the efficiency is taken at
//   the rank's whole volume on the tier (one pipeline fill per call), and
//   every peer adds one message start (its tier's alpha). HybridEP on GB200
//   NVL72 falls only 17% from 8 to 36 ranks (doc § 4.7).
//
// Levels of a split unit (doc/cost-model.md § 4.6.1) on the same tier share
// its links: their bytes add, and one level's bytes flow while the other's
// transfers start.
//
// Symbols: b bytes of the per-rank send buffer (one copy per routed expert
// when top-k is given); g = m_0 members per innermost unit; U = n / g units;
// k top-k; M' = min(M, U) units a token may use; D expected distinct units per
// token; D_r remote ones; c distinct ranks per (token, unit); lambda
// imbalance (max/mean receive load); p_i peers whose highest crossed tier is i.
#include <algorithm>
#include <cmath>

#include "cost/collective_internal.h"

namespace occam::collective_internal {
namespace {

// Per-rank bytes each tier carries; the peers (ranks or units) they are split
// over (one pairwise transfer is bytes / peers); the peers whose highest
// crossed tier is that tier (one message start each).
struct Traffic {
  std::array<double, kMaxCollectiveTiers> bytes{};
  std::array<double, kMaxCollectiveTiers> peers{};
  std::array<double, kMaxCollectiveTiers> starts{};
};

// Per-rank bytes each tier carries (index = tier), the expert model.
// Experts are spread uniformly; a token picks its k experts uniformly inside
// its M' allowed units, so D = M' (1 - (1 - 1/M')^k) and, by symmetry, a
// fraction (U-1)/U of those units is remote. Inside a unit the j = k/D experts
// sit on c = g (1 - (1 - 1/g)^j) distinct ranks, of which (g-1)/g are not the
// forwarding rank.
void ExpertBytes(const Layout& l, double b, const CollectiveOptions& o, Traffic* traffic) {
  const double g = l.members[0];
  const double units = l.n / g;
  const double k = static_cast<double>(o.top_k);
  double allowed = units;
  if (o.max_units_per_token > 0) {
    allowed = std::min(units, static_cast<double>(o.max_units_per_token));
  }
  const double distinct = allowed * (1 - std::pow(1 - 1 / allowed, k));
  const double remote = distinct * (units - 1) / units;
  const double per_unit = k / distinct;
  const double ranks = g * (1 - std::pow(1 - 1 / g, per_unit));
  const double copy = b / k;
  traffic->bytes[0] = copy * distinct * ranks * (g - 1) / g;
  traffic->peers[0] = g - 1;
  traffic->starts[0] = g - 1;
  for (int i = 1; i <= l.top; ++i) {
    // Remote units outside the rank's tier-(i-1) unit.
    const auto u = static_cast<size_t>(i);
    const double below = l.members[u - 1] / g;
    const double outside = units > 1 ? (units - below) / (units - 1) : 0;
    traffic->bytes[u] = copy * remote * outside;
    traffic->peers[u] = units - below;
    traffic->starts[u] = (l.members[u] - l.members[u - 1]) / g;
  }
}

// Uniform all-to-all: b / n to every rank; traffic leaving the tier-(i-1)
// unit is b (n - m_{i-1}) / n (doc/hardware.md § 7.3).
void UniformBytes(const Layout& l, double b, Traffic* traffic) {
  traffic->bytes[0] = b * (l.members[0] - 1) / l.n;
  traffic->peers[0] = l.members[0] - 1;
  traffic->starts[0] = l.members[0] - 1;
  for (int i = 1; i <= l.top; ++i) {
    const auto u = static_cast<size_t>(i);
    traffic->peers[u] = l.n - l.members[u - 1];
    traffic->bytes[u] = b * traffic->peers[u] / l.n;
    traffic->starts[u] = l.members[u] - l.members[u - 1];
  }
}

}  // namespace

// T = sum_i a_i + lambda * max_i bytes_i / (rate_i * eta_i(x_i)): every
// tier's transfers run at once (pipelined), the slowest tier decides.
// Pairwise: a_i = alpha_i, x_i = bytes_i / peers_i. All peers in flight:
// a_i = starts_i alpha_i (issued one after another), x_i = bytes_i.
Cost AllToAllSwitched(const Tiers& tiers, double bytes, const Layout& layout,
                      const CollectiveOptions& options) {
  Traffic traffic;
  if (options.top_k > 0) {
    ExpertBytes(layout, bytes, options, &traffic);
  } else {
    UniformBytes(layout, bytes, &traffic);
  }
  const double imbalance = std::max(options.imbalance, 1.0);
  double latency = 0, slowest = 0;
  double run_wire = 0, run_start = 0, run_own = 0;  // levels on one tier
  int limit = -1;
  PerTier busy{};
  for (int i = 0; i <= layout.top; ++i) {
    const auto u = static_cast<size_t>(i);
    const TierSpec& t = tiers[u];
    const bool all = t.alltoall_all_peers;
    if (layout.fanout[u] > 1) {
      latency += (all ? std::max(traffic.starts[u], 1.0) : 1.0) * t.latency.value();
    }
    if (traffic.bytes[u] <= 0) continue;
    const double rate = i == 0 ? InnerRate(t, layout.members[0]) : TierRate(t);
    const double chunk =
        all ? traffic.bytes[u] : traffic.bytes[u] / std::max(traffic.peers[u], 1.0);
    // Levels on the same tier (a split unit, collective_switched.cc) share
    // its links. A level's time is its bytes on the wire (bytes / (e * rate))
    // after its fixed per-transfer cost (half / (e * rate) per pipeline,
    // which puts no bytes on the link). Two flows on one link, each released
    // after its fixed cost, end at max(first release + both wires, each
    // flow's own time) (preemptive single-machine makespan with release
    // dates): the link carries one level's bytes while the other's pipelines
    // start, as two tiers do.
    const bool same = i > 0 && tiers.level[u] == tiers.level[u - 1];
    const double own = traffic.bytes[u] / (rate * Eta(t, chunk));
    const double wire = traffic.bytes[u] / (rate * t.efficiency);
    run_wire = (same ? run_wire : 0) + wire;
    run_start = std::min(same ? run_start : own, own - wire);
    run_own = std::max(same ? run_own : 0.0, own);
    const double time = std::max(run_start + run_wire, run_own);
    busy[u] = imbalance * own;
    if (time > slowest || limit < 0) {
      slowest = time;
      limit = i;
    }
  }
  return Cost{latency + imbalance * slowest, limit, busy};
}

}  // namespace occam::collective_internal
