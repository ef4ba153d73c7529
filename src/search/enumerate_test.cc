#include "search/enumerate.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "search/fake_evaluator_test_util.h"

namespace occam::search {
namespace {

TEST(Enumerate, EveryShapeDividesChipsBatchHeadsAndExperts) {
  const ModelSpec m = testing::SmallMoe();
  const ClusterSpec c = testing::SmallCluster(64);
  const JobSpec j = testing::SmallJob(128);
  const auto shapes = EnumerateShapes(m, c, j, Constraints{});
  ASSERT_FALSE(shapes.empty());
  std::set<Schedule> schedules;
  for (const Shape& s : shapes) {
    EXPECT_EQ(s.tp * s.cp * s.pp * s.dp, 64);
    EXPECT_EQ(j.global_batch_seqs % s.dp, 0);
    EXPECT_EQ(m.attention.num_heads % s.tp, 0);
    EXPECT_EQ(m.moe->num_experts % s.ep, 0);
    EXPECT_EQ(s.tp * s.cp * s.dp % (s.ep * s.etp), 0);  // parallel folding
    EXPECT_LE(s.pp * s.vpp, m.num_layers);
    EXPECT_EQ(s.pp == 1, s.schedule == Schedule::kNone);
    schedules.insert(s.schedule);
  }
  EXPECT_EQ(schedules.size(), 8u);  // none + the seven pipeline schedules
}

TEST(Enumerate, ExpertParallelMaySpanTensorRanks) {
  // MoE parallel folding (arXiv:2504.14960): ep divides tp*cp*dp, so with
  // tp = 8 and pp = 8 on 64 chips (dp = 1) every expert count dividing 8
  // is a choice, although ep > dp*cp.
  const ModelSpec m = testing::SmallMoe();
  const ClusterSpec c = testing::SmallCluster(64);
  const JobSpec j = testing::SmallJob(128);
  std::set<int64_t> eps;
  for (const Shape& s : EnumerateShapes(m, c, j, Constraints{})) {
    if (s.tp == 8 && s.cp == 1 && s.pp == 8) eps.insert(s.ep);
  }
  std::set<int64_t> want;
  for (int64_t ep = 1; ep <= 8; ++ep) {
    if (8 % ep == 0 && m.moe->num_experts % ep == 0) want.insert(ep);
  }
  EXPECT_EQ(eps, want);
  EXPECT_GT(*eps.rbegin(), 1);
}

TEST(Enumerate, InnerVariantsDivideTheBatchAndRespectFixedFields) {
  const ModelSpec m = testing::SmallDense();  // no expert all-to-all overlap variants
  const ClusterSpec c = testing::SmallCluster(64);
  const JobSpec j = testing::SmallJob(128);
  Shape s;
  s.tp = 2;
  s.pp = 2;
  s.dp = 16;
  s.ep = 4;
  s.schedule = Schedule::k1F1B;
  std::vector<Inner> inners;
  EnumerateInner(m, s, c, j, Constraints{}, inners);
  std::set<OrderChoice> orders;
  bool hsdp = false;
  for (const Inner& in : inners) {
    EXPECT_EQ(j.global_batch_seqs / s.dp % in.mbs, 0);
    if (in.hsdp > 0) {
      hsdp = true;
      EXPECT_EQ(in.zero, 3);
      EXPECT_EQ(in.hsdp, 4);  // 8 chips per node / tp 2
    }
    orders.insert(in.order);
  }
  EXPECT_TRUE(hsdp);
  EXPECT_EQ(orders.size(), 3u);
  Constraints fixed;
  fixed.mbs = 2;
  fixed.zero = 1;
  fixed.recompute = Recompute::kSelective;
  EnumerateInner(m, s, c, j, fixed, inners);
  EXPECT_EQ(inners.size(), 3u);  // one per order
  for (const Inner& in : inners) {
    EXPECT_EQ(in.mbs, 2);
    EXPECT_EQ(in.zero, 1);
    EXPECT_EQ(in.recompute, Recompute::kSelective);
  }
}

// The expert all-to-all overlap methods enumerated for a shape are exactly
// those ValidatePlan accepts (its rules per method: CheckA2aOverlap), over
// every shape of a MoE model with a shared expert; a fixed a2a_overlap keeps
// only its own variants.
TEST(Enumerate, A2aOverlapMethodsAreExactlyThoseValidatePlanAccepts) {
  const ModelSpec m = testing::SmallMoe();
  const ClusterSpec c = testing::SmallCluster(64);
  const JobSpec j = testing::SmallJob(128);
  const Constraints none;
  std::vector<Inner> inners;
  std::set<EpOverlap> seen;
  int64_t rejected = 0;
  for (const Shape& s : EnumerateShapes(m, c, j, none)) {
    EnumerateInner(m, s, c, j, none, inners);
    std::set<std::tuple<int, int64_t, int64_t, Recompute, OrderChoice, EpOverlap>> present;
    for (const Inner& in : inners) {
      present.insert({in.zero, in.hsdp, in.mbs, in.recompute, in.order, in.a2a_overlap});
    }
    for (const Inner& in : inners) {
      if (in.a2a_overlap != EpOverlap::kNone) continue;
      for (EpOverlap o :
           {EpOverlap::kCombined1F1B, EpOverlap::kTwoBatch, EpOverlap::kSharedExpert}) {
        Inner with = in;
        with.a2a_overlap = o;
        PlanSpec p;
        ApplyCandidate(s, with, none, p);
        const bool valid = ValidatePlan(m, c, j, p).ok();
        const bool listed =
            present.count({in.zero, in.hsdp, in.mbs, in.recompute, in.order, o}) > 0;
        EXPECT_EQ(valid, listed) << FormatPlan(p);
        if (listed) seen.insert(o);
        rejected += valid ? 0 : 1;
      }
    }
  }
  EXPECT_EQ(seen.size(), 3u) << "every method must occur";
  EXPECT_GT(rejected, 0) << "the case must exercise the rules";
  Shape flat;
  flat.tp = 2;
  flat.dp = 32;
  flat.ep = 4;
  Constraints tbo;
  tbo.a2a_overlap = EpOverlap::kTwoBatch;
  EnumerateInner(m, flat, c, j, tbo, inners);
  ASSERT_FALSE(inners.empty());
  for (const Inner& in : inners) EXPECT_EQ(in.a2a_overlap, EpOverlap::kTwoBatch);
}

// Micro-batch sizes whose micro-batch count a schedule cannot run are not
// enumerated, and every size ValidatePlan accepts is.
TEST(Enumerate, MicroBatchSizesAreExactlyThoseTheScheduleAccepts) {
  const ModelSpec m = testing::SmallMoe();
  const ClusterSpec c = testing::SmallCluster(64);
  const JobSpec j = testing::SmallJob(128);
  const Constraints none;
  std::vector<Inner> inners;
  int64_t rejected = 0;
  for (const Shape& s : EnumerateShapes(m, c, j, none)) {
    EnumerateInner(m, s, c, j, none, inners);
    std::set<int64_t> present;
    for (const Inner& in : inners) present.insert(in.mbs);
    for (int64_t mbs : {1, 2, 4, 8, 16}) {
      if ((j.global_batch_seqs / s.dp) % mbs != 0) continue;
      PlanSpec p;
      ApplyCandidate(s, Inner{1, 0, mbs, Recompute::kNone, OrderChoice::kDefault}, none, p);
      const bool valid = ValidatePlan(m, c, j, p).ok();
      if (valid) {
        EXPECT_EQ(present.count(mbs), 1u) << FormatPlan(p);
      }
      if (present.count(mbs) == 0) {
        EXPECT_FALSE(valid) << FormatPlan(p);
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0) << "the case must exercise the schedule rules";
}

TEST(Enumerate, ParseConstraintsReadsPlanFields) {
  SearchOptions o;
  o.fix = "ep=8, pp=4,schedule=zbv,order=tp/ep/dp/pp";
  auto c = ParseConstraints(o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(*c->ep, 8);
  EXPECT_EQ(*c->pp, 4);
  EXPECT_EQ(*c->schedule, Schedule::kZbV);
  EXPECT_EQ(c->order->size(), 4u);
  EXPECT_FALSE(c->tp.has_value());
}

}  // namespace
}  // namespace occam::search
