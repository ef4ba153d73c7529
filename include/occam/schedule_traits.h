// One description of each pipeline schedule: how it places model chunks on
// devices, how many it runs, what it needs of the micro-batch count and which
// plan options it allows. One row per Schedule in src/core/schedule_traits.cc;
// spec (plan validation), sim (operation lists), step (stage costs, memory),
// search (enumeration, bounds) and the CLI all read it, so a new schedule is
// described once (doc/extending.md).
//
// Symbols: p pipeline devices (pp), v chunks per device on one lane (the
// simulator's vpp), m micro-batches per step. Sources: doc/cost-model.md §7.2.
#pragma once

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
  // With pp > 1, Megatron-Core's combined 1F1B a2a overlap runs on it.
  bool a2a_overlap_with_pp = false;
  // Some device starts a backward before its last forward (all except
  // none and GPipe).
  bool interleaves_backward = true;
  // Search's simplicity rank: none 0 < gpipe = 1f1b < zb-h1 = interleaved <
  // zbv < dualpipev < dualpipe.
  int simplicity = 0;
};

// Every schedule, in the order of the Schedule enum.
std::span<const ScheduleTraits> AllScheduleTraits();
const ScheduleTraits& TraitsOf(Schedule s);

// v on one lane: the fixed count, else max(vpp, 1).
int64_t LaneChunks(Schedule s, int64_t vpp);
// The v a command uses when none is given: the fixed count, else min_vpp.
int64_t DefaultLaneChunks(Schedule s);
// Distinct model chunks the schedule cuts the layers into: p * v.
int64_t ModelChunkCount(Schedule s, int64_t p, int64_t v);
// Chunk of model cost that device d runs as its k-th chunk (k < v * copies).
int64_t ChunkOnDevice(Schedule s, int64_t p, int64_t d, int64_t k);

// Whether m micro-batches on p stages suit the schedule (the rules above).
bool MicrobatchesFit(Schedule s, int64_t p, int64_t m);
// What the schedule needs of p and m, or "" when they fit: "an even pp (got
// pp=3)", "at least 2*pp = 8 micro-batches", ...
std::string MicrobatchNeeds(Schedule s, int64_t p, int64_t m);
// Micro-batch counts are taken in steps of this when a pattern is
// extrapolated: p for interleaved, else pattern_microbatches.
int64_t MicrobatchPeriod(Schedule s, int64_t p);

// "interleaved, zbv or dualpipev": schedules whose plans may set vpp > 1.
std::string PlanVppScheduleNames();

}  // namespace occam
