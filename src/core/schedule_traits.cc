// The schedule table (see occam/schedule_traits.h). Sources of the rules:
// interleaved m % p == 0 (Megatron-LM, Narayanan et al. 2021
// arXiv:2104.04473 §2.2); ZB-V m >= 2p - 1 and a V of two chunks per device
// (Qi et al. arXiv:2405.15362); DualPipe even p, even m >= 2p and two
// parameter copies, DualPipeV m >= 2p on a V (DeepSeek-V3 arXiv:2412.19437
// §3.2.1; deepseek-ai/DualPipe README); combined-1F1B a2a overlap only on the
// interleaved schedule (Megatron-Core transformer_config.py).
#include "occam/schedule_traits.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

namespace occam {
namespace {

// One row per Schedule, in enum order (fields not named keep their defaults:
// one looped chunk per device, one parameter copy, any micro-batch count).
constexpr std::array<ScheduleTraits, 8> kTraits = {{
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
    {.schedule = Schedule::kZbH1, .name = "zb-h1", .simplicity = 2},
    {.schedule = Schedule::kZbV,
     .name = "zbv",
     .placement = ChunkPlacement::kVShape,
     .lane_chunks = 2,
     .plan_vpp = true,
     .min_m_per_pp = 2,
     .min_m_offset = -1,
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
     .simplicity = 5},
    {.schedule = Schedule::kDualPipeV,
     .name = "dualpipev",
     .placement = ChunkPlacement::kVShape,
     .lane_chunks = 2,
     .plan_vpp = true,
     .min_m_per_pp = 2,
     .pattern_microbatches = 2,
     .overlaps_a2a = true,
     .simplicity = 4},
}};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (static_cast<size_t>(kTraits[i].schedule) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "TraitsOf indexes the table by the Schedule value");

std::string Str(int64_t x) { return std::to_string(x); }

// "2*pp-1", "2*pp": the least micro-batch count as a formula of pp.
std::string MinFormula(const ScheduleTraits& t) {
  std::string f = Str(t.min_m_per_pp) + "*pp";
  if (t.min_m_offset < 0) f += "-" + Str(-t.min_m_offset);
  if (t.min_m_offset > 0) f += "+" + Str(t.min_m_offset);
  return f;
}

}  // namespace

std::span<const ScheduleTraits> AllScheduleTraits() { return kTraits; }

const ScheduleTraits& TraitsOf(Schedule s) { return kTraits[static_cast<size_t>(s)]; }

int64_t LaneChunks(Schedule s, int64_t vpp) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.lane_chunks > 0 ? t.lane_chunks : std::max<int64_t>(vpp, 1);
}

int64_t DefaultLaneChunks(Schedule s) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.lane_chunks > 0 ? t.lane_chunks : t.min_vpp;
}

int64_t ModelChunkCount(Schedule s, int64_t p, int64_t v) { return p * LaneChunks(s, v); }

int64_t ChunkOnDevice(Schedule s, int64_t p, int64_t d, int64_t k) {
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

bool MicrobatchesFit(Schedule s, int64_t p, int64_t m) {
  const ScheduleTraits& t = TraitsOf(s);
  if (t.even_pp && p % 2 != 0) return false;
  if (t.m_multiple_of_pp && m % p != 0) return false;
  if (t.m_even && m % 2 != 0) return false;
  return m >= t.min_m_per_pp * p + t.min_m_offset;
}

std::string MicrobatchNeeds(Schedule s, int64_t p, int64_t m) {
  const ScheduleTraits& t = TraitsOf(s);
  if (t.even_pp && p % 2 != 0) return "an even pp (got pp=" + Str(p) + ")";
  if (t.m_multiple_of_pp && m % p != 0) {
    return "a micro-batch count that is a multiple of pp=" + Str(p);
  }
  const int64_t least = t.min_m_per_pp * p + t.min_m_offset;
  if (t.m_even && (m % 2 != 0 || m < least)) {
    return "an even micro-batch count of at least " + MinFormula(t) + " = " + Str(least);
  }
  if (m < least) return "at least " + MinFormula(t) + " = " + Str(least) + " micro-batches";
  return "";
}

int64_t MicrobatchPeriod(Schedule s, int64_t p) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.m_multiple_of_pp ? p : t.pattern_microbatches;
}

std::string PlanVppScheduleNames() {
  std::vector<std::string_view> names;
  for (const ScheduleTraits& t : kTraits) {
    if (t.plan_vpp) names.push_back(t.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace occam
