// Collective communication costs on multi-tier clusters (part of the cost
// layer). Sources of every formula: doc/cost-model.md § Collectives.
//
// Ranks are numbered 0..num_chips-1; a tier-i unit is a block of
// tiers[i].size consecutive ranks. Inside a TPU torus a group's mapping says
// where its ranks sit: linear (x fastest, then y, then z) or compact
// (the axes' prime factors interleaved; TorusMapping in occam/kinds.h).
// Every parallel-axis group is an arithmetic progression of ranks, so a group
// is (size, stride); all groups of one axis run concurrently, and every rank
// belongs to exactly one of them. Groups are aligned: a group's first rank is
// a multiple of its span inside the blocks it touches.
//
// Tier bandwidth is per chip, one direction (TierSpec): for kSwitch it is the
// chip's rate into the switch, for kMesh the sum over its (size-1) pair links,
// for kTorus the sum over its 2*dims links, for kFatTree / kDcn the chip's NIC
// share. A tier's usable rate is bandwidth / oversubscription.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "occam/spec.h"
#include "occam/units.h"

namespace occam {

enum class CollectiveOp {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kSendRecv
};

std::string_view CollectiveOpName(CollectiveOp op);  // "all-reduce", ...

enum class CollectiveAlgorithm {
  kNone,  // group of one: nothing to do
  kRing,
  kTree,          // double binary tree
  kNvls,          // NVLink SHARP in-switch reduction
  kHierarchical,  // reduce-scatter inside, all-reduce across, all-gather inside
  kTorus,         // per-dimension bidirectional rings on a torus (one or more axes)
  kDirect,        // pairwise / mesh (all-to-all, MI300X mesh, send/recv)
};

std::string_view CollectiveAlgorithmName(CollectiveAlgorithm a);

struct RankGroup {
  int64_t size = 1;
  int64_t stride = 1;
  TorusMapping mapping = TorusMapping::kLinear;  // read on torus tiers only
};

// Clusters with more tiers than this are costed on their innermost tiers only
// (ValidateCollectiveGroup rejects them).
inline constexpr int kMaxCollectiveTiers = 8;

struct CollectiveOptions {
  // All-to-all: max/mean receive load over ranks (1 = uniform).
  double imbalance = 1.0;
  // All-to-all: node-limited routing, each token goes to at most this many
  // fast-domain units (0 = unlimited; DeepSeek-V3: 4). `top_k` is needed with it.
  int64_t max_units_per_token = 0;
  int64_t top_k = 0;
  // Restrict the choice (kNone = pick the fastest applicable, as NCCL/XLA would).
  // A forced algorithm that does not apply yields an infinite time.
  CollectiveAlgorithm force = CollectiveAlgorithm::kNone;
};

struct CollectiveCost {
  Seconds time;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kNone;
  int limiting_tier = -1;  // index into cluster.tiers, -1 for none
  // Seconds each cluster tier's links (a chip's share of them) spend moving
  // this call's bytes at the tier's rate: the bandwidth terms, latency
  // excluded; at most `time`. Two calls that cross the same tier at once
  // share its links, so their busy times on it add up.
  std::array<Seconds, kMaxCollectiveTiers> busy{};
  // nccl-tests conventions: algbw = bytes / time; busbw = algbw * factor(op, n).
  BytesPerSecond algbw;
  BytesPerSecond busbw;
};

// `bytes` follows nccl-tests' "size": the all-reduce buffer, the all-gather
// output, the reduce-scatter input, the per-rank all-to-all send buffer, the
// broadcast / send buffer. Cost of one call when every group of this shape
// runs at once. Must stay allocation-free: the planner calls it millions of
// times.
CollectiveCost EstimateCollective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                                  RankGroup group, const CollectiveOptions& options = {});

// Where a group sits on the tiers (doc/cost-model.md § 4): n members, m_i of
// them inside one tier-i unit, f_i = m_i / m_{i-1} units of tier i-1 touched
// inside one tier-i unit, `top` the highest tier with f_i > 1 (-1: a group of
// one). Counts are whole numbers held as doubles for the cost arithmetic.
struct CollectiveLayout {
  int num_tiers = 0;
  double n = 1;
  std::array<double, kMaxCollectiveTiers> members{};  // m_i
  std::array<double, kMaxCollectiveTiers> fanout{};   // f_i
  int top = -1;
};

// A group with its layout computed once, for costing many calls on it.
struct PreparedGroup {
  RankGroup group;
  CollectiveLayout layout;
};
PreparedGroup PrepareGroup(const ClusterSpec& cluster, RankGroup group);

// EstimateCollective on a prepared group: the same result as passing
// `prepared.group` with the cluster it was prepared for. Allocation-free.
CollectiveCost EstimateCollective(const ClusterSpec& cluster, CollectiveOp op, Bytes bytes,
                                  const PreparedGroup& prepared,
                                  const CollectiveOptions& options = {});

// nccl-tests bus-bandwidth factor: 2(n-1)/n for all-reduce, (n-1)/n for
// all-gather / reduce-scatter / all-to-all, 1 for broadcast and send/recv.
double BusBandwidthFactor(CollectiveOp op, int64_t n);

// Checks a user-given group against a cluster (size >= 1, stride >= 1,
// size*stride <= num_chips, tier count); messages name `what` (a flag).
Status ValidateCollectiveGroup(const ClusterSpec& cluster, RankGroup group, std::string_view what);

// Where a group sits: how many of its members share one tier-i unit, per tier.
std::vector<int64_t> MembersPerTier(const ClusterSpec& cluster, RankGroup group);

// Placement (Megatron-Core rank layout): the group of each parallel axis when
// the axes are laid onto the ranks in `order` (innermost first, the first
// axis varies fastest). Axes absent from `order` are laid outside the listed
// ones in the default sequence tp, cp, dp, pp. MoE parallel folding: the
// tp*cp*dp ranks of a pipeline stage, in rank order, are re-split innermost
// first as etp x ep x edp (ep*etp divides tp*cp*dp); kEp listed after kDp in
// `order` puts edp inside ep instead. See doc/cost-model.md § 5.
struct AxisGroups {
  RankGroup tp, cp, ep, dp, pp;
  RankGroup edp;  // expert-data-parallel group: tp*cp*dp / (ep*etp) ranks with the same experts
};
AxisGroups PlaceAxes(const PlanSpec& plan, const std::vector<Axis>& order);
// The default order (tp, ep/cp, dp, pp) for this plan; see doc/cost-model.md.
std::vector<Axis> DefaultAxisOrder(const PlanSpec& plan);

}  // namespace occam
