// Property tests over random collectives (seeded, so every run checks the
// same cases) on the catalog clusters: a collective never gets slower when
//   - any tier gets more bandwidth,
//   - every tier gets lower latency,
//   - the fast switched domain grows around the same group (a non-blocking
//     switch gives any subset of its unit the full per-chip rate, doc/hardware.md
//     § 7.1-7.2, so a larger unit can only take traffic off the slower tiers):
//     checked for every collective, and apart for the all-peers all-to-all
//     at training sizes.
// Mesh domains are left out of the last one: a mesh of the same per-chip
// bandwidth spreads it over more, thinner pair links (doc/hardware.md § 7.4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "occam/collective.h"
#include "occam/spec.h"

namespace occam {
namespace {

struct CollectiveCase {
  ClusterSpec cluster;
  CollectiveOp op = CollectiveOp::kAllReduce;
  double bytes = 0;
  RankGroup group;
  CollectiveOptions options;
};

std::string Describe(const CollectiveCase& c) {
  return std::string(CollectiveOpName(c.op)) + " of " + std::to_string(c.bytes) + " B over (" +
         std::to_string(c.group.size) + ", " + std::to_string(c.group.stride) + ") on " +
         c.cluster.name + " x" + std::to_string(c.cluster.num_chips) +
         " top_k=" + std::to_string(c.options.top_k) +
         " max_units=" + std::to_string(c.options.max_units_per_token);
}

// Random ops, sizes (1 KiB .. 4 GiB), power-of-two groups and routing options
// on catalog clusters of 8 .. 1024 chips.
std::vector<CollectiveCase> Cases() {
  std::vector<CollectiveCase> out;
  std::mt19937_64 rng(20261201);
  auto range = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const std::vector<std::string> names = CatalogClusterNames();
  constexpr CollectiveOp kOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                                   CollectiveOp::kAllGather, CollectiveOp::kAllToAll,
                                   CollectiveOp::kBroadcast, CollectiveOp::kSendRecv};
  for (int draw = 0; draw < 3000 && !names.empty(); ++draw) {
    CollectiveCase c;
    const std::string& name = names[static_cast<size_t>(range(0, names.size() - 1))];
    Result<ClusterSpec> cluster = CatalogCluster(name, int64_t{1} << range(3, 10));
    if (!cluster.ok()) continue;
    c.cluster = *std::move(cluster);
    c.op = kOps[range(0, 5)];
    c.bytes = std::ldexp(1.0, static_cast<int>(range(10, 32)));
    const int64_t chips = c.cluster.num_chips;
    c.group.size = int64_t{1} << range(1, 10);
    c.group.stride = int64_t{1} << range(0, 6);
    if (c.group.size * c.group.stride > chips) continue;
    if (c.op == CollectiveOp::kAllToAll && range(0, 1) == 1) {
      c.options.top_k = range(1, 8);
      if (range(0, 1) == 1) c.options.max_units_per_token = range(1, 4);
      c.options.imbalance = 1.0 + static_cast<double>(range(0, 50)) / 100.0;
    }
    out.push_back(std::move(c));
  }
  return out;
}

double Time(const ClusterSpec& cluster, const CollectiveCase& c) {
  return EstimateCollective(cluster, c.op, Bytes(c.bytes), c.group, c.options).time.value();
}

void ExpectNotSlower(const CollectiveCase& c, const ClusterSpec& faster, const std::string& what) {
  const double base = Time(c.cluster, c);
  const double fast = Time(faster, c);
  ASSERT_TRUE(std::isfinite(base) && std::isfinite(fast)) << Describe(c);
  EXPECT_LE(fast, base * (1 + 1e-12)) << what << " made it slower: " << Describe(c);
}

TEST(CollectiveMonotone, EnoughRandomCases) { EXPECT_GE(Cases().size(), size_t{800}); }

TEST(CollectiveMonotone, MoreBandwidthOnAnyTierNeverMakesItSlower) {
  for (const CollectiveCase& c : Cases()) {
    for (size_t i = 0; i < c.cluster.tiers.size(); ++i) {
      ClusterSpec faster = c.cluster;
      faster.tiers[i].bandwidth = faster.tiers[i].bandwidth * 2;
      ExpectNotSlower(c, faster, "2x bandwidth on " + c.cluster.tiers[i].name);
    }
  }
}

TEST(CollectiveMonotone, LowerLatencyNeverMakesItSlower) {
  for (const CollectiveCase& c : Cases()) {
    ClusterSpec faster = c.cluster;
    for (TierSpec& t : faster.tiers) t.latency = t.latency * 0.5;
    ExpectNotSlower(c, faster, "half the latency");
  }
}

// `c` and the same cluster with its switched domain doubled (8 -> 16, 72 ->
// 144 ...) while the next tier still holds whole units; the group's ranks
// stay the same. nullopt when the cluster has no such domain.
std::optional<ClusterSpec> Doubled(const ClusterSpec& c) {
  if (c.tiers.size() < 2 || c.tiers[0].kind != TierKind::kSwitch) return std::nullopt;
  const int64_t size = c.tiers[0].size * 2;
  if (size > c.tiers[1].size || c.tiers[1].size % size != 0) return std::nullopt;
  ClusterSpec larger = c;
  larger.tiers[0].size = size;
  return larger;
}

// With every peer in flight (doc/cost-model.md § 4.7) a larger switched
// domain only moves all-to-all traffic off the slower tiers, for buffers of
// 16 MiB and more (a training micro-batch's dispatch is tens of MB). Smaller
// ones are latency-bound, and the message starts to the extra ranks of a
// larger domain can outnumber the remote units they replace.
TEST(CollectiveMonotone, LargerSwitchedDomainNeverMakesAnAllPeersAllToAllSlower) {
  int checked = 0;
  for (CollectiveCase c : Cases()) {
    if (c.op != CollectiveOp::kAllToAll || c.bytes < 16777216) continue;
    for (TierSpec& t : c.cluster.tiers) t.alltoall_all_peers = true;
    const std::optional<ClusterSpec> larger = Doubled(c.cluster);
    if (!larger) continue;
    ExpectNotSlower(c, *larger, "a domain of " + std::to_string(larger->tiers[0].size));
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

// Every collective. The split unit's sub-unit schedules (doc/cost-model.md
// § 4.6.1) close the breaks of the pairwise all-to-all and of the small
// all-reduce / all-gather (the tree's chain and the single ring's per-step
// efficiency growing with m_0); the last one, a latency-bound expert
// all-to-all (2 KB over (8, 2) on h800 x32, top_k = 5) that charged the two
// tier-0 levels' fixed per-transfer costs one after the other, is closed by
// letting one level's bytes flow while the other's transfers start (§ 4.6.1).
TEST(CollectiveMonotone, LargerSwitchedDomainNeverMakesItSlower) {
  int checked = 0;
  for (const CollectiveCase& c : Cases()) {
    const std::optional<ClusterSpec> larger = Doubled(c.cluster);
    if (!larger) continue;
    ExpectNotSlower(c, *larger, "a larger domain");
    ++checked;
  }
  EXPECT_GE(checked, 300);
}

}  // namespace
}  // namespace occam
