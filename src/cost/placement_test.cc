// Placement of parallel axes onto ranks (Megatron-Core layout).
#include <gtest/gtest.h>

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
  EXPECT_GROUP(g.edp, 16, 8);
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

TEST(Placement, ExpertGroupSpansCpThenDp) {
  PlanSpec p;
  p.tp = 2;
  p.cp = 2;
  p.dp = 8;
  p.ep = 8;
  const AxisGroups g = PlaceAxes(p, DefaultAxisOrder(p));
  EXPECT_GROUP(g.ep, 8, 2);
  EXPECT_GROUP(g.edp, 2, 16);
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
