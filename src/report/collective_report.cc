// occam collective: text and JSON rendering of one collective's cost.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "occam/report.h"

namespace occam {
namespace {

using nlohmann::json;

std::string TierName(const ClusterSpec& cluster, int tier) {
  if (tier < 0 || static_cast<size_t>(tier) >= cluster.tiers.size()) return "none";
  return cluster.tiers[static_cast<size_t>(tier)].name;
}

// "8 per nvlink unit (size 8), 16 per ib unit (size 1024)".
std::string Placement(const ClusterSpec& cluster, RankGroup group) {
  const std::vector<int64_t> members = MembersPerTier(cluster, group);
  std::string s;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) s += ", ";
    s += fmt::format("{} per {} unit of {}", members[i], cluster.tiers[i].name,
                     cluster.tiers[i].size);
  }
  return s;
}

std::string Routing(const CollectiveOptions& o) {
  std::string s;
  if (o.top_k > 0) s += fmt::format("top-{} routing", o.top_k);
  if (o.max_units_per_token > 0) {
    s += fmt::format(", each token to at most {} units", o.max_units_per_token);
  }
  if (o.imbalance > 1.0) s += fmt::format("{}imbalance {:.2f}", s.empty() ? "" : ", ", o.imbalance);
  return s;
}

}  // namespace

std::string CollectiveText(const ClusterSpec& cluster, const CollectiveQuery& q,
                           const CollectiveCost& c) {
  std::string s;
  s += fmt::format("{:<12}{} of {} over {} ranks (stride {}; {}) on {} ({} chips)\n", "collective",
                   CollectiveOpName(q.op), FormatBytes(q.bytes), q.group.size, q.group.stride,
                   q.group_text, cluster.name, cluster.num_chips);
  s += fmt::format("{:<12}{}\n", "placement", Placement(cluster, q.group));
  const std::string routing = Routing(q.options);
  if (q.op == CollectiveOp::kAllToAll && !routing.empty()) {
    s += fmt::format("{:<12}{}\n", "routing", routing);
  }
  s += fmt::format("{:<12}{}\n", "algorithm", CollectiveAlgorithmName(c.algorithm));
  s += fmt::format("{:<12}{}\n", "time", FormatSeconds(c.time));
  s += fmt::format("{:<12}{:.1f} GB/s\n", "algbw", c.algbw.value() / 1e9);
  s += fmt::format("{:<12}{:.1f} GB/s\n", "busbw", c.busbw.value() / 1e9);
  if (c.limiting_tier >= 0) {
    s += fmt::format("{:<12}{} (tier {})\n", "limited by", TierName(cluster, c.limiting_tier),
                     c.limiting_tier);
  } else {
    s += fmt::format("{:<12}nothing (a group of one moves no data)\n", "limited by");
  }
  return s;
}

std::string CollectiveJson(const ClusterSpec& cluster, const CollectiveQuery& q,
                           const CollectiveCost& c) {
  const std::vector<int64_t> members = MembersPerTier(cluster, q.group);
  json tiers = json::array();
  for (size_t i = 0; i < members.size(); ++i) {
    tiers.push_back({{"name", cluster.tiers[i].name},
                     {"size", cluster.tiers[i].size},
                     {"members", members[i]}});
  }
  json j = {{"op", CollectiveOpName(q.op)},
            {"bytes", q.bytes.value()},
            {"cluster", cluster.name},
            {"chips", cluster.num_chips},
            {"group", {{"size", q.group.size}, {"stride", q.group.stride}, {"text", q.group_text}}},
            {"tiers", tiers},
            {"algorithm", CollectiveAlgorithmName(c.algorithm)},
            {"time_s", c.time.value()},
            {"algbw_gbps", c.algbw.value() / 1e9},
            {"busbw_gbps", c.busbw.value() / 1e9},
            {"limiting_tier", TierName(cluster, c.limiting_tier)},
            {"limiting_tier_index", c.limiting_tier}};
  if (q.op == CollectiveOp::kAllToAll) {
    j["imbalance"] = q.options.imbalance;
    j["top_k"] = q.options.top_k;
    j["max_units_per_token"] = q.options.max_units_per_token;
  }
  return j.dump(2) + "\n";
}

}  // namespace occam
