// TPU torus collectives against the formulas of "How to Scale Your Model"
// (Sharded Matrices; TPU chapter) as collected in doc/hardware.md § 7.5. The
// expected values are written from those formulas, with ideal efficiency.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cost/collective_test_clusters.h"
#include "occam/collective.h"

namespace occam {
namespace {

using testing::TorusCluster;

constexpr double kLink = 100e9;  // v5p per-link uni (GC_V5P)
constexpr double kHop = 1e-6;    // per-hop latency (SB_SHARD)

ClusterSpec Cube16() { return TorusCluster({16, 16, 16}, {true, true, true}, 100); }

// One wrapped axis of n: T = max((n/2) alpha, (n-1)/n S / (2 B_link)).
double OneAxisGather(double n, double s) {
  return std::max(n / 2 * kHop, (n - 1) / n * s / (2 * kLink));
}

TEST(Torus, AllGatherAlongOneWrappedAxis) {
  const ClusterSpec c = Cube16();
  for (double s : {512e6, 1e5}) {  // bandwidth-bound, then latency-bound
    const auto x = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{16, 1});
    EXPECT_NEAR(x.time.value(), OneAxisGather(16, s), 1e-12) << s;
    EXPECT_EQ(x.algorithm, CollectiveAlgorithm::kTorus);
    // The y axis (stride 16) and z axis (stride 256) are the same rings.
    const auto y = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{16, 16});
    const auto z = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{16, 256});
    EXPECT_DOUBLE_EQ(y.time.value(), x.time.value());
    EXPECT_DOUBLE_EQ(z.time.value(), x.time.value());
  }
}

TEST(Torus, ReduceScatterEqualsGatherAndAllReduceIsTwice) {
  const ClusterSpec c = Cube16();
  const double s = 256e6;
  const auto rs = EstimateCollective(c, CollectiveOp::kReduceScatter, Bytes(s), RankGroup{16, 1});
  const auto ar = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{16, 1});
  EXPECT_NEAR(rs.time.value(), OneAxisGather(16, s), 1e-12);
  EXPECT_NEAR(ar.time.value(), 2 * OneAxisGather(16, s), 1e-12);
}

TEST(Torus, AxisWithoutWraparoundIsALine) {
  // v5e-style 4x4 without wraparound: bandwidth halves, hops become n-1.
  const ClusterSpec c = TorusCluster({4, 4}, {false, false}, 45);
  const double s = 34e6, n = 4, link = 45e9;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{4, 1});
  EXPECT_NEAR(cost.time.value(), std::max((n - 1) * kHop, (n - 1) / n * s / link), 1e-12);
  // A part of a wrapped axis is a line too.
  const ClusterSpec cube = Cube16();
  const auto part = EstimateCollective(cube, CollectiveOp::kAllGather, Bytes(s), RankGroup{8, 1});
  EXPECT_NEAR(part.time.value(), std::max(7 * kHop, 7.0 / 8 * s / kLink), 1e-12);
}

TEST(Torus, SeveralAxesAtOnce) {
  // T_AG = max(alpha sum n_i/2, (N-1)/N S / (d W_axis)), W_axis = 2 B_link.
  const ClusterSpec c = Cube16();
  const double s = 512e6;
  const auto xy = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{256, 1});
  EXPECT_NEAR(xy.time.value(), std::max(16 * kHop, 255.0 / 256 * s / (2 * 2 * kLink)), 1e-12);
  const auto yz = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{256, 16});
  EXPECT_DOUBLE_EQ(yz.time.value(), xy.time.value());
  const auto xyz = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{4096, 1});
  EXPECT_NEAR(xyz.time.value(), 2 * std::max(24 * kHop, 4095.0 / 4096 * s / (3 * 2 * kLink)),
              1e-12);
  // busbw = d * W_axis: 600 GB/s for all three v5p axes (doc/hardware.md § 7.5).
  EXPECT_NEAR(xyz.busbw.value() / 1e9, 600, 600 * 0.01);
}

TEST(Torus, AllToAllIsBisectionBound) {
  const ClusterSpec c = Cube16();
  const double b = 64e6;
  // One ring axis of k: T = k b / (8 B_link) (+ hops latency).
  const auto ring = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{16, 1});
  EXPECT_NEAR(ring.time.value(), 8 * kHop + 16 * b / (8 * kLink), 1e-12);
  // Full 3D torus: k_max b / (8 B_link): v5p 16^3 ~ b / (50 GB/s).
  const auto all = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{4096, 1});
  EXPECT_NEAR(all.time.value(), 24 * kHop + b / 50e9, 1e-12);
}

TEST(Torus, MultisliceAllReduceIsHierarchicalOverDcn) {
  // 2 slices of 16x16x16 over DCN at 6.25 GB/s per chip (doc/hardware.md § 7.5):
  // RS + AG inside the slice, ring all-reduce of S / N_slice across.
  const ClusterSpec c = TorusCluster({16, 16, 16}, {true, true, true}, 100, 2, 6.25);
  const double s = 1e9, n_slice = 4096, slices = 2;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{8192, 1});
  const double inside = 2 * std::max(24 * kHop, 4095.0 / 4096 * s / (6 * kLink));
  const double across =
      2 * (slices - 1) * 10e-6 + 2 * (slices - 1) / slices * (s / n_slice) / 6.25e9;
  EXPECT_NEAR(cost.time.value(), inside + across, 1e-12);
  EXPECT_EQ(cost.algorithm, CollectiveAlgorithm::kHierarchical);
  // A group with one chip per slice is a plain DCN ring.
  const auto dp = EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{2, 4096});
  EXPECT_EQ(dp.algorithm, CollectiveAlgorithm::kRing);
  EXPECT_EQ(dp.limiting_tier, 1);
  EXPECT_NEAR(dp.time.value(), 2 * 10e-6 + s / 6.25e9, 1e-12);
}

TEST(Torus, StridedGroupsShareLinks) {
  // Stride 2 along x: two interleaved rings of 8 share every link.
  const ClusterSpec c = Cube16();
  const double s = 512e6;
  const auto cost = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{8, 2});
  EXPECT_NEAR(cost.time.value(), std::max(8 * kHop, 7.0 / 8 * s / (2 * kLink / 2)), 1e-12);
}

TEST(Torus, SendRecvToANeighbour) {
  const ClusterSpec c = Cube16();
  const auto x = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(1e8), RankGroup{2, 1});
  EXPECT_NEAR(x.time.value(), kHop + 1e8 / kLink, 1e-12);
  // Ranks 16 * 8 apart sit half way round y: 8 hops.
  const auto far = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(1e8), RankGroup{2, 128});
  EXPECT_NEAR(far.time.value(), 8 * kHop + 1e8 / kLink, 1e-12);
}

// Compact mapping (TorusMapping::kCompact): the axes' factors interleaved, so
// an aligned group of 64 on 16^3 is a 4x4x4 cube of lines, not 16x4.
RankGroup Compact(int64_t size, int64_t stride) {
  return RankGroup{size, stride, TorusMapping::kCompact};
}

TEST(TorusMesh, CompactExpertGroupHalvesTheAllToAll) {
  const ClusterSpec c = Cube16();
  const double b = 64e6;
  // Linear: x a ring of 16 (16 b / (8 B_link)), y a line of 4 (4 b / (4 B_link));
  // hops 16/2 + 3.
  const auto linear = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), RankGroup{64, 1});
  EXPECT_NEAR(linear.time.value(), 11 * kHop + 2 * b / kLink, 1e-12);
  // Compact: three lines of 4, each 4 b / (4 B_link); hops 3 * 3.
  const auto cube = EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), Compact(64, 1));
  EXPECT_NEAR(cube.time.value(), 9 * kHop + b / kLink, 1e-12);
}

TEST(TorusMesh, CompactGroupKeepsTheGatherBandwidth) {
  // Linear 16x4: one ring (2 B_link) and one line (B_link); compact 4x4x4: three
  // lines. Both sum to 3 B_link; only the hop count differs (11 against 9).
  const ClusterSpec c = Cube16();
  const double s = 512e6;
  const double bw = 63.0 / 64 * s / (3 * kLink);
  EXPECT_NEAR(
      EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{64, 1}).time.value(), bw,
      1e-12);
  EXPECT_NEAR(
      EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), Compact(64, 1)).time.value(), bw,
      1e-12);
}

TEST(TorusMesh, TheOuterGroupOfACompactLayoutIsSparser) {
  // The 64 groups of stride 64: compact, each axis a ring of 4 ranks 4 hops apart
  // (4 interleaved rings share a link: W = 2 B_link / 4 per axis, sum 1.5 B_link);
  // linear, y a ring of 4 spaced 4 and z a whole ring of 16 (sum 2.5 B_link).
  const ClusterSpec c = Cube16();
  const double s = 512e6;
  const auto compact = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), Compact(64, 64));
  EXPECT_NEAR(compact.time.value(), 63.0 / 64 * s / (1.5 * kLink), 1e-12);
  const auto linear = EstimateCollective(c, CollectiveOp::kAllGather, Bytes(s), RankGroup{64, 64});
  EXPECT_NEAR(linear.time.value(), 63.0 / 64 * s / (2.5 * kLink), 1e-12);
}

TEST(TorusMesh, SendRecvDistanceFollowsTheMapping) {
  const ClusterSpec c = Cube16();
  // Rank 8: linear x = 8 (8 hops round the ring); compact, 8 = 2^3 is x's second
  // factor of 2, so x = 2 (2 hops).
  const auto linear = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(1e8), RankGroup{2, 8});
  EXPECT_NEAR(linear.time.value(), 8 * kHop + 1e8 / kLink, 1e-12);
  const auto compact = EstimateCollective(c, CollectiveOp::kSendRecv, Bytes(1e8), Compact(2, 8));
  EXPECT_NEAR(compact.time.value(), 2 * kHop + 1e8 / kLink, 1e-12);
}

TEST(TorusMesh, SwitchedTiersIgnoreTheMapping) {
  const ClusterSpec c = testing::TorusCluster({16, 16, 16}, {true, true, true}, 100, 2, 6.25);
  // Across slices (stride 4096) the group is on the data-center network only.
  const double s = 1e9;
  EXPECT_DOUBLE_EQ(
      EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), RankGroup{2, 4096}).time.value(),
      EstimateCollective(c, CollectiveOp::kAllReduce, Bytes(s), Compact(2, 4096)).time.value());
}

TEST(TorusMesh, AnAnswerDoesNotDependOnTheToriAskedBefore) {
  // The compact mapping's digits are remembered per thread and torus. On
  // 4x4x4 the compact 64-group is the whole torus: three wrapped rings of 4,
  // each b 4 / (4 * 2 B_link), 4/2 hops each. 6x6x6 (digits 2, 2, 2, 3, ...),
  // asked before and after, must not lend it its digits, nor take 4x4x4's.
  const ClusterSpec four = TorusCluster({4, 4, 4}, {true, true, true}, 100);
  const ClusterSpec six = TorusCluster({6, 6, 6}, {true, true, true}, 100);
  const double b = 64e6;
  const auto cube = [&](const ClusterSpec& c) {
    return EstimateCollective(c, CollectiveOp::kAllToAll, Bytes(b), Compact(64, 1)).time.value();
  };
  const double before = cube(six);
  EXPECT_NEAR(cube(four), 6 * kHop + b / (2 * kLink), 1e-12);
  EXPECT_EQ(cube(six), before);
}

}  // namespace
}  // namespace occam
