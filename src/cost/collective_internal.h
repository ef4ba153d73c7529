// Private pieces of the collective cost model shared by collective*.cc.
// Sources of every formula: doc/cost-model.md § 4.
//
// Symbols: n group size; S bytes of one call (nccl-tests "size"); m_i group
// members inside one tier-i unit; f_i = m_i / m_{i-1} units of tier i-1 the
// group touches inside one tier-i unit (m_{-1} = 1); B_i tier bandwidth per
// chip, one direction; o_i oversubscription; eta_i(x) size-dependent
// efficiency; alpha_i per-step latency.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "occam/collective.h"

namespace occam::collective_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Where a group sits on the tiers (occam/collective.h CollectiveLayout).
using Layout = CollectiveLayout;

Layout MakeLayout(const ClusterSpec& cluster, RankGroup group);

// Seconds per level (tier) of a layout.
using PerTier = std::array<double, kMaxCollectiveTiers>;

// A candidate's cost: total seconds, the tier that contributes most, and the
// seconds each level's links spend moving its bytes at their rate (the
// bandwidth terms, latency excluded: CollectiveCost::busy).
struct Cost {
  double time = kInf;
  int tier = -1;
  PerTier busy{};
};

// Adds `times` x `from` into `to`.
inline void AddBusy(PerTier& to, const PerTier& from, double times = 1.0) {
  for (size_t i = 0; i < to.size(); ++i) to[i] += times * from[i];
}

// Accumulates per-tier contributions of a serialized algorithm.
struct TierSum {
  PerTier part{};
  PerTier busy{};
  double total = 0;
  // A phase of `seconds` on `tier`, `bandwidth` of them moving bytes.
  void Add(int tier, double seconds, double bandwidth) {
    part[static_cast<size_t>(tier)] += seconds;
    busy[static_cast<size_t>(tier)] += bandwidth;
    total += seconds;
  }
  // `times` phases costed as `c`.
  void Add(const Cost& c, double times = 1.0) {
    if (c.tier < 0) return;
    part[static_cast<size_t>(c.tier)] += times * c.time;
    total += times * c.time;
    AddBusy(busy, c.busy, times);
  }
  Cost Result() const;
};

// eta_i(x) = efficiency_i * x / (x + half_bandwidth_i), x = the bytes of one
// transfer: one ring step's chunk, one peer's share (doc § 4.2).
double Eta(const TierSpec& tier, double bytes);
// Usable per-chip rate of a tier for traffic that crosses it: B_i / o_i.
double TierRate(const TierSpec& tier);
// Per-chip rate of the innermost tier for a sub-group of m members of its
// unit: full rate on a switch, (m-1) of (size-1) pair links on a mesh.
double InnerRate(const TierSpec& tier, double m);

// The tier each level of a layout is costed with: the cluster's tiers, or,
// for a switched innermost unit split into sub-units (SplitInner), tier 0 for
// both the sub-unit level and the level across sub-units.
struct Tiers {
  std::array<const TierSpec*, kMaxCollectiveTiers> level{};
  const TierSpec& operator[](size_t i) const { return *level[i]; }
};
Tiers ClusterTiers(const ClusterSpec& cluster);

// Ring over tiers [base, top] of `layout` (members of tier base-1 count as 1
// when base > 0): `phases` ring phases (1: RS or AG, 2: AR) each moving
// (n-1)/n of `traffic` bytes per rank in chunks of `msg` / n bytes.
Cost Ring(const Tiers& tiers, const Layout& layout, int base, double traffic, double msg,
          int phases);
Cost Ring(const ClusterSpec& cluster, const Layout& layout, int base, double traffic, double msg,
          int phases);
// The same group with its innermost `inner` members per tier-0 unit folded
// away: the "across" part of a hierarchical algorithm.
Layout Across(const Layout& layout);

// Switched / mesh / fat-tree algorithms (collective_switched.cc).
Cost BestSwitched(const ClusterSpec& cluster, CollectiveOp op, double bytes, const Layout& layout,
                  const CollectiveOptions& options, CollectiveAlgorithm* algorithm);
// TPU torus algorithms, tier 0 is kTorus (collective_torus.cc).
Cost BestTorus(const ClusterSpec& cluster, CollectiveOp op, double bytes, RankGroup group,
               const Layout& layout, const CollectiveOptions& options,
               CollectiveAlgorithm* algorithm);
// Expert / uniform all-to-all on switched tiers (collective_alltoall.cc).
Cost AllToAllSwitched(const Tiers& tiers, double bytes, const Layout& layout,
                      const CollectiveOptions& options);

// Picks `candidate` into (best, best_algorithm) when it is faster and allowed.
void Consider(Cost candidate, CollectiveAlgorithm algorithm, CollectiveAlgorithm force, Cost* best,
              CollectiveAlgorithm* best_algorithm);

}  // namespace occam::collective_internal
