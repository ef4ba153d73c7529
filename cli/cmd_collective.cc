// occam collective: the cost of one collective on a cluster (algorithm, time,
// algbw/busbw, limiting tier). Flags only; the model is EstimateCollective.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/collective.h"
#include "occam/report.h"

namespace occam::cli {
namespace {

struct CollectiveFlags {
  std::string cluster;
  int64_t chips = 0;
  std::string op;
  std::string bytes;
  std::string group;  // "a-b"
  int64_t group_size = 0;
  int64_t stride = 0;
  std::string axes;  // "x,y"
  double imbalance = 0;
  int64_t max_nodes = 0;
  int64_t topk = 0;
  std::string algorithm;
  bool json = false;
};

std::optional<CollectiveOp> ParseOp(const std::string& s) {
  for (CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather,
        CollectiveOp::kAllToAll, CollectiveOp::kBroadcast, CollectiveOp::kSendRecv}) {
    if (s == CollectiveOpName(op)) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> ParseAlgorithm(const std::string& s) {
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kTree,
                                CollectiveAlgorithm::kNvls, CollectiveAlgorithm::kHierarchical,
                                CollectiveAlgorithm::kTorus, CollectiveAlgorithm::kDirect}) {
    if (s == CollectiveAlgorithmName(a)) return a;
  }
  return std::nullopt;
}

Result<int64_t> ParseRank(const std::string& text) {
  size_t pos = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &pos);
  } catch (...) {
    pos = 0;
  }
  if (pos == 0 || pos != text.size() || v < 0) {
    return InvalidInput("--group: '" + text + "' is not a rank number (e.g. --group 0-15)");
  }
  return static_cast<int64_t>(v);
}

// --group a-b: a contiguous, aligned block of ranks.
Result<RankGroup> GroupFromRange(const std::string& text, int64_t chips) {
  const size_t dash = text.find('-');
  if (dash == std::string::npos) {
    return InvalidInput("--group: '" + text + "' is not a rank range a-b (e.g. --group 0-15)");
  }
  OCCAM_ASSIGN_OR_RETURN(int64_t first, ParseRank(text.substr(0, dash)));
  OCCAM_ASSIGN_OR_RETURN(int64_t last, ParseRank(text.substr(dash + 1)));
  if (last < first) return InvalidInput("--group: " + text + " ends before it starts");
  if (last >= chips) {
    return InvalidInput("--group: rank " + std::to_string(last) +
                        " does not exist (the cluster has " + std::to_string(chips) +
                        " chips, ranks 0-" + std::to_string(chips - 1) + ")");
  }
  const int64_t size = last - first + 1;
  if (first % size != 0) {
    return InvalidInput("--group: " + text + " is not aligned; a range of " + std::to_string(size) +
                        " ranks must start at a multiple of " + std::to_string(size) +
                        " (as every parallel-axis group does), e.g. --group " +
                        std::to_string(first / size * size) + "-" +
                        std::to_string(first / size * size + size - 1));
  }
  return RankGroup{size, 1};
}

// --axes x,y: whole torus axes of the innermost tier; they must be adjacent
// in rank order (x fastest) so that the group is one progression.
Result<RankGroup> GroupFromAxes(const std::string& text, const ClusterSpec& cluster) {
  const TierSpec& t = cluster.tiers.front();
  if (t.kind != TierKind::kTorus || t.torus_dims.empty()) {
    return InvalidInput("--axes applies to torus clusters (TPU); '" + cluster.name + "' has a " +
                        t.name + " tier; use --group or --group-size");
  }
  const std::string names = "xyzw";
  std::vector<bool> used(t.torus_dims.size(), false);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',') continue;
    const size_t axis = names.find(text[i]);
    if (axis == std::string::npos || axis >= t.torus_dims.size()) {
      return InvalidInput("--axes: '" + text + "' names an axis the " +
                          std::to_string(t.torus_dims.size()) + "D torus does not have (use " +
                          names.substr(0, t.torus_dims.size()) + ", comma separated)");
    }
    used[axis] = true;
  }
  int64_t size = 1, stride = 1;
  bool started = false, ended = false;
  for (size_t d = 0; d < used.size(); ++d) {
    if (used[d] && ended) {
      return InvalidInput("--axes: " + text +
                          " are not adjacent in rank order (x varies fastest, then y, then z); "
                          "a group is one rank progression: use x,y or y,z");
    }
    if (used[d]) {
      size *= t.torus_dims[d];
      started = true;
    } else if (started) {
      ended = true;
    } else {
      stride *= t.torus_dims[d];
    }
  }
  if (!started) return InvalidInput("--axes: no axis given (e.g. --axes x,y)");
  return RankGroup{size, stride};
}

Result<RankGroup> BuildGroup(const CollectiveFlags& f, const ClusterSpec& cluster) {
  const int given = (!f.group.empty()) + (f.group_size > 0 || f.stride > 0) + (!f.axes.empty());
  if (given > 1) {
    return InvalidInput("give one of --group a-b, --group-size N [--stride S] or --axes x,y");
  }
  RankGroup g{cluster.num_chips, 1};
  std::string what = "--group-size";
  if (!f.group.empty()) {
    OCCAM_ASSIGN_OR_RETURN(g, GroupFromRange(f.group, cluster.num_chips));
    what = "--group";
  } else if (!f.axes.empty()) {
    OCCAM_ASSIGN_OR_RETURN(g, GroupFromAxes(f.axes, cluster));
    what = "--axes";
  } else if (f.group_size > 0 || f.stride > 0) {
    if (f.group_size <= 0) return InvalidInput("--stride needs --group-size N (>= 1)");
    g = RankGroup{f.group_size, f.stride > 0 ? f.stride : 1};
  }
  OCCAM_RETURN_IF_ERROR(ValidateCollectiveGroup(cluster, g, what));
  return g;
}

std::string GroupText(const CollectiveFlags& f, RankGroup g) {
  if (!f.group.empty()) return "ranks " + f.group;
  if (!f.axes.empty()) return "axes " + f.axes;
  if (f.group_size > 0) return "group size " + std::to_string(g.size);
  return "all ranks";
}

Result<CollectiveOptions> BuildOptions(const CollectiveFlags& f, CollectiveOp op) {
  CollectiveOptions o;
  const bool a2a_flags = f.imbalance != 0 || f.max_nodes != 0 || f.topk != 0;
  if (a2a_flags && op != CollectiveOp::kAllToAll) {
    return InvalidInput("--imbalance, --max-nodes and --topk apply to --op all-to-all only");
  }
  if (f.imbalance != 0) {
    if (!(f.imbalance >= 1.0) || !std::isfinite(f.imbalance)) {
      return InvalidInput("--imbalance is max/mean receive load and must be >= 1 (got " +
                          std::to_string(f.imbalance) + ")");
    }
    o.imbalance = f.imbalance;
  }
  if (f.topk < 0) return InvalidInput("--topk must be >= 1");
  if (f.max_nodes < 0) return InvalidInput("--max-nodes must be >= 1");
  if (f.max_nodes > 0 && f.topk == 0) {
    return InvalidInput(
        "--max-nodes needs --topk (experts per token), e.g. --max-nodes 4 --topk 8");
  }
  o.top_k = f.topk;
  o.max_units_per_token = f.max_nodes;
  if (!f.algorithm.empty()) {
    const auto a = ParseAlgorithm(f.algorithm);
    if (!a) {
      return InvalidInput("--algorithm: '" + f.algorithm +
                          "' is not one of ring, tree, nvls, hierarchical, torus, direct");
    }
    o.force = *a;
  }
  return o;
}

// Flags whose default (0) means "not given": a given value must be valid.
Status CheckGivenCounts(const CLI::App& cmd, const CollectiveFlags& f) {
  for (auto [flag, v, min] :
       {std::tuple<const char*, double, double>{"--group-size", double(f.group_size), 1},
        {"--stride", double(f.stride), 1},
        {"--imbalance", f.imbalance, 1},
        {"--max-nodes", double(f.max_nodes), 1},
        {"--topk", double(f.topk), 1},
        {"--chips", double(f.chips), 1}}) {
    if (Given(cmd, flag) && !(v >= min)) {
      return InvalidInput(std::string(flag) + " must be >= " + std::to_string(int(min)) + " (got " +
                          fmt::format("{:g}", v) + ")");
    }
  }
  return Status::Ok();
}

Result<std::string> Run(const CollectiveFlags& f) {
  const auto op = ParseOp(f.op);
  if (!op) {
    return InvalidInput("--op: '" + f.op +
                        "' is not one of all-reduce, reduce-scatter, all-gather, all-to-all, "
                        "broadcast, send-recv");
  }
  OCCAM_ASSIGN_OR_RETURN(double bytes, ParseScaled(f.bytes, "--bytes"));
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(RankGroup group, BuildGroup(f, cluster));
  if (*op == CollectiveOp::kSendRecv && group.size != 2) {
    return InvalidInput("--op send-recv is between two ranks: use --group-size 2 --stride S (got " +
                        std::to_string(group.size) + " ranks)");
  }
  OCCAM_ASSIGN_OR_RETURN(CollectiveOptions options, BuildOptions(f, *op));
  CollectiveQuery q{*op, Bytes(bytes), group, options, GroupText(f, group)};
  const CollectiveCost cost = EstimateCollective(cluster, q.op, q.bytes, q.group, q.options);
  if (!std::isfinite(cost.time.value())) {
    return InvalidInput("--algorithm " + f.algorithm + " does not apply to " + f.op +
                        " on this group and cluster; omit --algorithm to let occam choose");
  }
  return f.json ? CollectiveJson(cluster, q, cost) : CollectiveText(cluster, q, cost);
}

}  // namespace

void RegisterCollective(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<CollectiveFlags>();
  auto* cmd = app.add_subcommand(
      "collective", "cost of one collective on a cluster: algorithm, time, algbw/busbw, limit");
  cmd->add_option("--cluster", flags->cluster, "cluster template name or cluster file")->required();
  cmd->add_option("--chips", flags->chips, "chips in the cluster (templates)");
  cmd->add_option("--op", flags->op,
                  "all-reduce, reduce-scatter, all-gather, all-to-all, broadcast, send-recv")
      ->required();
  cmd->add_option("--bytes", flags->bytes,
                  "nccl-tests size: AR buffer, AG output, RS input, per-rank A2A send buffer "
                  "(e.g. 1GiB, 256M)")
      ->required();
  cmd->add_option("--group", flags->group, "contiguous rank range a-b (default: all ranks)");
  cmd->add_option("--group-size", flags->group_size, "ranks in the group");
  cmd->add_option("--stride", flags->stride, "rank distance between group members (default 1)");
  cmd->add_option("--axes", flags->axes, "whole torus axes, e.g. x,y (TPU clusters)");
  cmd->add_option("--imbalance", flags->imbalance, "all-to-all max/mean receive load (>= 1)");
  cmd->add_option("--max-nodes", flags->max_nodes,
                  "all-to-all: each token reaches at most this many fast-domain units");
  cmd->add_option("--topk", flags->topk, "all-to-all: experts per token (with --max-nodes)");
  cmd->add_option("--algorithm", flags->algorithm,
                  "force ring, tree, nvls, hierarchical, torus or direct (default: fastest)");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->callback([cmd, flags, output] {
    if (const Status given = CheckGivenCounts(*cmd, *flags); !given.ok()) {
      output->Finish(given);
      return;
    }
    const Result<std::string> out = Run(*flags);
    if (out.ok()) output->out += *out;
    output->Finish(out.status());
  });
}

}  // namespace occam::cli
