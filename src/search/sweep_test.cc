#include <gtest/gtest.h>

#include <vector>

#include "occam/search.h"
#include "occam/spec.h"
#include "search/fake_evaluator_test_util.h"

namespace occam {
namespace {

TEST(Sweep, ParsesVaryTextAndNamesBadInput) {
  auto s = ParseSweepVary("scale-up-size=8,16,72");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->vary, SweepVary::kScaleUpSize);
  EXPECT_EQ(s->values, (std::vector<double>{8, 16, 72}));
  auto t = ParseSweepVary("global-batch-tokens=4M,16M");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->values, (std::vector<double>{4e6, 16e6}));
  EXPECT_TRUE(ParseSweepVary("").ok());
  for (const char* bad :
       {"scale-up-size", "nodes=8", "seq-len=4096,x", "scale-up-size=-8", "seq-len=4096.5"}) {
    auto r = ParseSweepVary(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--vary"), std::string::npos);
  }
}

TEST(Sweep, ScaleUpKeepsPerChipBandwidthAndRecutsOuterTiers) {
  const ClusterSpec base = search::testing::SmallCluster(64);
  auto c = WithScaleUpSize(base, 16);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->tiers.size(), 2u);
  EXPECT_EQ(c->tiers[0].size, 16);
  EXPECT_EQ(c->tiers[0].bandwidth, base.tiers[0].bandwidth);
  EXPECT_EQ(c->tiers[1].size, 64);
  // 24-chip units: 64 chips round down to two whole units.
  auto odd = WithScaleUpSize(base, 24);
  ASSERT_TRUE(odd.ok()) << odd.status().message();
  EXPECT_EQ(odd->num_chips, 48);
  // A unit as large as the cluster leaves one tier.
  auto all = WithScaleUpSize(base, 64);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->tiers.size(), 1u);
}

TEST(Sweep, ScaleUpOfATorusGetsABalancedShape) {
  ClusterSpec base = search::testing::SmallCluster(256);
  base.tiers[0].kind = TierKind::kTorus;
  base.tiers[0].size = 256;
  base.tiers[0].torus_dims = {4, 8, 8};
  base.tiers[0].torus_wrap = {true, true, true};
  base.tiers[1].kind = TierKind::kDcn;
  auto c = WithScaleUpSize(base, 128);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->tiers[0].torus_dims, (std::vector<int64_t>{4, 4, 8}));
  EXPECT_EQ(c->tiers[0].torus_wrap, (std::vector<bool>{true, true, true}));
}

// A single-tier slice cut below its chip count has no tier to join the
// pieces: that variant is an error row, and the other rows still run.
TEST(Sweep, AnImpossibleClusterVariantIsAnErrorRowNotAnAbort) {
  ClusterSpec slice = search::testing::SmallCluster(64);
  slice.tiers.resize(1);
  slice.tiers[0].size = 64;
  SweepSpec sweep;
  sweep.vary = SweepVary::kScaleUpSize;
  sweep.values = {16, 64};
  SearchOptions o;
  o.threads = 1;
  auto rows =
      RunSweep(search::testing::SmallDense(), {slice}, search::testing::SmallJob(), sweep, o);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_FALSE((*rows)[0].error.empty());
  EXPECT_NE((*rows)[0].error.find("scale-up-size=16"), std::string::npos) << (*rows)[0].error;
  EXPECT_TRUE((*rows)[1].error.empty()) << (*rows)[1].error;
}

// tpu-v5p at 512 chips is one 8x8x8 slice with no DCN tier; cutting it into
// slices of 64 joins them with the template's DCN tier (multislice), and the
// sweep over scale-up sizes and scale-out bandwidths runs without an abort.
TEST(Sweep, TpuSlicesCutSmallerAreJoinedOverDcn) {
  const Result<ClusterSpec> v5p = CatalogCluster("tpu-v5p", 512);
  ASSERT_TRUE(v5p.ok()) << v5p.status().message();
  ASSERT_EQ(v5p->tiers.size(), 1u);
  auto c = WithScaleUpSize(*v5p, 64);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->tiers.size(), 2u);
  EXPECT_EQ(c->tiers[0].torus_dims, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(c->tiers[1].kind, TierKind::kDcn);
  EXPECT_EQ(c->tiers[1].size, 512);
  SearchOptions o;
  o.threads = 1;
  for (SweepVary vary : {SweepVary::kScaleUpSize, SweepVary::kScaleOutGbps}) {
    SweepSpec sweep;
    sweep.vary = vary;
    sweep.values = vary == SweepVary::kScaleUpSize ? std::vector<double>{8, 64, 72, 512}
                                                   : std::vector<double>{1, 25};
    auto rows =
        RunSweep(search::testing::SmallDense(), {*v5p}, search::testing::SmallJob(), sweep, o);
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ(rows->size(), sweep.values.size());
  }
}

TEST(Sweep, ScaleOutSetsEveryOuterTier) {
  auto c = WithScaleOutBandwidth(search::testing::SmallCluster(64), 100);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->tiers[1].bandwidth, GBps(100));
  EXPECT_EQ(c->tiers[0].bandwidth, GBps(200));
  EXPECT_FALSE(WithScaleOutBandwidth(search::testing::SmallCluster(64), 0).ok());
}

}  // namespace
}  // namespace occam
