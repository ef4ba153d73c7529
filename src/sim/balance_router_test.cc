#include "sim/balance_router.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "sim/balance_rng.h"

namespace occam::balance {
namespace {

std::vector<float> RandomScores(Rng& rng, int64_t n) {
  std::vector<float> s(n);
  for (auto& v : s) v = static_cast<float>(rng.Uniform());
  return s;
}

// Brute force: sort indices by (score desc, index asc), keep the first k.
std::vector<int32_t> SortTopK(const std::vector<float>& s, int64_t k) {
  std::vector<int32_t> idx(s.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) { return s[a] > s[b]; });
  idx.resize(k);
  return idx;
}

TEST(BalanceRouter, TopKMatchesSort) {
  Rng rng(1);
  Router router({64, 6, 1, 1});
  for (int trial = 0; trial < 200; ++trial) {
    const auto s = RandomScores(rng, 64);
    std::vector<int32_t> out(6);
    router.Route(s.data(), nullptr, out.data());
    EXPECT_EQ(out, SortTopK(s, 6));
  }
}

TEST(BalanceRouter, TiesBreakTowardsLowerIndex) {
  const std::vector<float> s(8, 0.5f);
  Router router({8, 3, 1, 1});
  std::vector<int32_t> out(3);
  router.Route(s.data(), nullptr, out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2}));
}

TEST(BalanceRouter, BiasChangesSelectionOnly) {
  // Expert 3 has the lowest score; a bias of +1 puts it first.
  std::vector<float> s = {0.9f, 0.8f, 0.7f, 0.1f};
  std::vector<float> b = {0, 0, 0, 1.0f};
  Router router({4, 2, 1, 1});
  std::vector<int32_t> out(2);
  router.Route(s.data(), b.data(), out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{3, 0}));
  EXPECT_FLOAT_EQ(s[3], 0.1f);  // scores untouched
}

TEST(BalanceRouter, GroupLimitedNeverUsesMoreThanTopkGroups) {
  Rng rng(2);
  const RouterShape shape{256, 8, 8, 4};
  Router router(shape);
  std::vector<int32_t> out(8);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto s = RandomScores(rng, 256);
    router.Route(s.data(), nullptr, out.data());
    std::set<int32_t> groups, experts;
    for (int32_t e : out) groups.insert(e / 32), experts.insert(e);
    EXPECT_LE(groups.size(), 4u);
    EXPECT_EQ(experts.size(), 8u);
  }
}

// Reference for group-limited routing written from the definition: group
// score = sum of its top K/M scores; keep the M best groups; top-K among
// their experts.
std::vector<int32_t> GroupReference(const std::vector<float>& s, const RouterShape& r) {
  const int64_t per = r.experts / r.groups, m = std::max<int64_t>(1, r.top_k / r.topk_groups);
  std::vector<float> score(r.groups);
  for (int64_t g = 0; g < r.groups; ++g) {
    std::vector<float> v(s.begin() + g * per, s.begin() + (g + 1) * per);
    std::sort(v.rbegin(), v.rend());
    score[g] = std::accumulate(v.begin(), v.begin() + m, 0.0f);
  }
  const auto best = SortTopK(score, r.topk_groups);
  std::vector<float> masked(s.size(), -1.0f);
  for (int32_t g : best) {
    for (int64_t e = g * per; e < (g + 1) * per; ++e) masked[e] = s[e];
  }
  return SortTopK(masked, r.top_k);
}

TEST(BalanceRouter, GroupLimitedMatchesDefinition) {
  Rng rng(3);
  for (const RouterShape shape :
       {RouterShape{256, 8, 8, 4}, RouterShape{160, 6, 8, 3}, RouterShape{64, 4, 4, 1}}) {
    Router router(shape);
    std::vector<int32_t> out(shape.top_k);
    for (int trial = 0; trial < 300; ++trial) {
      const auto s = RandomScores(rng, shape.experts);
      router.Route(s.data(), nullptr, out.data());
      EXPECT_EQ(out, GroupReference(s, shape));
    }
  }
}

TEST(BalanceRouter, ValidationNamesTheFlag) {
  EXPECT_TRUE(ValidateRouterShape({256, 8, 8, 4}).ok());
  const Status s1 = ValidateRouterShape({256, 8, 7, 4});
  EXPECT_EQ(s1.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s1.message().find("--groups"), std::string::npos);
  const Status s2 = ValidateRouterShape({256, 8, 8, 9});
  EXPECT_NE(s2.message().find("--topk-groups"), std::string::npos);
  const Status s3 = ValidateRouterShape({16, 8, 8, 1});  // 1 group of 2 experts < 8
  EXPECT_NE(s3.message().find("--topk"), std::string::npos);
  EXPECT_FALSE(ValidateRouterShape({0, 1, 1, 1}).ok());
}

}  // namespace
}  // namespace occam::balance
