// EstimateCollective allocates nothing (the planner calls it millions of
// times): count global operator new calls around a batch of calls.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "cost/collective_test_clusters.h"
#include "occam/collective.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace occam {
namespace {

// One cluster of each collective model: switched tiers, an AMD mesh, a torus.
struct Clusters {
  ClusterSpec hgx = testing::HgxCluster(4096, 450, 50, 0.82, 7.0, 1024);
  ClusterSpec mesh = testing::Mi300xCluster(64);
  ClusterSpec torus = testing::TorusCluster({16, 16, 16}, {true, true, true}, 100, 2);
};

// Top-8, node-limited expert dispatch with some imbalance.
CollectiveOptions ExpertRouting() {
  CollectiveOptions o;
  o.top_k = 8;
  o.max_units_per_token = 4;
  o.imbalance = 1.2;
  return o;
}

TEST(CollectiveAllocation, EstimateCollectiveAllocatesNothing) {
  const Clusters k;
  const ClusterSpec &hgx = k.hgx, &mesh = k.mesh, &torus = k.torus;
  const CollectiveOptions expert = ExpertRouting();
  const long before = g_allocations.load();
  double sink = 0;
  for (CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather,
        CollectiveOp::kAllToAll, CollectiveOp::kBroadcast, CollectiveOp::kSendRecv}) {
    for (const ClusterSpec* c : {&hgx, &mesh, &torus}) {
      for (RankGroup g : {RankGroup{8, 1}, RankGroup{2, 8}, RankGroup{64, 1}, RankGroup{32, 2}}) {
        sink += EstimateCollective(*c, op, Bytes(1e8), g, expert).time.value();
      }
    }
  }
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(sink, 0);
}

// A prepared group gives the same cost as the group itself (the planner
// prepares each group once), without allocating.
TEST(CollectiveAllocation, PreparedGroupMatchesGroupAndAllocatesNothing) {
  const Clusters k;
  const ClusterSpec &hgx = k.hgx, &mesh = k.mesh, &torus = k.torus;
  const CollectiveOptions expert = ExpertRouting();
  int compared = 0;
  for (const ClusterSpec* c : {&hgx, &mesh, &torus}) {
    for (RankGroup g :
         {RankGroup{1, 1}, RankGroup{8, 1}, RankGroup{2, 8}, RankGroup{64, 1}, RankGroup{32, 2}}) {
      const PreparedGroup prepared = PrepareGroup(*c, g);
      for (CollectiveOp op :
           {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather,
            CollectiveOp::kAllToAll, CollectiveOp::kBroadcast, CollectiveOp::kSendRecv}) {
        for (double bytes : {0.0, 4096.0, 1e8}) {
          const long before = g_allocations.load();
          const CollectiveCost a = EstimateCollective(*c, op, Bytes(bytes), prepared, expert);
          EXPECT_EQ(g_allocations.load(), before);
          const CollectiveCost b = EstimateCollective(*c, op, Bytes(bytes), g, expert);
          EXPECT_EQ(a.time.value(), b.time.value());
          EXPECT_EQ(a.algorithm, b.algorithm);
          EXPECT_EQ(a.limiting_tier, b.limiting_tier);
          EXPECT_EQ(a.busbw.value(), b.busbw.value());
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 3 * 5 * 6 * 3);
}

}  // namespace
}  // namespace occam
