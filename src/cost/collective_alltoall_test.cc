// All-to-all: the uniform closed form of doc/hardware.md § 7.3 and the DeepEP
// H800 dispatch measurements of doc/hardware.md § 4.3 (DEEPEP).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cost/collective_test_clusters.h"
#include "occam/collective.h"

namespace occam {
namespace {

using testing::IdealTier;

TEST(AllToAll, UniformMatchesClosedForm) {
  ClusterSpec c;
  c.name = "ideal";
  c.num_chips = 32;
  c.tiers = {IdealTier("node", TierKind::kSwitch, 8, 400, 2.0),
             IdealTier("net", TierKind::kFatTree, 32, 50, 5.0)};
  const double b = 256e6, n = 32, g = 8;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{32, 1});
  // T = alpha0 + alpha1 + max(b (g-1)/N / B0, b (N-g)/N / B1).
  const double expected = 2e-6 + 5e-6 + std::max(b * (g - 1) / n / 400e9, b * (n - g) / n / 50e9);
  EXPECT_NEAR(cost.time.value(), expected, 1e-12);
  EXPECT_EQ(cost.algorithm, CollectiveAlgorithm::kDirect);
  EXPECT_EQ(cost.limiting_tier, 1);
  CollectiveOptions skew;
  skew.imbalance = 1.3;
  const auto hot = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{32, 1}, skew);
  EXPECT_NEAR(hot.time.value(), 7e-6 + 1.3 * (expected - 7e-6), 1e-12);
}

TEST(AllToAll, NodeLimitedRoutingCutsNetworkBytes) {
  const ClusterSpec c = testing::H800Cluster(256);
  CollectiveOptions free_routing;
  free_routing.top_k = 8;
  CollectiveOptions limited = free_routing;
  limited.max_units_per_token = 4;
  const Bytes b(4096.0 * 8 * 7168);
  const auto a = EstimateCollective(c, CollectiveOp::kAllToAll, b, RankGroup{256, 1}, free_routing);
  const auto l = EstimateCollective(c, CollectiveOp::kAllToAll, b, RankGroup{256, 1}, limited);
  EXPECT_EQ(l.limiting_tier, 1);
  // Distinct nodes per token: 32 (1 - (31/32)^8) = 7.2 vs 4 (1 - (3/4)^8) = 3.6.
  const double ratio = (32 * (1 - std::pow(31.0 / 32, 8)) * 31 / 32) / (3.6 * 31 / 32);
  EXPECT_GT(a.time.value() / l.time.value(), 0.8 * ratio);
}

// DeepEP V1 normal kernels on H800 (DeepSeek-V3 setting): 4096 tokens per
// rank, hidden 7168, top-8 of 256 experts, FP8 dispatch with one 4-byte scale
// per 128 values, top-4 nodes (groups = nodes).
constexpr double kTokens = 4096, kHidden = 7168, kTopK = 8;
constexpr double kBytesPerValue = 1.0 + 4.0 / 128;

CollectiveCost Dispatch(int64_t ep) {
  const ClusterSpec c = testing::H800Cluster(ep);
  CollectiveOptions o;
  o.top_k = static_cast<int64_t>(kTopK);
  o.max_units_per_token = 4;
  const Bytes buffer(kTokens * kTopK * kHidden * kBytesPerValue);
  return EstimateCollective(c, CollectiveOp::kAllToAll, buffer, RankGroup{ep, 1}, o);
}

// Expected distinct targets of a token whose k picks are uniform over `of`.
double Distinct(double of, double k) { return of * (1 - std::pow(1 - 1 / of, k)); }

TEST(AllToAll, DeepEpIntranodeDispatch) {
  // DeepEP reports NVLink bytes received per rank (one copy per distinct
  // destination rank, own rank included) / time: 153 GB/s at EP8.
  const auto cost = Dispatch(8);
  EXPECT_EQ(cost.limiting_tier, 0);
  const double bytes = kTokens * Distinct(8, kTopK) * kHidden * kBytesPerValue;
  EXPECT_NEAR(bytes / cost.time.value() / 1e9, 153, 153 * 0.15);
}

// DeepEP's RDMA figure counts one copy per distinct destination node, the
// local node included (tests/test_internode.py), divided by time.
double RdmaGbps(int64_t ep) {
  const auto cost = Dispatch(ep);
  const double nodes = static_cast<double>(ep) / 8;
  const double distinct = Distinct(std::min(4.0, nodes), kTopK);
  return kTokens * distinct * kHidden * kBytesPerValue / cost.time.value() / 1e9;
}

TEST(AllToAll, DeepEpInternodeDispatch) {
  EXPECT_NEAR(RdmaGbps(32), 58, 58 * 0.15);
  EXPECT_NEAR(RdmaGbps(64), 51, 51 * 0.15);
  // EP16 (2 nodes) is bound by forwarding inside the node in this model;
  // it lands 15-20% above the measured 43 GB/s (doc/cost-model.md § 4.7).
  EXPECT_NEAR(RdmaGbps(16), 43, 43 * 0.20);
  EXPECT_EQ(Dispatch(16).limiting_tier, 0);
  EXPECT_EQ(Dispatch(32).limiting_tier, 1);
}

// HybridEP on one GB200 NVL72 rack (deepseek-ai/DeepEP docs/README_Hybrid-EP.md,
// "GB200 Platform"): 4096 tokens per rank, hidden 7168, top-8 of 8 experts per
// rank chosen uniformly without replacement, BF16 dispatch; kernel-only time,
// 32 SMs. The figure counts the rows a rank receives (one per token with an
// expert on it, its own tokens included; tests/test_hybrid_ep.py) x hidden x
// 2 bytes / time.
struct HybridEpPoint {
  int64_t ranks;
  double gbps;
};
constexpr HybridEpPoint kHybridEpGb200[] = {
    {8, 764.03}, {16, 706.95}, {24, 665.97}, {32, 642.23}, {36, 632.31}};

// Rows a rank receives: n source ranks x tokens x P(a token has one of the
// rank's 8 experts) = 1 - C(E-8, k) / C(E, k), E = 8 n.
double HybridEpRows(int64_t ranks) {
  const double experts = 8.0 * static_cast<double>(ranks);
  double miss = 1;
  for (int j = 0; j < static_cast<int>(kTopK); ++j) miss *= (experts - 8 - j) / (experts - j);
  return static_cast<double>(ranks) * kTokens * (1 - miss);
}

double HybridEpModelGbps(const ClusterSpec& c, int64_t ranks) {
  CollectiveOptions o;
  o.top_k = static_cast<int64_t>(kTopK);
  const Bytes buffer(kTokens * kTopK * kHidden * 2);
  const auto cost = EstimateCollective(c, CollectiveOp::kAllToAll, buffer, RankGroup{ranks, 1}, o);
  return HybridEpRows(ranks) * kHidden * 2 / cost.time.value() / 1e9;
}

TEST(AllToAll, HybridEpNvl72DispatchWithinTenPercent) {
  const ClusterSpec c = testing::Nvl72Cluster();
  for (const auto& p : kHybridEpGb200) {
    EXPECT_NEAR(HybridEpModelGbps(c, p.ranks), p.gbps, p.gbps * 0.10) << "EP" << p.ranks;
  }
  // The fall from 8 to 36 ranks: 632 / 764 = 0.83 measured.
  const double measured = kHybridEpGb200[4].gbps / kHybridEpGb200[0].gbps;
  EXPECT_NEAR(HybridEpModelGbps(c, 36) / HybridEpModelGbps(c, 8), measured, 0.05);
}

// The pairwise kernel (one pipeline per peer, efficiency at one peer's share)
// pays the fixed transfer cost once per peer: on the same rack it misses the
// measured EP36 figure by more than 10% and falls faster than measured.
TEST(AllToAll, PairwiseKernelCollapsesInsideNvl72) {
  ClusterSpec c = testing::Nvl72Cluster();
  c.tiers[0].alltoall_all_peers = false;
  EXPECT_LT(HybridEpModelGbps(c, 36), kHybridEpGb200[4].gbps * 0.9);
  EXPECT_LT(HybridEpModelGbps(c, 36) / HybridEpModelGbps(c, 8),
            kHybridEpGb200[4].gbps / kHybridEpGb200[0].gbps - 0.05);
}

// Inside one switched unit the pairwise kernel may also run as two levels of
// virtual sub-units (doc/cost-model.md § 4.6.1), both on the unit's links.
// They share the links' bandwidth, while one level's bytes flow during the
// other's per-transfer starts: a level of p peers and v bytes has wire time
// W = v / (e B) and own time v / (B eta(v / p)); two levels on one link take
// max(min(own - W) + W_1 + W_2, own_1, own_2). The collective is the fastest
// of the unsplit layout and the splits s = 2, 4 of 8 ranks.
TEST(AllToAll, SplitUnitLevelsShareTheLinksButNotTheirStarts) {
  ClusterSpec c = testing::Nvl72Cluster();
  c.tiers[0].alltoall_all_peers = false;
  const TierSpec& t = c.tiers[0];
  const double rate = t.bandwidth.value(), e = t.efficiency, half = t.half_bandwidth_bytes.value();
  const double alpha = t.latency.value(), b = 1e6, n = 8;
  const auto own = [&](double v, double peers) {
    const double x = v / peers;
    return v / (rate * e * x / (x + half));
  };
  const auto wire = [&](double v) { return v / (rate * e); };
  double expected = alpha + own(b * (n - 1) / n, n - 1);
  const double unsplit = expected;
  for (double s : {2.0, 4.0}) {
    const double v1 = b * (s - 1) / n, v2 = b * (n - s) / n;
    const double o1 = own(v1, s - 1), o2 = own(v2, n - s);
    const double start = std::min(o1 - wire(v1), o2 - wire(v2));
    const double split = 2 * alpha + std::max({start + wire(v1) + wire(v2), o1, o2});
    expected = std::min(expected, split);
  }
  ASSERT_LT(expected, unsplit);  // the case exercises a split layout
  const auto cost = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{8, 1});
  EXPECT_NEAR(cost.time.value(), expected, expected * 1e-12);
}

// A switched domain is non-blocking: with every peer in flight a uniform
// all-to-all over n ranks moves b (n-1)/n per rank at the tier's rate, its
// efficiency taken at that whole volume, plus one message start per peer.
TEST(AllToAll, AllPeersUniformIsLinkBoundWithPerPeerStarts) {
  const ClusterSpec c = testing::Nvl72Cluster();
  const TierSpec& t = c.tiers[0];
  const double b = 256e6;
  for (int64_t n : {8, 36, 72}) {
    const double nn = static_cast<double>(n);
    const double moved = b * (nn - 1) / nn;
    const double eta = t.efficiency * moved / (moved + t.half_bandwidth_bytes.value());
    const double expected = (nn - 1) * t.latency.value() + moved / (eta * t.bandwidth.value());
    const auto cost = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{n, 1});
    EXPECT_NEAR(cost.time.value(), expected, expected * 1e-12) << n;
  }
}

}  // namespace
}  // namespace occam
