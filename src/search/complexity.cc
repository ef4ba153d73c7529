// LayoutComplexity: an explicit score of how hard a layout is to build,
// debug and operate. Each term is one thing a training team must get right;
// the weights order the features by the engineering they need (doc/search.md
// §Complexity lists the table and the reasoning).
#include <cstdint>

#include "occam/schedule_traits.h"
#include "occam/search.h"

namespace occam {
namespace {

// Pipeline schedules, simplest first (the table's `simplicity`): none <
// gpipe = 1f1b < zb-h1 = interleaved < zbv < dualpipev < dualpipe (two
// directions, two parameter copies).
int ScheduleScore(Schedule s) { return TraitsOf(s).simplicity; }

int ShardingScore(const PlanSpec& p) {
  if (p.hsdp > 0) return 3;   // FSDP inside a unit plus replication across units
  if (p.zero >= 3) return 2;  // FSDP: weights gathered every micro-batch
  if (p.zero == 2) return 1;  // gradients sharded too
  return 0;                   // replicated or ZeRO-1 distributed optimizer
}

}  // namespace

int LayoutComplexity(const PlanSpec& p, const ClusterSpec& cluster) {
  const int64_t fast = cluster.tiers.empty() ? 1 : cluster.tiers.front().size;
  int score = 0;
  if (p.tp > 1) score += 1;
  if (p.tp > fast) score += 2;  // tensor parallel across the slow network
  if (p.cp > 1) score += 2;
  if (p.ep > 1) score += 1;
  if (p.etp > 1) score += 1;
  if (p.pp > 1) score += 2 + ScheduleScore(p.schedule);
  score += ShardingScore(p);
  if (p.recompute != Recompute::kNone) score += 1;
  // Expert all-to-all overlap: a second stream and a split or paired schedule.
  if (p.a2a_overlap != EpOverlap::kNone) score += 1;
  if (!p.order.empty()) score += 1;  // non-default placement
  if (!p.stage_layers.empty()) score += 1;
  return score;
}

}  // namespace occam
