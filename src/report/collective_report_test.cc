#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"

namespace occam {
namespace {

ClusterSpec TwoNodes() {
  ClusterSpec c;
  c.name = "two-nodes";
  c.num_chips = 16;
  TierSpec nv;
  nv.name = "nvlink";
  nv.kind = TierKind::kSwitch;
  nv.size = 8;
  nv.bandwidth = GBps(450);
  nv.latency = Microseconds(2);
  TierSpec ib = nv;
  ib.name = "ib";
  ib.kind = TierKind::kFatTree;
  ib.size = 16;
  ib.bandwidth = GBps(50);
  c.tiers = {nv, ib};
  return c;
}

TEST(CollectiveReport, JsonCarriesTheDocumentedKeys) {
  const ClusterSpec c = TwoNodes();
  CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.bytes = GiB(1);
  q.group = RankGroup{16, 1};
  q.group_text = "0-15";
  const CollectiveCost cost = EstimateCollective(c, q.op, q.bytes, q.group);
  const auto j = nlohmann::json::parse(CollectiveJson(c, q, cost));
  EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), cost.time.value());
  EXPECT_NEAR(j["algbw_gbps"].get<double>(), q.bytes.value() / cost.time.value() / 1e9, 1e-9);
  // nccl-tests: busbw = algbw * 2(n-1)/n for all-reduce.
  EXPECT_NEAR(j["busbw_gbps"].get<double>(), j["algbw_gbps"].get<double>() * 2 * 15 / 16, 1e-9);
  EXPECT_EQ(j["algorithm"], std::string(CollectiveAlgorithmName(cost.algorithm)));
  EXPECT_EQ(j["limiting_tier"], "ib");
  EXPECT_EQ(j["limiting_tier_index"], 1);
  EXPECT_EQ(j["group"]["size"], 16);
  EXPECT_EQ(j["tiers"][0]["members"], 8);
  EXPECT_EQ(j["tiers"][1]["members"], 16);
  EXPECT_FALSE(j.contains("top_k"));
}

TEST(CollectiveReport, TextNamesAlgorithmAndLimitingTier) {
  const ClusterSpec c = TwoNodes();
  CollectiveQuery q;
  q.op = CollectiveOp::kAllToAll;
  q.bytes = Bytes(64e6);
  q.group = RankGroup{16, 1};
  q.group_text = "group size 16";
  q.options.top_k = 8;
  q.options.max_units_per_token = 2;
  const std::string text =
      CollectiveText(c, q, EstimateCollective(c, q.op, q.bytes, q.group, q.options));
  EXPECT_NE(text.find("all-to-all of 64.00 MB over 16 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("8 per nvlink unit of 8, 16 per ib unit of 16"), std::string::npos) << text;
  EXPECT_NE(text.find("top-8 routing, each token to at most 2 units"), std::string::npos) << text;
  EXPECT_NE(text.find("direct"), std::string::npos) << text;
  EXPECT_NE(text.find("ib (tier 1)"), std::string::npos) << text;
}

TEST(CollectiveReport, GroupOfOneSaysNothingMoves) {
  const ClusterSpec c = TwoNodes();
  CollectiveQuery q;
  q.bytes = Bytes(1e6);
  q.group = RankGroup{1, 1};
  const std::string text = CollectiveText(c, q, EstimateCollective(c, q.op, q.bytes, q.group));
  EXPECT_NE(text.find("nothing"), std::string::npos) << text;
}

}  // namespace
}  // namespace occam
