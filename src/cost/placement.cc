// Placement of parallel axes onto ranks (Megatron-Core rank layout).
// Sources: doc/cost-model.md § 5; Megatron-Core parallel_state.py
// (RankGenerator: order "tp-cp-ep-dp-pp", the first axis varies fastest;
// expert groups re-split the dp*cp ranks as ep x edp).
//
// Symbols: tp, cp, dp, pp axis sizes; ep expert-parallel size (divides
// dp*cp); edp = dp*cp / ep.
#include <algorithm>
#include <array>

#include "occam/collective.h"

namespace occam {
namespace {

int64_t AxisSize(const PlanSpec& plan, Axis a) {
  switch (a) {
    case Axis::kTp:
      return std::max<int64_t>(plan.tp, 1);
    case Axis::kCp:
      return std::max<int64_t>(plan.cp, 1);
    case Axis::kEp:
      return std::max<int64_t>(plan.ep, 1);
    case Axis::kDp:
      return std::max<int64_t>(plan.dp, 1);
    case Axis::kPp:
      return std::max<int64_t>(plan.pp, 1);
  }
  return 1;
}

RankGroup* Slot(AxisGroups& g, Axis a) {
  switch (a) {
    case Axis::kTp:
      return &g.tp;
    case Axis::kCp:
      return &g.cp;
    case Axis::kEp:
      return &g.ep;
    case Axis::kDp:
      return &g.dp;
    case Axis::kPp:
      return &g.pp;
  }
  return &g.tp;
}

// The dense axes in placement order: `order` without kEp and repeats, then
// the missing ones in the default sequence.
std::array<Axis, 4> DenseOrder(const std::vector<Axis>& order) {
  std::array<Axis, 4> seq{};
  size_t used = 0;
  auto add = [&](Axis a) {
    if (a == Axis::kEp) return;
    if (std::find(seq.begin(), seq.begin() + static_cast<long>(used), a) !=
        seq.begin() + static_cast<long>(used)) {
      return;
    }
    seq[used++] = a;
  };
  for (Axis a : order) add(a);
  for (Axis a : {Axis::kTp, Axis::kCp, Axis::kDp, Axis::kPp}) add(a);
  return seq;
}

}  // namespace

std::vector<Axis> DefaultAxisOrder(const PlanSpec& plan) {
  (void)plan;  // one rule for every plan: doc/cost-model.md § 5
  return {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp};
}

AxisGroups PlaceAxes(const PlanSpec& plan, const std::vector<Axis>& order) {
  AxisGroups g;
  int64_t stride = 1;
  for (Axis a : DenseOrder(order)) {
    *Slot(g, a) = RankGroup{AxisSize(plan, a), stride};
    stride *= AxisSize(plan, a);
  }
  // Expert groups: the innermost ep ranks of the dp*cp block, edp the rest.
  // The block is a progression when cp and dp are adjacent in the order (or
  // one of them is 1); otherwise the groups below are an approximation.
  const bool cp_inner = g.cp.size > 1 && (g.dp.size == 1 || g.cp.stride < g.dp.stride);
  const int64_t inner_stride = cp_inner ? g.cp.stride : g.dp.stride;
  const int64_t block = g.cp.size * g.dp.size;
  const int64_t ep = std::clamp<int64_t>(AxisSize(plan, Axis::kEp), 1, block);
  g.ep = ep > 1 ? RankGroup{ep, inner_stride} : RankGroup{1, 1};
  const int64_t edp = std::max<int64_t>(block / ep, 1);
  g.edp = edp > 1 ? RankGroup{edp, inner_stride * ep} : RankGroup{1, 1};
  return g;
}

}  // namespace occam
