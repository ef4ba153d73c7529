// Collectives on switched, mesh and fat-tree tiers: closed forms and the
// published measurements of doc/hardware.md § 4.2 / § 4.3 (within 15%).
#include "occam/collective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cost/collective_test_clusters.h"

namespace occam {
namespace {

using testing::HgxCluster;
using testing::IdealTier;
using testing::TorusCluster;

constexpr double kGiB = 1073741824.0;

double BusGbps(const CollectiveCost& c) { return c.busbw.value() / 1e9; }

CollectiveOptions Force(CollectiveAlgorithm a) {
  CollectiveOptions o;
  o.force = a;
  return o;
}

// An ideal two-tier cluster: 8-chip switch nodes (B0, alpha0) + NICs (B1, alpha1).
ClusterSpec IdealTwoTier(int64_t chips, double b0, double a0, double b1, double a1) {
  ClusterSpec c;
  c.name = "ideal";
  c.num_chips = chips;
  c.tiers = {IdealTier("node", TierKind::kSwitch, 8, b0, a0),
             IdealTier("net", TierKind::kFatTree, chips, b1, a1)};
  return c;
}

TEST(Collective, RingAllReduceMatchesClosedForm) {
  const ClusterSpec c = IdealTwoTier(8, 400, 2.0, 50, 5.0);
  const double s = 256e6, n = 8;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{8, 1},
                                       Force(CollectiveAlgorithm::kRing));
  // T = 2(n-1) alpha + 2(n-1)/n S / B (doc/hardware.md § 7.1).
  const double expected = 2 * (n - 1) * 2e-6 + 2 * (n - 1) / n * s / 400e9;
  EXPECT_NEAR(cost.time.value(), expected, 1e-12);
  EXPECT_EQ(cost.algorithm, CollectiveAlgorithm::kRing);
  EXPECT_EQ(cost.limiting_tier, 0);
  // nccl-tests: busbw = algbw * 2(n-1)/n, which for a ideal ring tends to B.
  EXPECT_NEAR(cost.busbw.value(), s / expected * 2 * (n - 1) / n, 1e-3);
}

TEST(Collective, RingGatherAndScatterAreHalfAnAllReduce) {
  const ClusterSpec c = IdealTwoTier(8, 400, 2.0, 50, 5.0);
  const double s = 64e6, n = 8;
  const double expected = (n - 1) * 2e-6 + (n - 1) / n * s / 400e9;
  for (CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    const auto cost =
        EstimateCollective(c, op, Bytes(s), RankGroup{8, 1}, Force(CollectiveAlgorithm::kRing));
    EXPECT_NEAR(cost.time.value(), expected, 1e-12) << CollectiveOpName(op);
    EXPECT_NEAR(cost.busbw.value(), s / expected * (n - 1) / n, 1e-3);
  }
}

TEST(Collective, SwitchedNodeRunsASubUnitScheduleWhenFaster) {
  // 8 ranks on one ideal switch: the ring takes 7 alpha; split into sub-units
  // of 2 (or 4), RS/AG inside then across on the same switch takes
  // (2-1) + (4-1) (or (4-1) + (2-1)) = 4 alpha at the same bandwidth term
  // (1/2 + 1/2 * 3/4 = 7/8 of S / B; doc/cost-model.md § 4.6.1).
  const ClusterSpec c = IdealTwoTier(8, 400, 2.0, 50, 5.0);
  const double s = 64e6;
  const double expected = 4 * 2e-6 + 7.0 / 8 * s / 400e9;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{8, 1});
  EXPECT_NEAR(cost.time.value(), expected, 1e-12);
  EXPECT_EQ(cost.algorithm, CollectiveAlgorithm::kHierarchical);
  EXPECT_EQ(cost.limiting_tier, 0);
}

TEST(Collective, OneMemberPerNodeGroupsUseTheirOwnNic) {
  // dp groups with stride 8 (tp fills the node): 4 nodes, one rank each.
  const ClusterSpec c = IdealTwoTier(32, 400, 2.0, 50, 5.0);
  const double s = 512e6, k = 4;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{4, 8},
                                       Force(CollectiveAlgorithm::kRing));
  const double expected = 2 * (k - 1) * 5e-6 + 2 * (k - 1) / k * s / 50e9;
  EXPECT_NEAR(cost.time.value(), expected, 1e-12);
  EXPECT_EQ(cost.limiting_tier, 1);
}

TEST(Collective, FlatRingAcrossNodesUsesEveryMembersNic) {
  // 16 ranks, 8 per node: node egress is 8 NICs, so the ring crossing runs
  // at 8 * B1 and the slower of B0 and 8 * B1 limits it.
  const ClusterSpec c = IdealTwoTier(16, 400, 0, 40, 0);
  const double s = 1e9, n = 16;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{16, 1},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(cost.time.value(), 2 * (n - 1) / n * s / std::min(400e9, 8 * 40e9), 1e-12);
  EXPECT_EQ(cost.limiting_tier, 1);
}

TEST(Collective, HierarchicalMatchesClosedForm) {
  const ClusterSpec c = IdealTwoTier(64, 400, 2.0, 50, 5.0);
  const double s = 1e8, m = 8, k = 8;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{64, 1},
                                       Force(CollectiveAlgorithm::kHierarchical));
  // RS inside + AR of the S/m shard across + AG inside (doc/hardware.md § 7.3, serialized).
  const double inside = (m - 1) * 2e-6 + (m - 1) / m * s / 400e9;
  const double across = 2 * (k - 1) * 5e-6 + 2 * (k - 1) / k * (s / m) / 50e9;
  EXPECT_NEAR(cost.time.value(), 2 * inside + across, 1e-12);
}

TEST(Collective, TreeWinsForSmallMessagesOnManyNodes) {
  const ClusterSpec c = HgxCluster(1024);
  const auto small =
      EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(64e3), RankGroup{128, 8});
  EXPECT_EQ(small.algorithm, CollectiveAlgorithm::kTree);
  const auto ring = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(64e3), RankGroup{128, 8},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_LT(small.time.value(), ring.time.value());
  // Tree latency: 2 ceil(log2 128) alpha_net.
  EXPECT_GT(small.time.value(), 2 * 7 * 4e-6);
}

// doc/hardware.md § 4.2: 8x H100 all-reduce busbw at large messages: ring ~370,
// NVLS 476-480 (466 at 1 GB in the message-size table).
TEST(Collective, H100NodeAllReduceMatchesPublishedBusbw) {
  const ClusterSpec c = HgxCluster(8);
  const auto ring = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(kGiB), RankGroup{8, 1},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(BusGbps(ring), 370, 370 * 0.15);
  const auto best = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(kGiB), RankGroup{8, 1});
  EXPECT_EQ(best.algorithm, CollectiveAlgorithm::kNvls);
  EXPECT_NEAR(BusGbps(best), 478, 478 * 0.15);
  EXPECT_NEAR(BusGbps(best), 466, 466 * 0.15);
}

// doc/hardware.md § 4.2: measured NVLS gain over ring vs #GPUs on 8x H200:
// 1.00 (4) 1.14 (5) 1.19 (6) 1.26 (7) 1.29 (8).
TEST(Collective, NvlsGainFollowsGroupSize) {
  const ClusterSpec c = HgxCluster(8);
  const double gains[] = {1.00, 1.14, 1.19, 1.26, 1.29};
  for (int m = 4; m <= 8; ++m) {
    const RankGroup g{m, 1};
    const double s = 16 * kGiB;
    const auto ring = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), g,
                                         Force(CollectiveAlgorithm::kRing));
    const auto nvls = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), g,
                                         Force(CollectiveAlgorithm::kNvls));
    const double gain = ring.time.value() / nvls.time.value();
    EXPECT_NEAR(gain, gains[m - 4], gains[m - 4] * 0.10) << "m=" << m;
  }
}

TEST(Collective, NvlsDoesNotApplyToGatherOrWithoutSwitchReduction) {
  const ClusterSpec c = HgxCluster(8);
  const auto ag = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(kGiB), RankGroup{8, 1},
                                     Force(CollectiveAlgorithm::kNvls));
  EXPECT_TRUE(std::isinf(ag.time.value()));
  ClusterSpec a100 = HgxCluster(8, 300, 25, 0.78);
  a100.tiers[0].in_network_reduction = false;
  const auto ar = EstimateCollective(a100, CollectiveOp::kAllReduce, Bytes(kGiB), RankGroup{8, 1});
  EXPECT_NE(ar.algorithm, CollectiveAlgorithm::kNvls);
  // 8x A100 ring: 230-235 GB/s measured (doc/hardware.md § 4.2).
  EXPECT_NEAR(BusGbps(ar), 232, 232 * 0.15);
}

// doc/hardware.md § 7.3 / § 7.6: 2+ nodes of 8x H100 on NDR 400G, all-reduce
// busbw ~ min(370, 8 x 46) = 368 GB/s.
TEST(Collective, H100MultiNodeAllReduceMatchesPublishedBusbw) {
  for (int64_t nodes : {2, 4, 16}) {
    const ClusterSpec c = HgxCluster(8 * nodes);
    const auto cost =
        EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(kGiB), RankGroup{8 * nodes, 1});
    EXPECT_NEAR(BusGbps(cost), std::min(370.0, 8 * 46.0), 368 * 0.15) << nodes << " nodes";
  }
}

TEST(Collective, SubNodeGroupsKeepTheFullSwitchRate) {
  // A switched node gives any subset the full per-GPU rate (doc/hardware.md § 2).
  const ClusterSpec c = HgxCluster(8);
  const auto two =
      EstimateCollective(c, CollectiveOp::kAllGather, Bytes(8 * kGiB), RankGroup{2, 1});
  const auto eight =
      EstimateCollective(c, CollectiveOp::kAllGather, Bytes(8 * kGiB), RankGroup{8, 1});
  EXPECT_NEAR(BusGbps(two), BusGbps(eight), BusGbps(eight) * 0.02);
}

// doc/hardware.md § 4.2 / § 7.4: 8x MI300X mesh all-reduce 312.9 GB/s; 2 GPUs 47.7.
TEST(Collective, Mi300xMeshUsesOneLinkPerPair) {
  const ClusterSpec c = testing::Mi300xCluster(8);
  const auto eight =
      EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(16 * kGiB), RankGroup{8, 1});
  EXPECT_EQ(eight.algorithm, CollectiveAlgorithm::kDirect);
  EXPECT_NEAR(BusGbps(eight), 312.9, 312.9 * 0.15);
  const auto two =
      EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(16 * kGiB), RankGroup{2, 1});
  EXPECT_NEAR(BusGbps(two), 47.7, 47.7 * 0.15);
  // B_eff(m) = (m-1) B_link: the ratio is 7 up to the size curve.
  EXPECT_NEAR(BusGbps(eight) / BusGbps(two), 7.0, 0.2);
}

TEST(Collective, OversubscriptionSlowsCrossPodTraffic) {
  const ClusterSpec flat = HgxCluster(4096, 450, 50, 0.82, 1.0, 1024);
  const ClusterSpec oversub = HgxCluster(4096, 450, 50, 0.82, 7.0, 1024);
  const RankGroup dp{512, 8};  // one rank per node, 128 per pod, 4 pods
  // All-to-all is bisection-bound: 3/4 of each rank's buffer leaves the pod
  // at B/o (doc/hardware.md § 3, § 7.3), against all of it at B inside.
  const auto a = EstimateCollective(flat, CollectiveOp::kAllToAll, Bytes(1e9), dp);
  const auto b = EstimateCollective(oversub, CollectiveOp::kAllToAll, Bytes(1e9), dp);
  EXPECT_EQ(a.limiting_tier, 1);
  EXPECT_EQ(b.limiting_tier, 2);
  EXPECT_NEAR(b.time.value() / a.time.value(), (384.0 / 512 * 7) / (511.0 / 512), 0.05);
  // A ring crosses each pod boundary on a few links only (one per channel,
  // up to the 128 members' uplinks): 7:1 above the pods does not slow it.
  EXPECT_DOUBLE_EQ(
      EstimateCollective(flat, CollectiveOp::kAllReduce, Bytes(1e9), dp).time.value(),
      EstimateCollective(oversub, CollectiveOp::kAllReduce, Bytes(1e9), dp).time.value());
}

TEST(Collective, EfficiencyCurveHalvesThePlateauAtTheHalfPoint) {
  ClusterSpec c = IdealTwoTier(8, 400, 0, 50, 0);
  c.tiers[0].efficiency = 0.8;
  c.tiers[0].half_bandwidth_bytes = Bytes(2e6);
  // Ring chunk S/n = 2 MB: eta = 0.8 * 2/(2+2) = 0.4 of B.
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(8 * 2e6), RankGroup{8, 1},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(BusGbps(cost), 0.4 * 400, 1e-6);
  const auto big = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(8 * 2e9), RankGroup{8, 1},
                                      Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(BusGbps(big), 0.8 * 400, 0.8 * 400 * 0.002);
}

TEST(Collective, BroadcastAndSendRecv) {
  const ClusterSpec c = IdealTwoTier(16, 400, 2.0, 50, 5.0);
  const double s = 1e8;
  const auto p2p = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(s), RankGroup{2, 8});
  EXPECT_NEAR(p2p.time.value(), 5e-6 + s / 50e9, 1e-12);
  EXPECT_EQ(p2p.limiting_tier, 1);
  const auto local = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(s), RankGroup{2, 1});
  EXPECT_NEAR(local.time.value(), 2e-6 + s / 400e9, 1e-12);
  EXPECT_DOUBLE_EQ(local.busbw.value(), local.algbw.value());
  // Pipelined ring broadcast inside a node: (n-1) alpha + S / B.
  const auto bc = EstimateCollective(c, CollectiveOp::kBroadcast, Bytes(s), RankGroup{8, 1});
  EXPECT_NEAR(bc.time.value(), 7 * 2e-6 + s / 400e9, 1e-12);
}

TEST(Collective, TrivialCallsCostNothing) {
  const ClusterSpec c = HgxCluster(16);
  const auto one = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(1e9), RankGroup{1, 1});
  EXPECT_EQ(one.time.value(), 0);
  EXPECT_EQ(one.algorithm, CollectiveAlgorithm::kNone);
  EXPECT_EQ(one.limiting_tier, -1);
  const auto empty = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(0), RankGroup{8, 1});
  EXPECT_EQ(empty.time.value(), 0);
}

TEST(Collective, ValidateGroupNamesTheFlag) {
  const ClusterSpec c = HgxCluster(16);
  EXPECT_TRUE(ValidateCollectiveGroup(c, RankGroup{16, 1}, "--group").ok());
  const Status big = ValidateCollectiveGroup(c, RankGroup{16, 2}, "--group-size");
  EXPECT_EQ(big.code(), StatusCode::kInvalidInput);
  EXPECT_NE(big.message().find("--group-size"), std::string::npos);
  EXPECT_FALSE(ValidateCollectiveGroup(c, RankGroup{0, 1}, "--group-size").ok());
  EXPECT_FALSE(ValidateCollectiveGroup(c, RankGroup{4, 0}, "--stride").ok());
}

TEST(Collective, MembersPerTier) {
  const ClusterSpec c = HgxCluster(4096);  // tiers: 8, 1024, 4096
  EXPECT_EQ(MembersPerTier(c, RankGroup{8, 1}), (std::vector<int64_t>{8, 8, 8}));
  EXPECT_EQ(MembersPerTier(c, RankGroup{16, 4}), (std::vector<int64_t>{2, 16, 16}));
  EXPECT_EQ(MembersPerTier(c, RankGroup{512, 8}), (std::vector<int64_t>{1, 128, 512}));
  EXPECT_EQ(MembersPerTier(c, RankGroup{4, 1024}), (std::vector<int64_t>{1, 1, 4}));
}

TEST(Collective, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllToAll, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kBroadcast, 4), 1.0);
}

// Busy time per tier (CollectiveCost::busy): the bandwidth terms of the
// closed forms above, latency excluded, each on the tier that carries it.
TEST(CollectiveBusy, RingInsideOneNodeIsItsBandwidthTerm) {
  const ClusterSpec c = IdealTwoTier(8, 400, 2.0, 50, 5.0);
  const double s = 64e6, n = 8;
  const auto cost = EstimateCollective(c, CollectiveOp::kReduceScatter, Bytes(s), RankGroup{8, 1},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(cost.busy[0].value(), (n - 1) / n * s / 400e9, 1e-15);
  EXPECT_EQ(cost.busy[1].value(), 0.0);
  EXPECT_NEAR(cost.time.value() - cost.busy[0].value(), (n - 1) * 2e-6, 1e-12);
}

TEST(CollectiveBusy, RingAcrossNodesBusiesEveryTierItCrosses) {
  // 64 ranks over 8 nodes: the ring crosses the node switch at 400 GB/s and
  // each node's 8 NICs at 8 x 40 GB/s (doc/hardware.md § 7.1).
  const ClusterSpec c = IdealTwoTier(64, 400, 2.0, 40, 5.0);
  const double s = 64e6, n = 64;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{64, 1},
                                       Force(CollectiveAlgorithm::kRing));
  EXPECT_NEAR(cost.busy[0].value(), (n - 1) / n * s / 400e9, 1e-15);
  EXPECT_NEAR(cost.busy[1].value(), (n - 1) / n * s / (8 * 40e9), 1e-15);
  EXPECT_EQ(cost.limiting_tier, 1);
  EXPECT_LT(cost.busy[1].value(), cost.time.value());
}

TEST(CollectiveBusy, HierarchicalKeepsEachPhaseOnItsTier) {
  const ClusterSpec c = IdealTwoTier(64, 400, 2.0, 50, 5.0);
  const double s = 1e8, m = 8, k = 8;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{64, 1},
                                       Force(CollectiveAlgorithm::kHierarchical));
  // RS and AG inside on the node switch, the shard's all-reduce on the NICs.
  EXPECT_NEAR(cost.busy[0].value(), 2 * (m - 1) / m * s / 400e9, 1e-15);
  EXPECT_NEAR(cost.busy[1].value(), 2 * (k - 1) / k * (s / m) / 50e9, 1e-15);
}

TEST(CollectiveBusy, TorusGatherIsItsLinksBandwidthTerm) {
  // 4x4x4 with wraparound, 100 GB/s links: an all-gather over the cube moves
  // (n-1)/n S over the 6 links of each chip (doc/cost-model.md § 4.5).
  const ClusterSpec c = TorusCluster({4, 4, 4}, {true, true, true}, 100);
  const double s = 1e9, n = 64;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{64, 1});
  EXPECT_NEAR(cost.busy[0].value(), (n - 1) / n * s / (6 * 100e9), 1e-12);
}

TEST(CollectiveBusy, NeverNegativeNorAboveTheTime) {
  const std::vector<ClusterSpec> clusters = {HgxCluster(2048), testing::Nvl72Cluster(144),
                                             testing::Mi300xCluster(64),
                                             TorusCluster({4, 4, 8}, {true, true, false}, 100, 2)};
  int checked = 0;
  for (const ClusterSpec& c : clusters) {
    for (CollectiveOp op :
         {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather,
          CollectiveOp::kAllToAll, CollectiveOp::kBroadcast, CollectiveOp::kSendRecv}) {
      for (double bytes : {4e3, 1e6, 1e9}) {
        for (int64_t size : {2, 8, 16, 64}) {
          for (int64_t stride : {1, 4, 16}) {
            if (size * stride > c.num_chips) continue;
            const RankGroup g{size, stride};
            const CollectiveCost cost = EstimateCollective(c, op, Bytes(bytes), g);
            Seconds most;
            for (Seconds b : cost.busy) {
              EXPECT_GE(b.value(), 0.0) << c.name << " " << CollectiveOpName(op);
              EXPECT_LE(b.value(), cost.time.value() * (1 + 1e-12))
                  << c.name << " " << CollectiveOpName(op) << " " << size << "/" << stride;
              most = Max(most, b);
            }
            EXPECT_GT(most.value(), 0.0) << c.name << " " << CollectiveOpName(op);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 200);
}

}  // namespace
}  // namespace occam
