// Dispatch to the three frameworks, the nearest expressible plan, and the
// terminal text of an emitted configuration.
#include <algorithm>
#include <cstdio>
#include <tuple>

#include "frameworks/internal.h"

namespace occam {

using frameworks_internal::Ctx;
namespace fi = frameworks_internal;

std::vector<std::string> CheckFramework(Framework f, const ModelSpec& model,
                                        const ClusterSpec& cluster, const JobSpec& job,
                                        const PlanSpec& plan) {
  const Ctx c{model, cluster, job};
  switch (f) {
    case Framework::kMegatron:
      return fi::MegatronProblems(c, plan);
    case Framework::kTorchtitan:
      return fi::TorchtitanProblems(c, plan);
    case Framework::kMaxText:
      return fi::MaxTextProblems(c, plan);
  }
  return {"unknown framework"};
}

Result<FrameworkConfig> WriteFrameworkConfig(Framework f, const ModelSpec& model,
                                             const ClusterSpec& cluster, const JobSpec& job,
                                             const PlanSpec& plan) {
  OCCAM_RETURN_IF_ERROR(ValidatePlan(model, cluster, job, plan));
  const auto problems = CheckFramework(f, model, cluster, job, plan);
  if (!problems.empty()) {
    return InvalidInput(std::string(FrameworkName(f)) + " cannot express " + FormatPlan(plan) +
                        ": " + problems.front());
  }
  const Ctx c{model, cluster, job};
  switch (f) {
    case Framework::kMegatron:
      return fi::MegatronWrite(c, plan);
    case Framework::kTorchtitan:
      return fi::TorchtitanWrite(c, plan);
    case Framework::kMaxText:
      return fi::MaxTextWrite(c, plan);
  }
  return InvalidInput("unknown framework");
}

namespace {

int Distance(const PlanSpec& a, const PlanSpec& b) {
  return (a.tp != b.tp) + (a.cp != b.cp) + (a.pp != b.pp) + (a.vpp != b.vpp) + (a.dp != b.dp) +
         (a.ep != b.ep) + (a.etp != b.etp) + (a.zero != b.zero) + (a.hsdp != b.hsdp) +
         (a.mbs != b.mbs) + (a.recompute != b.recompute) + (a.schedule != b.schedule) +
         (a.sp != b.sp) + (a.a2a_overlap != b.a2a_overlap) + (a.order != b.order) +
         (a.stage_layers != b.stage_layers) + (a.first_layers != b.first_layers) +
         (a.last_layers != b.last_layers);
}

template <class T>
void AddUnique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

struct Sched {
  Schedule s;
  int64_t vpp;
  bool operator==(const Sched& o) const { return s == o.s && vpp == o.vpp; }
};

// Every combination of the alternatives each field has (the plan's own
// value first): the schedules the frameworks run, folding the pipeline into
// data parallelism, expert TP 1 or tp, each ZeRO stage, no HSDP, other
// micro-batch sizes, the default placement, no overlap, the default or a
// uniform layer split.
std::vector<PlanSpec> Candidates(const ModelSpec& model, const PlanSpec& p) {
  std::vector<Sched> scheds = {{p.schedule, p.vpp}};
  if (p.pp > 1) {
    for (Sched s :
         {Sched{Schedule::k1F1B, 1}, Sched{Schedule::kGpipe, 1}, Sched{Schedule::kInterleaved, 2},
          Sched{Schedule::kZbV, 2}, Sched{Schedule::kDualPipeV, 2}, Sched{Schedule::kNone, 1}}) {
      AddUnique(scheds, s);
    }
  }
  std::vector<int64_t> etps = {p.etp};
  AddUnique(etps, int64_t{1});
  if (model.moe) AddUnique(etps, p.tp);
  std::vector<int> zeros = {p.zero, 3, 1, 0, 2};
  std::vector<int64_t> hsdps = {p.hsdp};
  AddUnique(hsdps, int64_t{0});
  std::vector<int64_t> mbss = {p.mbs};
  for (int64_t m : {1, 2, 4, 8, 16}) AddUnique(mbss, m);
  std::vector<std::vector<Axis>> orders = {p.order};
  AddUnique(orders, std::vector<Axis>{});
  std::vector<EpOverlap> a2as = {p.a2a_overlap};
  AddUnique(a2as, EpOverlap::kNone);
  std::vector<PlanSpec> out;
  for (const Sched& s : scheds) {
    PlanSpec q = p;
    if (s.s == Schedule::kNone) {
      q.dp = p.dp * p.pp;
      q.pp = 1;
      if (q.hsdp > 0) q.hsdp = 0;
    }
    q.schedule = s.s;
    q.vpp = s.vpp;
    std::vector<std::vector<int64_t>> stages = {p.stage_layers, {}};
    const int64_t chunks = q.pp * ((s.s == Schedule::kInterleaved || s.s == Schedule::kZbV ||
                                    s.s == Schedule::kDualPipeV)
                                       ? q.vpp
                                       : 1);
    if (s.s != p.schedule || s.vpp != p.vpp) stages = {{}};
    if (chunks > 1 && model.num_layers % chunks == 0) {
      AddUnique(stages, std::vector<int64_t>(chunks, model.num_layers / chunks));
    }
    for (int64_t etp : etps)
      for (int zero : zeros)
        for (int64_t hsdp : hsdps)
          for (int64_t mbs : mbss)
            for (const auto& order : orders)
              for (EpOverlap a2a : a2as)
                for (const auto& st : stages) {
                  q.etp = etp;
                  q.zero = zero;
                  q.hsdp = hsdp;
                  q.mbs = mbs;
                  q.order = order;
                  q.a2a_overlap = a2a;
                  q.stage_layers = q.pp > 1 ? st : std::vector<int64_t>{};
                  out.push_back(q);
                }
  }
  return out;
}

std::optional<std::pair<PlanSpec, Estimate>> Nearest(Framework f, const StepModel& step,
                                                     const PlanSpec& plan) {
  const Ctx c{step.model(), step.cluster(), step.job()};
  std::vector<std::pair<int, PlanSpec>> ok;
  for (PlanSpec& q : Candidates(c.model, plan)) {
    if (!ValidatePlan(c.model, c.cluster, c.job, q).ok()) continue;
    if (!CheckFramework(f, c.model, c.cluster, c.job, q).empty()) continue;
    ok.emplace_back(Distance(plan, q), std::move(q));
  }
  if (ok.empty()) return std::nullopt;
  std::stable_sort(ok.begin(), ok.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Fitting first, then fewest changes, then step time; stops once a fitting
  // plan is found and only farther ones remain (at most kMaxEvaluations).
  constexpr int kMaxEvaluations = 300;
  const auto key = [](int d, const Estimate& x) {
    return std::make_tuple(!x.fits, d, x.step_time.value());
  };
  std::optional<std::pair<PlanSpec, Estimate>> best;
  int best_distance = 0, evaluated = 0;
  for (const auto& [d, q] : ok) {
    if (best && best->second.fits && d > best_distance) break;
    if (++evaluated > kMaxEvaluations) break;
    auto e = step.Evaluate(q);
    if (!e.ok()) continue;
    if (!best || key(d, *e) < key(best_distance, best->second)) {
      best = std::make_pair(q, *e);
      best_distance = d;
    }
  }
  return best;
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

Result<EmitOutcome> EmitForFramework(Framework f, const StepModel& step, const PlanSpec& plan,
                                     const std::vector<PlanSpec>& ranked) {
  OCCAM_RETURN_IF_ERROR(ValidatePlan(step.model(), step.cluster(), step.job(), plan));
  EmitOutcome out;
  out.framework = f;
  out.plan = plan;
  out.problems = CheckFramework(f, step.model(), step.cluster(), step.job(), plan);
  if (out.problems.empty()) {
    OCCAM_ASSIGN_OR_RETURN(out.config,
                           WriteFrameworkConfig(f, step.model(), step.cluster(), step.job(), plan));
    return out;
  }
  if (auto n = Nearest(f, step, plan)) {
    out.nearest = n->first;
    out.nearest_estimate = n->second;
    OCCAM_ASSIGN_OR_RETURN(
        out.config, WriteFrameworkConfig(f, step.model(), step.cluster(), step.job(), n->first));
  }
  for (const PlanSpec& q : ranked) {
    if (!ValidatePlan(step.model(), step.cluster(), step.job(), q).ok()) continue;
    if (!CheckFramework(f, step.model(), step.cluster(), step.job(), q).empty()) continue;
    if (FormatPlan(q) == FormatPlan(out.nearest.value_or(plan))) break;
    auto e = step.Evaluate(q);
    if (!e.ok()) continue;
    out.best_expressible = q;
    out.best_expressible_estimate = *e;
    break;
  }
  return out;
}

namespace {

std::string Predicted(const Estimate& e) {
  return "  predicted: step " + Fmt("%.3f", e.step_time.value()) + " s, MFU " +
         Fmt("%.1f", 100 * e.mfu) + "%, memory " + Fmt("%.1f", e.memory.total().value() / 1e9) +
         " GB per chip" + (e.fits ? "" : " (does NOT fit)") + "\n";
}

}  // namespace

std::string EmitText(const EmitOutcome& o) {
  const std::string name(FrameworkName(o.framework));
  std::string best;
  if (o.best_expressible) {
    best = "\nFastest plan of the search's ranking that " + name +
           " can express: " + FormatPlan(*o.best_expressible) + "\n" +
           Predicted(*o.best_expressible_estimate) + "  (occam estimate --plan " +
           FormatPlan(*o.best_expressible) + " --emit " + name + " prints its configuration)\n";
  }
  std::string s = "\n" + name + " configuration for " + FormatPlan(o.plan) + "\n";
  if (!o.problems.empty()) {
    s += name + " cannot express this plan:\n";
    for (const auto& p : o.problems) s += "  - " + p + "\n";
    if (!o.nearest) return s + "No nearby plan is expressible in " + name + ".\n" + best;
    const Estimate& e = *o.nearest_estimate;
    s += "Nearest plan " + name + " can express: " + FormatPlan(*o.nearest) + "\n";
    s += Predicted(e);
    s += "Its configuration:\n";
  }
  s += o.config.text;
  if (!o.config.flags.empty()) s += "\nThe same as command-line flags:\n" + o.config.flags;
  for (const auto& n : o.config.notes) s += "note: " + n + "\n";
  return s + best;
}

Result<FrameworkFile> ParseFrameworkFile(Framework f, std::string_view text,
                                         std::string_view origin) {
  switch (f) {
    case Framework::kMegatron:
      return fi::MegatronParse(text, origin);
    case Framework::kTorchtitan:
      return fi::TorchtitanParse(text, origin);
    case Framework::kMaxText:
      return fi::MaxTextParse(text, origin);
  }
  return InvalidInput("unknown framework");
}

Result<std::optional<int64_t>> FileChips(const FrameworkFile& file) {
  switch (file.framework) {
    case Framework::kMegatron:
      return fi::MegatronChips(file);
    case Framework::kTorchtitan:
      return fi::TorchtitanChips(file);
    case Framework::kMaxText:
      return fi::MaxTextChips(file);
  }
  return InvalidInput("unknown framework");
}

Result<ModelSpec> ModelFromFile(const FrameworkFile& file) {
  if (file.framework == Framework::kMegatron) return fi::MegatronModel(file);
  std::string hint;
  for (const auto& n : fi::ModelNames()) {
    const bool match = file.framework == Framework::kMaxText
                           ? fi::Value(file, "model_name") == std::string(n.maxtext)
                           : (!n.torchtitan_name.empty() &&
                              fi::Value(file, "model.name") == std::string(n.torchtitan_name) &&
                              fi::Value(file, "model.flavor") == std::string(n.torchtitan_flavor));
    if (match) return CatalogModel(n.catalog);
  }
  const std::string key = file.framework == Framework::kMaxText ? "model_name" : "model.name";
  const auto v = fi::Value(file, key);
  return InvalidInput(file.origin + ": " +
                      (v ? key + " '" + *v + "' is not a model occam knows by that name"
                         : "the file does not name the model (" + key + ")") +
                      "; give --model (a catalog name or a config.json)");
}

Result<ImportedLayout> ResolveFrameworkFile(const FrameworkFile& file, const ModelSpec& model,
                                            const ClusterSpec& cluster, const JobSpec& base) {
  const Ctx c{model, cluster, base};
  Result<ImportedLayout> r = InvalidInput("unknown framework");
  switch (file.framework) {
    case Framework::kMegatron:
      r = fi::MegatronResolve(file, c);
      break;
    case Framework::kTorchtitan:
      r = fi::TorchtitanResolve(file, c);
      break;
    case Framework::kMaxText:
      r = fi::MaxTextResolve(file, c);
      break;
  }
  if (!r.ok()) return r;
  ImportedLayout out = std::move(r).value();
  fi::NormaliseStages(model, out.plan);
  OCCAM_RETURN_IF_ERROR(ValidateJob(out.job, file.origin).WithContext(""));
  const Status v = ValidatePlan(model, cluster, out.job, out.plan);
  if (!v.ok()) return InvalidInput(file.origin + ": the layout it describes: " + v.message());
  const auto problems = CheckFramework(file.framework, model, cluster, out.job, out.plan);
  if (!problems.empty()) {
    return InvalidInput(file.origin + ": " + std::string(FrameworkName(file.framework)) +
                        " rule: " + problems.front());
  }
  return out;
}

}  // namespace occam
