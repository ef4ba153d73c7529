#include <gtest/gtest.h>

#include "occam/search.h"
#include "search/fake_evaluator_test_util.h"

namespace occam {
namespace {

PlanSpec Plan(const char* text) {
  auto p = ParsePlan(text);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

TEST(Complexity, ScheduleOrderDualPipeZbvInterleaved1F1BNone) {
  const ClusterSpec c = search::testing::SmallCluster(64);
  const int none = LayoutComplexity(Plan("tp=1,pp=1,dp=64"), c);
  const int f1b = LayoutComplexity(Plan("tp=1,pp=4,dp=16,schedule=1f1b"), c);
  const int inter = LayoutComplexity(Plan("tp=1,pp=4,vpp=2,dp=16,schedule=interleaved"), c);
  const int zbv = LayoutComplexity(Plan("tp=1,pp=4,vpp=2,dp=16,schedule=zbv"), c);
  const int dual = LayoutComplexity(Plan("tp=1,pp=4,dp=16,schedule=dualpipe"), c);
  EXPECT_LT(none, f1b);
  EXPECT_LT(f1b, inter);
  EXPECT_LT(inter, zbv);
  EXPECT_LT(zbv, dual);
}

TEST(Complexity, EachAxisAndShardingAddsAndCrossTierTpAddsMore) {
  const ClusterSpec c = search::testing::SmallCluster(64);
  const int base = LayoutComplexity(Plan("tp=1,pp=1,dp=64"), c);
  const int tp8 = LayoutComplexity(Plan("tp=8,pp=1,dp=8"), c);
  const int tp16 = LayoutComplexity(Plan("tp=16,pp=1,dp=4"), c);  // nodes hold 8
  EXPECT_LT(base, tp8);
  EXPECT_LT(tp8, tp16);
  EXPECT_LT(base, LayoutComplexity(Plan("tp=1,cp=2,pp=1,dp=32"), c));
  EXPECT_LT(base, LayoutComplexity(Plan("tp=1,pp=1,dp=64,ep=8"), c));
  const int z1 = LayoutComplexity(Plan("tp=1,pp=1,dp=64,zero=1"), c);
  const int z3 = LayoutComplexity(Plan("tp=1,pp=1,dp=64,zero=3"), c);
  const int hsdp = LayoutComplexity(Plan("tp=1,pp=1,dp=64,zero=3,hsdp=8"), c);
  EXPECT_LT(z1, z3);
  EXPECT_LT(z3, hsdp);
  EXPECT_LT(z1, LayoutComplexity(Plan("tp=1,pp=1,dp=64,recompute=full"), c));
  EXPECT_LT(z1, LayoutComplexity(Plan("tp=1,pp=1,dp=64,order=tp/cp/ep/pp/dp"), c));
}

// The expert all-to-all overlap costs one point: less than any pipeline.
TEST(Complexity, A2aOverlapAddsOneAndStaysBelowAnyPipeline) {
  const ClusterSpec c = search::testing::SmallCluster(64);
  const int ep = LayoutComplexity(Plan("tp=1,pp=1,dp=64,ep=8"), c);
  const int a2a = LayoutComplexity(Plan("tp=1,pp=1,dp=64,ep=8,a2a_overlap=1"), c);
  EXPECT_EQ(a2a, ep + 1);
  EXPECT_LT(a2a, LayoutComplexity(Plan("tp=1,pp=2,dp=32,ep=8,schedule=1f1b"), c));
}

}  // namespace
}  // namespace occam
