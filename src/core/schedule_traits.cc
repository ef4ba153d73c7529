// What the schedule table says, in words. Sources of the table's rules
// (kScheduleTraits, occam/schedule_traits.h):
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

std::string Str(int64_t x) { return std::to_string(x); }

// "2*pp-1", "2*pp": the least micro-batch count as a formula of pp.
std::string MinFormula(const ScheduleTraits& t) {
  std::string f = Str(t.min_m_per_pp) + "*pp";
  if (t.min_m_offset < 0) f += "-" + Str(-t.min_m_offset);
  if (t.min_m_offset > 0) f += "+" + Str(t.min_m_offset);
  return f;
}

}  // namespace

int64_t DefaultLaneChunks(Schedule s) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.lane_chunks > 0 ? t.lane_chunks : t.min_vpp;
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

std::string PlanVppScheduleNames() {
  std::vector<std::string_view> names;
  for (const ScheduleTraits& t : AllScheduleTraits()) {
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
