// Placement of parallel axes onto ranks (Megatron-Core layout).
#include <gtest/gtest.h>

#include <set>

#include "occam/collective.h"

namespace occam {
namespace {

bool Same(RankGroup a, RankGroup b) { return a.size == b.size && a.stride == b.stride; }

#define EXPECT_GROUP(g, n, s) \
  EXPECT_TRUE(Same(g, RankGroup{n, s})) << #g << " = {" << (g).size << ", " << (g).stride << "}"

TEST(Placement, DefaultOrderIsTpCpEpDpPp) {
  PlanSpec p;
  EXPECT_EQ(DefaultAxisOrder(p),
            (std::vector<Axis>{Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp}));
}

TEST(Placement, InnermostAxisVariesFastest) {
  PlanSpec p;
  p.tp = 8;
  p.dp = 16;
  p.pp = 4;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.tp, 8, 1);
  EXPECT_GROUP(g.cp, 1, 8);
  EXPECT_GROUP(g.dp, 16, 8);
  EXPECT_GROUP(g.pp, 4, 128);
  EXPECT_GROUP(g.ep, 1, 1);
  // ep = etp = 1: every rank of the stage holds every expert whole, so the
  // expert gradients are reduced over all tp*dp = 128 ranks of the stage.
  EXPECT_GROUP(g.edp, 8 * 16, 1);
}

TEST(Placement, ContextParallelSitsBetweenTpAndDp) {
  PlanSpec p;
  p.tp = 2;
  p.cp = 2;
  p.dp = 4;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.cp, 2, 2);
  EXPECT_GROUP(g.dp, 4, 4);
}

TEST(Placement, ExpertParallelFoldsIntoDataParallel) {
  // DeepSeek-V3 on 2048 H800: tp=1, pp=16, ep=64, dp=128.
  PlanSpec p;
  p.pp = 16;
  p.ep = 64;
  p.dp = 128;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.ep, 64, 1);
  EXPECT_GROUP(g.edp, 2, 64);
  EXPECT_GROUP(g.dp, 128, 1);
  EXPECT_GROUP(g.pp, 16, 128);
}

TEST(Placement, ExpertGroupSpansTpThenCpThenDp) {
  // Parallel folding (arXiv:2504.14960): the expert group is the innermost
  // ep of the tp*cp*dp = 32 ranks of the stage, whatever axis they belong to.
  PlanSpec p;
  p.tp = 2;
  p.cp = 2;
  p.dp = 8;
  p.ep = 8;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.ep, 8, 1);
  EXPECT_GROUP(g.edp, 2 * 2 * 8 / 8, 8);
}

TEST(Placement, ExpertGroupSpansTensorRanks) {
  // DeepSeek-V3 on 2048 H800 with tp=8, pp=16, ep=64, dp=16: ep covers the 8
  // tp ranks of a node and 8 dp ranks (8 nodes); edp = 8*16/64 = 2.
  PlanSpec p;
  p.tp = 8;
  p.pp = 16;
  p.ep = 64;
  p.dp = 16;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.ep, 64, 1);
  EXPECT_GROUP(g.edp, 2, 64);
  EXPECT_GROUP(g.tp, 8, 1);
  EXPECT_GROUP(g.dp, 16, 8);
  EXPECT_GROUP(g.pp, 16, 8 * 16);
}

TEST(Placement, ExpertTensorRanksAreInnermost) {
  // Megatron-Core expert order "tp-ep-dp-pp" with tp = etp: etp varies fastest.
  PlanSpec p;
  p.tp = 8;
  p.etp = 2;
  p.ep = 32;
  p.dp = 16;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.ep, 32, 2);
  EXPECT_GROUP(g.edp, 8 * 16 / (2 * 32), 2 * 32);
}

TEST(Placement, EpAfterDpInTheOrderPutsEdpInside) {
  PlanSpec p;
  p.pp = 16;
  p.ep = 64;
  p.dp = 128;
  const AxisGroups g = PlaceAxes(p, {Axis::kTp, Axis::kCp, Axis::kDp, Axis::kEp, Axis::kPp});
  EXPECT_GROUP(g.edp, 2, 1);
  EXPECT_GROUP(g.ep, 64, 2);
  EXPECT_GROUP(g.dp, 128, 1);
}

TEST(Placement, ExpertGroupsFollowDpWhenPpIsInside) {
  // Order tp, cp, ep, pp, dp: the stage's ranks are the dp axis (stride 16).
  PlanSpec p;
  p.pp = 16;
  p.ep = 64;
  p.dp = 128;
  const AxisGroups g = PlaceAxes(p, {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kPp, Axis::kDp});
  EXPECT_GROUP(g.pp, 16, 1);
  EXPECT_GROUP(g.dp, 128, 16);
  EXPECT_GROUP(g.ep, 64, 16);
  EXPECT_GROUP(g.edp, 2, 64 * 16);
}

// The ranks of ep x edp (etp = 1) are exactly the tp x cp x dp ranks of the
// first pipeline stage, each once.
TEST(Placement, ExpertGridCoversTheStage) {
  struct Shape {
    int64_t tp, cp, dp, ep;
  };
  for (const Shape& s : {Shape{8, 1, 16, 64}, Shape{2, 2, 8, 4}, Shape{4, 2, 4, 32},
                         Shape{1, 4, 8, 8}, Shape{8, 2, 2, 1}}) {
    PlanSpec p;
    p.tp = s.tp;
    p.cp = s.cp;
    p.dp = s.dp;
    p.ep = s.ep;
    p.pp = 2;
    const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
    std::set<int64_t> stage, expert;
    for (int64_t a = 0; a < s.tp; ++a)
      for (int64_t b = 0; b < s.cp; ++b)
        for (int64_t c = 0; c < s.dp; ++c)
          stage.insert(a * g.tp.stride + b * g.cp.stride + c * g.dp.stride);
    for (int64_t a = 0; a < g.ep.size; ++a)
      for (int64_t b = 0; b < g.edp.size; ++b) expert.insert(a * g.ep.stride + b * g.edp.stride);
    EXPECT_EQ(g.ep.size * g.edp.size, s.tp * s.cp * s.dp);
    EXPECT_EQ(expert, stage) << s.tp << "/" << s.cp << "/" << s.dp << "/" << s.ep;
  }
}

TEST(Placement, CustomOrderAndMissingAxes) {
  PlanSpec p;
  p.tp = 4;
  p.dp = 8;
  p.pp = 2;
  // dp innermost, then tp; pp (absent) goes outside.
  const AxisGroups g = PlaceAxes(p, {Axis::kDp, Axis::kTp});
  EXPECT_GROUP(g.dp, 8, 1);
  EXPECT_GROUP(g.tp, 4, 8);
  EXPECT_GROUP(g.pp, 2, 32);
}

}  // namespace
}  // namespace occam
