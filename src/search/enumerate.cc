// Candidate enumeration; see enumerate.h and doc/search.md §Enumeration.
#include "search/enumerate.h"

#include <algorithm>
#include <string_view>

#include "occam/schedule_traits.h"

namespace occam::search {
namespace {

// Search limits (doc/search.md): tensor parallelism beyond 64 and context
// parallelism beyond 16 ranks are outside what published runs use; a
// context-parallel shard keeps at least 1024 tokens; micro-batches up to 16
// sequences; interleaved pipelines with 2 or 4 virtual stages.
constexpr int64_t kMaxTp = 64;
constexpr int64_t kMaxCp = 16;
constexpr int64_t kMinCpShardTokens = 1024;
constexpr int64_t kMaxPp = 128;
constexpr int64_t kMbsChoices[] = {1, 2, 4, 8, 16};
constexpr int64_t kInterleavedVpp[] = {2, 4};

std::vector<int64_t> Divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n && d <= limit; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

template <class T>
bool Allows(const std::optional<T>& fixed, T value) {
  return !fixed || *fixed == value;
}

Status FixError(std::string_view what) { return InvalidInput("--fix: " + std::string(what)); }

// Records the field `key` of `parsed` (a plan parsed from "key=value") in c.
Status RecordField(std::string_view key, const PlanSpec& parsed, Constraints& c) {
  if (key == "tp")
    c.tp = parsed.tp;
  else if (key == "cp")
    c.cp = parsed.cp;
  else if (key == "pp")
    c.pp = parsed.pp;
  else if (key == "vpp")
    c.vpp = parsed.vpp;
  else if (key == "dp")
    c.dp = parsed.dp;
  else if (key == "ep")
    c.ep = parsed.ep;
  else if (key == "etp")
    c.etp = parsed.etp;
  else if (key == "hsdp")
    c.hsdp = parsed.hsdp;
  else if (key == "mbs")
    c.mbs = parsed.mbs;
  else if (key == "zero")
    c.zero = parsed.zero;
  else if (key == "recompute") {
    c.recompute = parsed.recompute;
    c.recompute_modules = parsed.recompute_modules;
  } else if (key == "offload")
    c.offload = parsed.offload_modules;
  else if (key == "schedule")
    c.schedule = parsed.schedule;
  else if (key == "sp")
    c.sp = parsed.sp;
  else if (key == "a2a_overlap")
    c.a2a_overlap = parsed.a2a_overlap;
  else if (key == "order")
    c.order = parsed.order;
  else if (key == "mesh")
    c.mesh = parsed.mesh;
  else {
    return FixError("plan field '" + std::string(key) +
                    "' cannot be fixed in a search (fixable: tp, cp, pp, vpp, dp, ep, etp, zero, "
                    "hsdp, mbs, recompute, offload, schedule, sp, a2a_overlap, mesh, order)");
  }
  return Status::Ok();
}

struct ScheduleChoice {
  Schedule schedule;
  int64_t vpp;
};

// Pipeline schedules for `pp` stages of a model with `layers` blocks, in a
// fixed order. Each chunk (stage or virtual stage) holds at least one block.
std::vector<ScheduleChoice> ScheduleChoices(int64_t pp, int64_t layers, const JobSpec& job,
                                            const Constraints& c) {
  std::vector<ScheduleChoice> all;
  if (pp == 1) {
    all.push_back({Schedule::kNone, 1});
  } else {
    // Every pipelined schedule of the table, in its order; vpp the
    // schedule's fixed count, or each candidate where a plan may set it.
    for (const ScheduleTraits& t : AllScheduleTraits()) {
      if (t.schedule == Schedule::kNone || (t.even_pp && pp % 2 != 0)) continue;
      if (t.lane_chunks > 0 || !t.plan_vpp) {
        all.push_back({t.schedule, std::max<int64_t>(t.lane_chunks, 1)});
      } else if (c.vpp && *c.vpp > 1) {
        all.push_back({t.schedule, *c.vpp});
      } else {
        for (int64_t v : kInterleavedVpp) all.push_back({t.schedule, v});
      }
    }
  }
  std::vector<ScheduleChoice> out;
  for (const auto& s : all) {
    if (s.vpp * pp > layers) continue;
    if (!ScheduleAllowed(s.schedule, job)) continue;
    if (!Allows(c.schedule, s.schedule) || !Allows(c.vpp, s.vpp)) continue;
    out.push_back(s);
  }
  return out;
}

// MoE parallel folding (doc/cost-model.md § 5): ep*etp divides the
// tp*cp*dp ranks of a pipeline stage.
std::vector<int64_t> EpChoices(const ModelSpec& model, int64_t stage_ranks, int64_t etp,
                               const Constraints& c) {
  if (!model.moe || model.moe->num_experts <= 1) return {c.ep.value_or(1)};
  std::vector<int64_t> out;
  for (int64_t ep : Divisors(model.moe->num_experts, model.moe->num_experts)) {
    if (stage_ranks % (ep * etp) == 0 && Allows(c.ep, ep)) out.push_back(ep);
  }
  return out;
}

// The recompute policies searched: none, selective, full and, for MoE
// models, the module set DeepSeek-V3 recomputes (arXiv:2412.19437 §3.2.3:
// the norms and, with MLA, the up-projections; §3.3.3: the SwiGLU output of
// the routed experts), named as Megatron-LM's --recompute-modules
// layernorm, mla_up_proj, moe_act. It keeps every tensor a GEMM's weight
// gradient reads and drops the cheap-to-rebuild ones, so it sits between
// none and selective in memory at almost no compute; the other module
// subsets are taken when fixed (--fix recompute=...). A fixed module list
// is the only module choice.
struct RecomputeChoice {
  Recompute recompute;
  unsigned modules;
};

std::vector<RecomputeChoice> RecomputeChoices(const ModelSpec& model, const Constraints& c) {
  std::vector<RecomputeChoice> out = {
      {Recompute::kNone, 0}, {Recompute::kSelective, 0}, {Recompute::kFull, 0}};
  if (c.recompute == Recompute::kModules) {
    out.push_back({Recompute::kModules, c.recompute_modules});
  } else if (model.moe) {
    namespace rm = recompute_module;
    unsigned m = rm::kLayernorm | rm::kMoeAct;
    if (model.attention.kind == AttentionKind::kMla) m |= rm::kMlaUpProj;
    out.push_back({Recompute::kModules, m});
  }
  return out;
}

// The expert all-to-all overlap methods (plan field a2a_overlap) that
// ValidatePlan accepts for a shape (CheckA2aOverlap): none without experts
// split over ranks or on a schedule that overlaps it already; combined 1F1B
// without a pipeline or on an interleaved one, no full recompute, at most
// one MTP module, FSDP only without a pipeline; two-batch overlap always;
// shared-expert overlap with shared experts. Each is one complexity point
// (doc/search.md), so each is enumerated beside the plain variant.
int A2aOverlapChoices(const ModelSpec& model, const Shape& shape, int zero, Recompute r,
                      EpOverlap out[3]) {
  if (!model.moe || shape.ep <= 1 || TraitsOf(shape.schedule).overlaps_a2a) return 0;
  int n = 0;
  const bool pipe_ok = shape.pp == 1 || (TraitsOf(shape.schedule).a2a_overlap_with_pp && zero < 3);
  if (pipe_ok && r != Recompute::kFull && model.mtp_layers <= 1) {
    out[n++] = EpOverlap::kCombined1F1B;
  }
  out[n++] = EpOverlap::kTwoBatch;
  if (model.moe->num_shared_experts > 0) out[n++] = EpOverlap::kSharedExpert;
  return n;
}

// Whether `m` micro-batches per pipeline suit the shape's schedule: the
// schedule table's rules (occam/schedule_traits.h), which ValidatePlan and
// the simulator apply too. Skipping the rest here saves building their
// rejection messages.
bool MicroBatchesFit(const Shape& shape, int64_t m) {
  return MicrobatchesFit(shape.schedule, shape.pp, m);
}

}  // namespace

Result<Constraints> ParseConstraints(const SearchOptions& options) {
  Constraints c;
  c.max_tp = options.max_tp;
  c.no_pp = options.no_pp;
  if (options.max_tp < 0)
    return InvalidInput("--max-tp must be >= 1 (got " + std::to_string(options.max_tp) + ")");
  std::string_view text = options.fix;
  std::vector<std::string> seen;
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    const size_t comma = text.find(',', start);
    auto item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    auto parsed = ParsePlan(item);
    if (!parsed.ok()) return parsed.status().WithContext("--fix: ");
    const auto key = item.substr(0, item.find('='));
    for (const auto& k : seen) {
      if (k == key) return FixError("plan field '" + std::string(key) + "': given twice");
    }
    seen.emplace_back(key);
    OCCAM_RETURN_IF_ERROR(RecordField(key, *parsed, c));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (c.tp && c.max_tp > 0 && *c.tp > c.max_tp) {
    return FixError("plan field 'tp': tp=" + std::to_string(*c.tp) + " exceeds --max-tp " +
                    std::to_string(c.max_tp) + " (drop one of the two)");
  }
  if (c.no_pp && c.pp && *c.pp > 1) {
    return FixError("plan field 'pp': pp=" + std::to_string(*c.pp) +
                    " contradicts --no-pp (drop one of the two)");
  }
  if (c.no_pp) c.pp = 1;
  return c;
}

bool ScheduleAllowed(Schedule s, const JobSpec& job) {
  // arXiv:2501.11873 and doc/search.md: a loss over the whole global batch
  // needs every forward pass before the first backward pass.
  if (job.balance == BalanceMethod::kGlobalAuxLoss) return !TraitsOf(s).interleaves_backward;
  return true;
}

std::vector<Shape> EnumerateShapes(const ModelSpec& model, const ClusterSpec& cluster,
                                   const JobSpec& job, const Constraints& c) {
  std::vector<Shape> out;
  const int64_t n = cluster.num_chips;
  const int64_t heads = model.attention.num_heads;
  const int64_t tp_limit = c.max_tp > 0 ? std::min(c.max_tp, kMaxTp) : kMaxTp;
  for (int64_t tp : Divisors(n, c.tp.value_or(tp_limit))) {
    if (!Allows(c.tp, tp) || heads <= 0 || heads % tp != 0) continue;
    for (int64_t cp : Divisors(n / tp, c.cp.value_or(kMaxCp))) {
      if (!Allows(c.cp, cp)) continue;
      if (cp > 1 && !c.cp &&
          (job.seq_len % (2 * cp) != 0 || job.seq_len / cp < kMinCpShardTokens)) {
        continue;
      }
      for (int64_t pp : Divisors(n / (tp * cp), c.pp.value_or(kMaxPp))) {
        if (!Allows(c.pp, pp) || pp > model.num_layers) continue;
        const int64_t dp = n / (tp * cp * pp);
        if (!Allows(c.dp, dp) || job.global_batch_seqs % dp != 0) continue;
        for (int64_t ep : EpChoices(model, tp * cp * dp, c.etp.value_or(1), c)) {
          for (const auto& s : ScheduleChoices(pp, model.num_layers, job, c)) {
            out.push_back(Shape{tp, cp, pp, dp, ep, c.etp.value_or(1), s.vpp, s.schedule});
          }
        }
      }
    }
  }
  return out;
}

void EnumerateInner(const ModelSpec& model, const Shape& shape, const ClusterSpec& cluster,
                    const JobSpec& job, const Constraints& c, std::vector<Inner>& out) {
  out.clear();
  const int64_t per_dp = job.global_batch_seqs / shape.dp;
  // HSDP shards inside one fast-domain unit and replicates across units.
  int64_t hsdp_unit = 0;
  if (!cluster.tiers.empty()) {
    const int64_t inner = cluster.tiers.front().size / (shape.tp * shape.cp);
    if (inner > 1 && inner < shape.dp && shape.dp % inner == 0) hsdp_unit = inner;
  }
  OrderChoice orders[3] = {OrderChoice::kDefault};
  int num_orders = 1;
  if (!c.order) {
    if (shape.ep > 1 && shape.tp * shape.cp * shape.dp / (shape.ep * shape.etp) > 1) {
      orders[num_orders++] = OrderChoice::kEpOutsideDp;
    }
    if (shape.pp > 1 && shape.dp > 1) orders[num_orders++] = OrderChoice::kPpInsideDp;
  }
  // Both rank mappings on a torus (ValidatePlan accepts compact nowhere else).
  TorusMapping meshes[2] = {TorusMapping::kLinear, TorusMapping::kCompact};
  const bool torus = !cluster.tiers.empty() && cluster.tiers.front().kind == TierKind::kTorus;
  const int num_meshes = torus && !c.mesh ? 2 : 1;
  if (c.mesh) meshes[0] = *c.mesh;
  for (int mo = 0; mo < num_orders * num_meshes; ++mo) {
    const int o = mo / num_meshes;
    const TorusMapping mesh = meshes[mo % num_meshes];
    for (int zero = 1; zero <= 3; ++zero) {
      if (!Allows(c.zero, zero)) continue;
      const int64_t hsdp_choices[2] = {0, zero == 3 ? hsdp_unit : 0};
      for (int h = 0; h < (hsdp_choices[1] > 0 ? 2 : 1); ++h) {
        const int64_t hsdp = c.hsdp.value_or(hsdp_choices[h]);
        if (c.hsdp && h > 0) break;
        if (hsdp > 0 && zero != 3) continue;
        for (int64_t mbs : kMbsChoices) {
          if (c.mbs) mbs = *c.mbs;
          if (per_dp % mbs == 0 && MicroBatchesFit(shape, per_dp / mbs)) {
            for (const RecomputeChoice& rc : RecomputeChoices(model, c)) {
              const Recompute r = rc.recompute;
              if (!Allows(c.recompute, r)) continue;
              if (Allows(c.a2a_overlap, EpOverlap::kNone)) {
                out.push_back(
                    Inner{zero, hsdp, mbs, r, orders[o], EpOverlap::kNone, rc.modules, mesh});
              }
              EpOverlap methods[3];
              const int n = A2aOverlapChoices(model, shape, zero, r, methods);
              for (int k = 0; k < n; ++k) {
                if (Allows(c.a2a_overlap, methods[k])) {
                  out.push_back(Inner{zero, hsdp, mbs, r, orders[o], methods[k], rc.modules, mesh});
                }
              }
            }
          }
          if (c.mbs) break;
        }
      }
    }
  }
}

void ApplyCandidate(const Shape& shape, const Inner& inner, const Constraints& c, PlanSpec& plan) {
  static const std::vector<Axis> kEpOutside = {Axis::kTp, Axis::kCp, Axis::kDp, Axis::kEp,
                                               Axis::kPp};
  static const std::vector<Axis> kPpInside = {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kPp,
                                              Axis::kDp};
  plan.tp = shape.tp;
  plan.cp = shape.cp;
  plan.pp = shape.pp;
  plan.vpp = shape.vpp;
  plan.dp = shape.dp;
  plan.ep = shape.ep;
  plan.etp = shape.etp;
  plan.schedule = shape.schedule;
  plan.zero = inner.zero;
  plan.hsdp = inner.hsdp;
  plan.mbs = inner.mbs;
  plan.recompute = inner.recompute;
  plan.recompute_modules = inner.recompute_modules;
  plan.offload_modules = c.offload.value_or(0);
  plan.sp = c.sp.value_or(true);
  plan.a2a_overlap = inner.a2a_overlap;
  plan.mesh = inner.mesh;
  plan.stage_layers.clear();
  if (c.order) {
    plan.order = *c.order;
  } else if (inner.order == OrderChoice::kEpOutsideDp) {
    plan.order = kEpOutside;
  } else if (inner.order == OrderChoice::kPpInsideDp) {
    plan.order = kPpInside;
  } else {
    plan.order.clear();
  }
}

}  // namespace occam::search
