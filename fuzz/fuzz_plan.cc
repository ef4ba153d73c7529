// Fuzzes plan strings (ParsePlan). Invariants: errors name a plan field or
// the plan itself; an accepted plan round-trips through FormatPlan.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "occam/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const occam::Result<occam::PlanSpec> plan = occam::ParsePlan(text);
  if (!plan.ok()) {
    occam::fuzz::CheckInputError(plan.status(), "");
    occam::fuzz::Check(plan.status().message().find("plan") != std::string::npos,
                       "a plan error must say 'plan'");
    return 0;
  }
  occam::fuzz::Check(plan->tp >= 1 && plan->cp >= 1 && plan->pp >= 1 && plan->dp >= 1 &&
                         plan->ep >= 1 && plan->vpp >= 1 && plan->mbs >= 1,
                     "an accepted plan has degrees >= 1");
  const std::string formatted = occam::FormatPlan(*plan);
  // FormatPlan spells out defaults, so a near-limit input may format past the
  // 4096-character limit of ParsePlan; such a plan is not re-parsed.
  if (formatted.size() > 4096) return 0;
  const occam::Result<occam::PlanSpec> again = occam::ParsePlan(formatted);
  occam::fuzz::Check(again.ok(), "FormatPlan output must parse");
  occam::fuzz::Check(occam::FormatPlan(*again) == formatted, "FormatPlan must round-trip");
  return 0;
}
