#include "search/verdict.h"

#include <gtest/gtest.h>

#include <limits>

namespace occam::search {
namespace {

Estimate Make(double step, double mfu, double dp_exposed, double bubble) {
  Estimate e;
  e.step_time = Seconds(step);
  e.mfu = mfu;
  e.breakdown = {{"compute", "", "", Seconds(step * 0.6), Seconds(step * 0.6)},
                 {"dp reduce-scatter", "dp", "ib", Seconds(dp_exposed), Seconds(dp_exposed)},
                 {"pipeline bubble", "pp", "", Seconds(bubble), Seconds(bubble)}};
  return e;
}

TEST(Verdict, NeededWhenWithoutPpIsSlowerByMoreThanTheThresholdAndNamesTheComm) {
  const Estimate flat = Make(10.0, 0.30, 2.8, 0.0);
  const Estimate piped = Make(8.0, 0.375, 0.2, 0.4);
  VerdictInput in;
  in.without_pp = &flat;
  in.with_pp = &piped;
  const Verdict v = PipelineVerdict(in);
  EXPECT_TRUE(v.pp_needed);
  // 2.8 / 10 = 28% of the step in exposed dp traffic vs 0.2 / 8 = 2.5%.
  EXPECT_NE(v.sentence.find("exposed dp reduce-scatter over ib (28.0% of the step, 2.5%"),
            std::string::npos)
      << v.sentence;
  EXPECT_NE(v.sentence.find("25.0% slower"), std::string::npos) << v.sentence;
}

// More compute in one layout (full recompute forced by memory, smaller
// matrix multiplications): when it outweighs every exposed item, the
// verdict names it with both recompute policies. Flat: compute 8.0 s
// of a 10 s step (0.6 s of exposed dp traffic); PP: compute 6.0 s of 8.5 s.
// (8.0 - 6.0) / 10 = 20% of the flat step against 0.6 / 10 - 0.1 / 8.5 = 4.8%.
TEST(Verdict, NamesExtraComputeWhenItOutweighsTheCommunication) {
  Estimate flat;
  flat.step_time = Seconds(10.0);
  flat.plan.recompute = Recompute::kFull;
  flat.breakdown = {{"compute", "", "", Seconds(8.0), Seconds(8.0)},
                    {"dp reduce-scatter", "dp", "ib", Seconds(0.6), Seconds(0.6)}};
  Estimate piped;
  piped.step_time = Seconds(8.5);
  piped.plan.recompute = Recompute::kNone;
  piped.breakdown = {{"compute", "", "", Seconds(6.0), Seconds(6.0)},
                     {"dp reduce-scatter", "dp", "ib", Seconds(0.1), Seconds(0.1)},
                     {"pipeline bubble", "pp", "", Seconds(0.5), Seconds(0.5)}};
  EXPECT_EQ(DominantDifference(flat, piped),
            "more compute (8.000 s against 6.000 s in the other layout, recompute full against "
            "none)");
  piped.plan.recompute = Recompute::kFull;
  EXPECT_EQ(DominantDifference(flat, piped),
            "more compute (8.000 s against 6.000 s in the other layout, at the same recompute "
            "full)");
  piped.plan.recompute = Recompute::kNone;
  // With a larger exposed difference the item is named instead.
  flat.breakdown[1].exposed = Seconds(3.0);
  EXPECT_NE(DominantDifference(flat, piped).find("exposed dp reduce-scatter over ib (30.0%"),
            std::string::npos);
}

TEST(Verdict, NotNeededWithinThresholdNamesWhatPpCosts) {
  const Estimate flat = Make(10.2, 0.30, 0.1, 0.0);
  const Estimate piped = Make(10.0, 0.31, 0.1, 1.0);
  VerdictInput in;
  in.without_pp = &flat;
  in.with_pp = &piped;
  in.threshold = 0.03;
  const Verdict v = PipelineVerdict(in);
  EXPECT_FALSE(v.pp_needed);
  EXPECT_NE(v.sentence.find("(within error)"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("inside occam's 3.0% error band"), std::string::npos) << v.sentence;
  ASSERT_TRUE(v.margin.has_value());
  EXPECT_DOUBLE_EQ(*v.margin, 10.2 / 10.0 - 1.0);
  EXPECT_NE(v.sentence.find("exposed pipeline bubble (10.0% of the step"), std::string::npos)
      << v.sentence;
}

TEST(Verdict, ThresholdIsStrict) {
  const Estimate flat = Make(10.29, 0.30, 0.1, 0.0);
  const Estimate piped = Make(10.0, 0.31, 0.1, 1.0);
  VerdictInput in;
  in.without_pp = &flat;
  in.with_pp = &piped;
  EXPECT_FALSE(PipelineVerdict(in).pp_needed);
  in.threshold = 0.02;
  EXPECT_TRUE(PipelineVerdict(in).pp_needed);
}

TEST(Verdict, NeededWhenNothingFitsWithoutPp) {
  const Estimate piped = Make(8.0, 0.375, 0.2, 0.4);
  VerdictInput in;
  in.with_pp = &piped;
  in.min_memory_without_pp = GB(120);
  in.capacity = GB(76);
  const Verdict v = PipelineVerdict(in);
  EXPECT_TRUE(v.pp_needed);
  EXPECT_NE(v.sentence.find("120.0 GB"), std::string::npos) << v.sentence;
}

TEST(Verdict, NeededWhenNoLayoutWithoutPpDivides) {
  const Estimate piped = Make(8.0, 0.375, 0.2, 0.4);
  VerdictInput in;
  in.with_pp = &piped;
  in.min_memory_without_pp = Bytes(std::numeric_limits<double>::infinity());
  const Verdict v = PipelineVerdict(in);
  EXPECT_TRUE(v.pp_needed);
  EXPECT_NE(v.sentence.find("divides"), std::string::npos) << v.sentence;
}

TEST(Verdict, NotAssessedWhenAConstraintExcludesASide) {
  const Estimate piped = Make(8.0, 0.375, 0.2, 0.4);
  VerdictInput in;
  in.with_pp = &piped;
  in.without_pp_excluded_by = "--fix pp=16";
  const Verdict v = PipelineVerdict(in);
  EXPECT_FALSE(v.pp_needed);
  EXPECT_NE(v.sentence.find("not assessed"), std::string::npos);
}

}  // namespace
}  // namespace occam::search
