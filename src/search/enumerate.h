// Candidate layouts of the planner. A layout is enumerated in two levels:
// a Shape (tp, cp, pp, dp, ep, vpp, schedule: what divides the chips, the
// model and the batch) and, for each shape, its inner variants (ZeRO stage /
// FSDP / HSDP, micro-batch size, recompute policy, axis placement, expert
// all-to-all overlap). Both levels skip what cannot divide (and micro-batch
// counts a pipeline schedule cannot run, as ValidatePlan); the user's
// constraints (--fix, --max-tp, --no-pp) restrict every field. Enumeration order is fixed, so the
// candidate list is the same on every run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "occam/search.h"
#include "occam/spec.h"
#include "occam/status.h"

namespace occam::search {

// Plan fields the user fixed, and the other limits of SearchOptions.
struct Constraints {
  std::optional<int64_t> tp, cp, pp, vpp, dp, ep, etp, hsdp, mbs;
  std::optional<int> zero;
  std::optional<Recompute> recompute;
  unsigned recompute_modules = 0;   // with recompute == kModules
  std::optional<unsigned> offload;  // offload_module bits; none searched
  std::optional<Schedule> schedule;
  std::optional<bool> sp;
  std::optional<EpOverlap> a2a_overlap;
  std::optional<std::vector<Axis>> order;
  std::optional<TorusMapping> mesh;
  int64_t max_tp = 0;  // 0 = no limit
  bool no_pp = false;
};

// Parses options.fix ("ep=64,pp=16") with the plan-field names; errors are
// InvalidInput naming the field ("--fix: plan field 'ep': ...").
Result<Constraints> ParseConstraints(const SearchOptions& options);

// Axis placement variants (doc/search.md): the default rule, expert
// parallelism outside the expert-data-parallel ranks, and pipeline stages on
// a faster tier than data parallelism.
enum class OrderChoice { kDefault, kEpOutsideDp, kPpInsideDp };

struct Shape {
  int64_t tp = 1, cp = 1, pp = 1, dp = 1, ep = 1, etp = 1, vpp = 1;
  Schedule schedule = Schedule::kNone;
};

struct Inner {
  int zero = 1;
  int64_t hsdp = 0;
  int64_t mbs = 1;
  Recompute recompute = Recompute::kNone;
  OrderChoice order = OrderChoice::kDefault;
  EpOverlap a2a_overlap = EpOverlap::kNone;   // expert all-to-all overlap method
  unsigned recompute_modules = 0;             // with Recompute::kModules
  TorusMapping mesh = TorusMapping::kLinear;  // rank mapping onto a torus
};

// Every shape that divides, in a fixed order.
std::vector<Shape> EnumerateShapes(const ModelSpec& model, const ClusterSpec& cluster,
                                   const JobSpec& job, const Constraints& c);

// The inner variants of one shape, written into `out` (cleared first; reuse
// the vector to avoid allocation). Fixed order.
void EnumerateInner(const ModelSpec& model, const Shape& shape, const ClusterSpec& cluster,
                    const JobSpec& job, const Constraints& c, std::vector<Inner>& out);

// Writes shape + inner into `plan` (reusing its vectors' capacity). When the
// user fixed `order`, that order is used for every candidate.
void ApplyCandidate(const Shape& shape, const Inner& inner, const Constraints& c, PlanSpec& plan);

// Schedules considered when pp > 1, and the virtual-stage counts of each.
// Global-batch aux loss allows only gpipe (all-forward-all-backward).
bool ScheduleAllowed(Schedule s, const JobSpec& job);

}  // namespace occam::search
