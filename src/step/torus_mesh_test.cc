// The torus rank mapping (plan field mesh) in a whole step: one EP group of a
// DeepSeek-V3 layout on TPU v5p, linear (a ring of 16 along x and a line of 4
// along y) against compact (a 4x4x4 cube of lines). The collective formulas
// themselves are checked in src/cost/collective_torus_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "occam/cost.h"
#include "occam/step.h"
#include "step/test_fixtures.h"

namespace occam {
namespace {

Estimate EstimateOf(const std::string& text) {
  JobSpec job = testing::DeepSeekV3Job();
  job.moe_imbalance = 1.0;
  job.global_batch_seqs = 4096;  // two sequences per data-parallel rank
  auto plan = ParsePlan(text);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto e = EstimateStep(*CatalogModel("deepseek-v3"), *CatalogCluster("tpu-v5p", 2048), job, *plan);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().message();
  return e.ok() ? *e : Estimate{};
}

double AxisTotal(const Estimate& e, const std::string& axis) {
  double s = 0;
  for (const TimeItem& t : e.breakdown) {
    if (t.axis == axis) s += t.total.value();
  }
  return s;
}

TEST(TorusMesh, CompactExpertGroupsSendTheAllToAllFaster) {
  // The all-to-all of a 16x4 group is bound by its ring of 16 (16 b / (8 B_link)),
  // that of a 4x4x4 cube by its lines of 4 (4 b / (4 B_link)): half the
  // bandwidth term, fewer hops; the compute is the same.
  const std::string base = "tp=1,pp=1,dp=2048,ep=64,zero=3,mbs=1,recompute=full";
  const Estimate linear = EstimateOf(base);
  const Estimate compact = EstimateOf(base + ",mesh=compact");
  const double ep_linear = AxisTotal(linear, "ep"), ep_compact = AxisTotal(compact, "ep");
  ASSERT_GT(ep_linear, 0);
  EXPECT_LT(ep_compact, 0.6 * ep_linear);
  EXPECT_GT(ep_compact, 0.4 * ep_linear);
  EXPECT_EQ(compact.plan.mesh, TorusMapping::kCompact);
  EXPECT_EQ(linear.memory.total().value(), compact.memory.total().value());
}

}  // namespace
}  // namespace occam
