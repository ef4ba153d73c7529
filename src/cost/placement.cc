// Placement of parallel axes onto ranks (Megatron-Core rank layout).
// Sources: doc/cost-model.md § 5; Megatron-Core parallel_state.py
// (RankGenerator: order "tp-cp-ep-dp-pp", the first axis varies fastest);
// MoE parallel folding (Liu et al. 2025, arXiv:2504.14960 §3; Megatron-Core
// expert rank generator "tp-ep-dp-pp" with tp = expert-tp): the expert
// layers re-split the tp*cp*dp ranks of a pipeline stage as etp x ep x edp.
//
// Symbols: tp, cp, dp, pp axis sizes; B = tp*cp*dp ranks of one pipeline
// stage (the "block"); etp expert-tensor size, ep expert-parallel size
// (ep*etp divides B); edp = B / (etp*ep).
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

// The tp, cp and dp axes of the block in placement order, innermost first
// (pp and size-1 axes left out). Position j of the block (0 <= j < B) is the
// mixed-radix number over these axes; RankOf gives its rank offset.
struct Block {
  std::array<RankGroup, 3> axes{};
  int num = 0;
  int64_t size = 1;

  int64_t RankOf(int64_t position) const {
    int64_t rank = 0;
    for (int i = 0; i < num; ++i) {
      rank += (position % axes[i].size) * axes[i].stride;
      position /= axes[i].size;
    }
    return rank;
  }
  // The group of `n` positions 0, o, 2o, ...: an arithmetic progression of
  // ranks with the stride of position o. Exact when the block's axes are
  // adjacent in the order or the group stays inside one axis.
  RankGroup Group(int64_t n, int64_t o) const {
    return n > 1 ? RankGroup{n, RankOf(o)} : RankGroup{1, 1};
  }
};

Block MakeBlock(const AxisGroups& g, const std::array<Axis, 4>& dense) {
  Block b;
  for (Axis a : dense) {
    const RankGroup r = a == Axis::kTp   ? g.tp
                        : a == Axis::kCp ? g.cp
                        : a == Axis::kDp ? g.dp
                                         : g.pp;
    if (a == Axis::kPp || r.size <= 1) continue;
    b.axes[b.num++] = r;
    b.size *= r.size;
  }
  return b;
}

// True when the user order lists dp before ep (ep outside the expert-data
// ranks); the default puts ep inside, as Megatron's "tp-cp-ep-dp-pp".
bool EpOutsideDp(const std::vector<Axis>& order) {
  const auto ep = std::find(order.begin(), order.end(), Axis::kEp);
  const auto dp = std::find(order.begin(), order.end(), Axis::kDp);
  return ep != order.end() && dp < ep;
}

}  // namespace

std::vector<Axis> DefaultAxisOrder(const PlanSpec& plan) {
  (void)plan;  // one rule for every plan: doc/cost-model.md § 5
  return {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp};
}

AxisGroups PlaceAxes(const PlanSpec& plan, const std::vector<Axis>& order) {
  AxisGroups g;
  int64_t stride = 1;
  const std::array<Axis, 4> dense = DenseOrder(order);
  for (Axis a : dense) {
    *Slot(g, a) = RankGroup{AxisSize(plan, a), stride};
    stride *= AxisSize(plan, a);
  }
  // Expert groups (MoE parallel folding): the block's positions split
  // innermost first as etp, then ep, then edp (edp, then ep when the order
  // lists dp before ep). Degrees are clamped so that unvalidated plans
  // still give groups inside the block.
  const Block block = MakeBlock(g, dense);
  const int64_t etp = std::clamp<int64_t>(plan.etp, 1, block.size);
  const int64_t ep = std::clamp<int64_t>(AxisSize(plan, Axis::kEp), 1, block.size / etp);
  const int64_t edp = std::max<int64_t>(block.size / (etp * ep), 1);
  if (EpOutsideDp(order)) {
    g.edp = block.Group(edp, etp);
    g.ep = block.Group(ep, etp * edp);
  } else {
    g.ep = block.Group(ep, etp);
    g.edp = block.Group(edp, etp * ep);
  }
  for (RankGroup* r : {&g.tp, &g.cp, &g.ep, &g.dp, &g.pp, &g.edp}) r->mapping = plan.mesh;
  return g;
}

}  // namespace occam
