// One description of each pipeline schedule: how it places model chunks on
// devices, how many it runs, what it needs of the micro-batch count and which
// plan options it allows. One row per Schedule in kScheduleTraits below;
// spec (plan validation), sim (operation lists), step (stage costs, memory),
// search (enumeration, bounds) and the CLI all read it, so a new schedule is
// described once (doc/extending.md).
//
// Symbols: p pipeline devices (pp), v chunks per device on one lane (the
// simulator's vpp), m micro-batches per step. Sources: doc/cost-model.md §7.2.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "occam/kinds.h"

namespace occam {

// Where a micro-batch's chunks sit on the p devices.
enum class ChunkPlacement {
  kLooped,    // chunk c on device c mod p (one chunk each when v = 1)
  kVShape,    // two chunks per device, c and 2p - 1 - c (ZB-V, DualPipeV)
  kMirrored,  // a second parameter copy runs the p stages in reverse order:
              // device d holds stage d and stage p - 1 - d (DualPipe)
};

struct ScheduleTraits {
  Schedule schedule = Schedule::kNone;
  std::string_view name;  // CLI and config name (ScheduleName)
  ChunkPlacement placement = ChunkPlacement::kLooped;
  // v the schedule runs per device on one lane; 0: set by vpp, at least
  // min_vpp.
  int64_t lane_chunks = 1;
  int64_t min_vpp = 1;
  // A training plan (`estimate`, `plan`) may set vpp > 1 (the simulator alone
  // also loops GPipe over vpp chunks, breadth first).
  bool plan_vpp = false;
  // Copies of the stage parameters each device keeps (DualPipe: 2).
  int64_t parameter_copies = 1;

  // Micro-batch rules: m a multiple of p (m_multiple_of_pp), m even
  // (m_even), m >= min_m_per_pp * p + min_m_offset; pp even (even_pp).
  bool m_multiple_of_pp = false;
  bool m_even = false;
  int64_t min_m_per_pp = 0;
  int64_t min_m_offset = 0;
  bool even_pp = false;
  // Micro-batches one repeat of the steady-state pattern takes (DualPipe and
  // DualPipeV pair one per direction or V half; interleaved: p, see
  // MicrobatchPeriod).
  int64_t pattern_microbatches = 1;

  // The step has a fill/drain bubble of (p - 1) chunk times per chunk
  // round (GPipe, 1F1B, interleaved: Narayanan et al. 2021 §2.2).
  bool fill_drain_bubble = false;
  // The schedule overlaps the expert all-to-all itself (DualPipe family).
  bool overlaps_a2a = false;
  // The backward's weight-gradient pass (W) runs apart from its
  // input-gradient pass (B), deferred into the bubbles (zero-bubble
  // schedules, Qi et al. 2024 arXiv:2401.10241 §2; DualPipe's W chunks,
  // DeepSeek-V3 §3.2.1).
  bool defers_weight_grad = false;
  // With pp > 1, Megatron-Core's combined 1F1B a2a overlap runs on it.
  bool a2a_overlap_with_pp = false;
  // Some device starts a backward before its last forward (all except
  // none and GPipe).
  bool interleaves_backward = true;
  // Search's simplicity rank: none 0 < gpipe = 1f1b < zb-h1 = interleaved <
  // zbv < dualpipev < dualpipe.
  int simplicity = 0;
};

// The table: one row per Schedule, in enum order (fields not named keep
// their defaults: one looped chunk per device, one parameter copy, any
// micro-batch count). In the header so that the step's and the planner's
// inner loops read it inline.
inline constexpr std::array<ScheduleTraits, 8> kScheduleTraits = {{
    {.schedule = Schedule::kNone, .name = "none", .interleaves_backward = false},
    {.schedule = Schedule::kGpipe,
     .name = "gpipe",
     .lane_chunks = 0,  // the simulator loops it over vpp chunks
     .fill_drain_bubble = true,
     .interleaves_backward = false,
     .simplicity = 1},
    {.schedule = Schedule::k1F1B, .name = "1f1b", .fill_drain_bubble = true, .simplicity = 1},
    {.schedule = Schedule::kInterleaved,
     .name = "interleaved",
     .lane_chunks = 0,
     .min_vpp = 2,
     .plan_vpp = true,
     .m_multiple_of_pp = true,
     .fill_drain_bubble = true,
     .a2a_overlap_with_pp = true,
     .simplicity = 2},
    {.schedule = Schedule::kZbH1, .name = "zb-h1", .defers_weight_grad = true, .simplicity = 2},
    {.schedule = Schedule::kZbV,
     .name = "zbv",
     .placement = ChunkPlacement::kVShape,
     .lane_chunks = 2,
     .plan_vpp = true,
     .min_m_per_pp = 2,
     .min_m_offset = -1,
     .defers_weight_grad = true,
     .simplicity = 3},
    {.schedule = Schedule::kDualPipe,
     .name = "dualpipe",
     .placement = ChunkPlacement::kMirrored,
     .parameter_copies = 2,
     .m_even = true,
     .min_m_per_pp = 2,
     .even_pp = true,
     .pattern_microbatches = 2,
     .overlaps_a2a = true,
     .defers_weight_grad = true,
     .simplicity = 5},
    {.schedule = Schedule::kDualPipeV,
     .name = "dualpipev",
     .placement = ChunkPlacement::kVShape,
     .lane_chunks = 2,
     .plan_vpp = true,
     .min_m_per_pp = 2,
     .pattern_microbatches = 2,
     .overlaps_a2a = true,
     .defers_weight_grad = true,
     .simplicity = 4},
}};

constexpr bool ScheduleTraitsInEnumOrder() {
  for (size_t i = 0; i < kScheduleTraits.size(); ++i) {
    if (static_cast<size_t>(kScheduleTraits[i].schedule) != i) return false;
  }
  return true;
}
static_assert(ScheduleTraitsInEnumOrder(), "TraitsOf indexes the table by the Schedule value");

// Every schedule, in the order of the Schedule enum.
inline std::span<const ScheduleTraits> AllScheduleTraits() { return kScheduleTraits; }
constexpr const ScheduleTraits& TraitsOf(Schedule s) {
  return kScheduleTraits[static_cast<size_t>(s)];
}

// v on one lane: the fixed count, else max(vpp, 1).
constexpr int64_t LaneChunks(Schedule s, int64_t vpp) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.lane_chunks > 0 ? t.lane_chunks : (vpp > 1 ? vpp : 1);
}
// Distinct model chunks the schedule cuts the layers into: p * v.
constexpr int64_t ModelChunkCount(Schedule s, int64_t p, int64_t v) { return p * LaneChunks(s, v); }
// Chunk of model cost that device d runs as its k-th chunk (k < v * copies).
constexpr int64_t ChunkOnDevice(Schedule s, int64_t p, int64_t d, int64_t k) {
  if (k == 0) return d;
  switch (TraitsOf(s).placement) {
    case ChunkPlacement::kMirrored:
      return p - 1 - d;
    case ChunkPlacement::kVShape:
      return 2 * p - 1 - d;
    case ChunkPlacement::kLooped:
      break;
  }
  return d + k * p;
}
// Whether m micro-batches on p stages suit the schedule (the rules above).
constexpr bool MicrobatchesFit(Schedule s, int64_t p, int64_t m) {
  const ScheduleTraits& t = TraitsOf(s);
  if (t.even_pp && p % 2 != 0) return false;
  if (t.m_multiple_of_pp && m % p != 0) return false;
  if (t.m_even && m % 2 != 0) return false;
  return m >= t.min_m_per_pp * p + t.min_m_offset;
}
// Micro-batch counts are taken in steps of this when a pattern is
// extrapolated: p for interleaved, else pattern_microbatches.
constexpr int64_t MicrobatchPeriod(Schedule s, int64_t p) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.m_multiple_of_pp ? p : t.pattern_microbatches;
}

// The v a command uses when none is given: the fixed count, else min_vpp.
int64_t DefaultLaneChunks(Schedule s);

// What the schedule needs of p and m, or "" when they fit: "an even pp (got
// pp=3)", "at least 2*pp = 8 micro-batches", ...
std::string MicrobatchNeeds(Schedule s, int64_t p, int64_t m);

// "interleaved, zbv or dualpipev": schedules whose plans may set vpp > 1.
std::string PlanVppScheduleNames();

}  // namespace occam
