// Validation against published runs: fill the unstated knobs (the
// framework's defaults, then the first layout in a stated order of preference
// that fits in memory), predict, convert into the source's metric,
// summarize. Policies: doc/validation.md.
#include "occam/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "occam/step.h"
#include "validate/metrics.h"
#include "validate/run_layout.h"
#include "validate/run_setup.h"
#include "validate/validate_internal.h"

namespace occam {

namespace validate {

std::string FamilyOf(std::string_view chip_key) {
  // An alias names its catalog chip (h100-sxm-96g -> h100-96g).
  const Result<ChipSpec> chip = CatalogChip(std::string(chip_key));
  const std::string k = chip.ok() ? chip->key : std::string(chip_key);
  // The 96 GB H100 runs capped at 500 W (data/hardware/chips.yaml): the same
  // tensor cores at a lower power limit, so a different sustained clock; its
  // runs are not pooled into the 700 W H100 fit. Its calibration is a
  // transfer from that fit (TransfersFromH100).
  if (k == "h100-96g") return k;
  for (const char* prefix : {"a100", "h100", "h800", "h200"}) {
    if (k.rfind(prefix, 0) == 0) return prefix;
  }
  return k;
}

void ApplyOverrides(const std::vector<CalibrationOverride>& overrides, const std::string& family,
                    ClusterSpec* cluster) {
  for (const CalibrationOverride& o : overrides) {
    if (o.family != family) continue;
    if (o.param == "gemm_efficiency") cluster->chip.gemm_efficiency = o.value;
    if (o.param == "gemm_half_tokens") cluster->chip.gemm_half_tokens = o.value;
    if (o.param == "gemm_half_width") cluster->chip.gemm_half_width = o.value;
    if (o.param == "gemm_fp8_ratio") cluster->chip.gemm_fp8_ratio = o.value;
    if (o.param == "moe_dispatch_host_ms") cluster->chip.moe_dispatch_host_s = o.value / 1e3;
    for (TierSpec& t : cluster->tiers) {
      if (o.param == "efficiency" && t.name == o.tier) t.efficiency = o.value;
    }
  }
}

}  // namespace validate

namespace {

using validate::ApplyOverrides;
using validate::Choice;
using validate::ChooseLayout;
using validate::FamilyOf;
using validate::NoteFilled;
using validate::RunSetup;

// The run's metric as predicted for `plan` on `s`, with how the FLOP
// convention was chosen ("" when the metric needs none).
struct Prediction {
  double metric = 0;
  double step_time_s = 0;
  std::string bottleneck;
  std::string how;
};

Result<Prediction> PredictOn(const PublishedRun& run, const RunSetup& s, const StepModel& sm,
                             const PlanSpec& plan) {
  OCCAM_ASSIGN_OR_RETURN(const Estimate est, sm.Evaluate(plan));
  Prediction out;
  const double t = est.step_time.value();
  out.step_time_s = t;
  out.bottleneck = est.bottleneck;
  const validate::FlopsConvention conv =
      validate::ConventionFor(run, plan.recompute, s.job.precision);
  const double peak = (conv.fp8_peak ? s.cluster.chip.peak_fp8 : s.cluster.chip.peak_bf16).value();
  const double tokens = static_cast<double>(s.job.global_batch_tokens());
  const double fpt = validate::SourceFlopsPerToken(s.model, s.job.seq_len, conv);
  out.metric = validate::MetricFromStepTime(run.measured.kind, t, tokens, fpt, run.n_chips, peak);
  if (const double reported = validate::ReportedTokensPerSecondPerChip(run); reported > 0) {
    const double predicted_tokens = tokens / (t * static_cast<double>(run.n_chips));
    out.metric = run.measured.value * predicted_tokens / reported;
    out.how = "the source's own: its " + std::string(MetricKindName(run.measured.kind)) +
              " over its tokens/s per chip";
    if (run.measured.kind == MetricKind::kTflopsPerChip) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " (%.1f GFLOP per token)",
                    1e3 * run.measured.value / reported);
      out.how += buf;
    }
  } else if (run.measured.kind != MetricKind::kStepTimeS &&
             run.measured.kind != MetricKind::kTokensPerSPerChip) {
    out.how = conv.description;
  }
  return out;
}

}  // namespace

namespace validate {

Result<PreparedRun> PrepareRun(const PublishedRun& run, const ValidateOptions& options,
                               RunValidation* out) {
  OCCAM_ASSIGN_OR_RETURN(RunSetup s, validate::BuildRunSetup(run));
  ApplyOverrides(options.overrides, FamilyOf(run.chip_key), &s.cluster);
  if (out != nullptr) out->filled = s.filled;
  OCCAM_ASSIGN_OR_RETURN(StepModel sm, StepModel::Create(s.model, s.cluster, s.job));
  OCCAM_ASSIGN_OR_RETURN(const Choice choice, ChooseLayout(sm, s, options.search_unstated));
  if (out != nullptr) NoteFilled(s, choice, out);
  PreparedRun p;
  p.run = &run;
  p.plan = choice.plan;
  p.setup = std::move(s);
  p.model = std::make_unique<StepModel>(std::move(sm));
  return p;
}

Result<double> PredictedRelError(PreparedRun& p,
                                 const std::vector<CalibrationOverride>& overrides) {
  ClusterSpec cluster = p.setup.cluster;
  ApplyOverrides(overrides, FamilyOf(p.run->chip_key), &cluster);
  p.model->SetGemmCalibration(cluster.chip);
  OCCAM_ASSIGN_OR_RETURN(const Prediction pred, PredictOn(*p.run, p.setup, *p.model, p.plan));
  return (pred.metric - p.run->measured.value) / p.run->measured.value;
}

RunValidation RunHeader(const PublishedRun& run) {
  RunValidation out;
  out.id = run.id;
  out.kind = run.measured.kind;
  out.metric = run.measured.metric;
  out.measured = run.measured.value;
  out.chip = run.chip_key;
  out.family = FamilyOf(run.chip_key);
  out.is_moe = run.arch.moe.has_value();
  out.is_tpu = run.chip_key.rfind("tpu", 0) == 0;
  return out;
}

RunValidation ValidateOne(const PublishedRun& run, const ValidateOptions& options) {
  if (run.measured.kind == MetricKind::kMemoryPerChipBytes && run.unreadable.empty()) {
    return ValidateMemoryOne(run, options);
  }
  RunValidation out = RunHeader(run);
  if (!run.unreadable.empty()) {
    out.skipped_reason = run.unreadable;
    return out;
  }
  Result<PreparedRun> prep = PrepareRun(run, options, &out);
  if (!prep.ok()) {
    out.skipped_reason = prep.status().message();
    return out;
  }
  Result<Prediction> pred = PredictOn(run, prep->setup, *prep->model, prep->plan);
  if (!pred.ok()) {
    out.skipped_reason = pred.status().message();
    return out;
  }
  out.plan = FormatPlan(prep->plan);
  out.bottleneck = pred->bottleneck;
  out.predicted_step_time_s = pred->step_time_s;
  if (!pred->how.empty()) out.filled.emplace_back("flops_convention", pred->how);
  out.predicted = pred->metric;
  out.rel_error = (pred->metric - run.measured.value) / run.measured.value;
  return out;
}

}  // namespace validate

RunExplanation ExplainRun(const PublishedRun& run, const ValidateOptions& options) {
  RunExplanation out;
  out.row = validate::ValidateOne(run, options);
  if (!out.row.skipped_reason.empty()) return out;
  // The same preparation as the row's (deterministic), kept for its estimate.
  Result<validate::PreparedRun> prep = validate::PrepareRun(run, options, nullptr);
  if (!prep.ok()) return out;
  Result<Estimate> est = prep->model->Evaluate(prep->plan);
  if (!est.ok()) return out;
  out.model = prep->setup.model;
  out.cluster = prep->setup.cluster;
  out.job = prep->setup.job;
  out.estimate = *est;
  return out;
}

namespace validate {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the data at or below it.
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

}  // namespace validate

using validate::Percentile;

Result<CalibrationOverride> ParseCalibrationOverride(std::string_view text) {
  const std::string t(text);
  const size_t eq = t.find('=');
  const std::string hint =
      " (expected <family>.gemm_efficiency=V, <family>.gemm_half_tokens=V, "
      "<family>.gemm_half_width=V, <family>.gemm_fp8_ratio=V or <family>.<tier>.efficiency=V, "
      "e.g. "
      "h100.gemm_efficiency=0.72)";
  if (eq == std::string::npos) return InvalidInput("--set '" + t + "': no '='" + hint);
  const std::string key = t.substr(0, eq);
  CalibrationOverride o;
  try {
    size_t used = 0;
    o.value = std::stod(t.substr(eq + 1), &used);
    if (used != t.size() - eq - 1) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    return InvalidInput("--set '" + t + "': the value is not a number" + hint);
  }
  const size_t dot = key.find('.');
  const size_t last = key.rfind('.');
  if (dot == std::string::npos || dot == 0) return InvalidInput("--set '" + t + "'" + hint);
  o.family = key.substr(0, dot);
  o.param = key.substr(last + 1);
  if (dot != last) o.tier = key.substr(dot + 1, last - dot - 1);
  const bool gemm =
      o.tier.empty() && (o.param == "gemm_efficiency" || o.param == "gemm_half_tokens" ||
                         o.param == "gemm_half_width" || o.param == "gemm_fp8_ratio" ||
                         o.param == "moe_dispatch_host_ms");
  const bool tier = !o.tier.empty() && o.param == "efficiency";
  if (!gemm && !tier) return InvalidInput("--set '" + t + "': unknown parameter" + hint);
  const bool fraction = o.param != "gemm_half_tokens" && o.param != "gemm_half_width" &&
                        o.param != "moe_dispatch_host_ms";
  if (!std::isfinite(o.value) || o.value < 0 || (fraction && (o.value <= 0 || o.value > 1))) {
    return InvalidInput("--set '" + t +
                        "': out of range (efficiencies in (0, 1], half_tokens and "
                        "half_width >= 0)");
  }
  return o;
}

ErrorStats SummarizeErrors(std::string group, const std::vector<const RunValidation*>& runs) {
  ErrorStats st;
  st.group = std::move(group);
  std::vector<double> errs;
  for (const RunValidation* r : runs) {
    if (!r->rel_error) continue;
    const double e = std::fabs(*r->rel_error);
    errs.push_back(e);
    if (e > st.worst || st.worst_id.empty()) {
      st.worst = e;
      st.worst_id = r->id;
    }
  }
  st.runs = static_cast<int64_t>(errs.size());
  if (errs.empty()) return st;
  st.median = Percentile(errs, 0.5);
  st.p90 = Percentile(errs, 0.9);
  double sum = 0;
  for (double e : errs) sum += e;
  st.mean = sum / static_cast<double>(errs.size());
  return st;
}

ValidationReport ValidateRuns(const std::vector<PublishedRun>& runs,
                              const ValidateOptions& options) {
  std::vector<RunValidation> out;
  out.reserve(runs.size());
  for (const PublishedRun& run : runs) out.push_back(validate::ValidateOne(run, options));
  return SummarizeRuns(std::move(out), runs);
}

ValidationReport SummarizeRuns(std::vector<RunValidation> done,
                               const std::vector<PublishedRun>& runs) {
  ValidationReport rep;
  rep.runs = std::move(done);
  std::vector<const RunValidation*> all, korth;
  std::vector<std::string> families;
  for (size_t i = 0; i < rep.runs.size(); ++i) {
    const RunValidation& r = rep.runs[i];
    if (!r.rel_error) {
      ++rep.skipped;
      continue;
    }
    if (r.kind == MetricKind::kMemoryPerChipBytes) continue;  // SummarizeMemory
    all.push_back(&r);
    if (!r.memory_fits) rep.layout_not_fit.push_back(r.id);
    if (runs[i].source.rfind("Korthikanti et al. 2022", 0) == 0) korth.push_back(&r);
    if (std::find(families.begin(), families.end(), r.family) == families.end()) {
      families.push_back(r.family);
    }
  }
  rep.all = SummarizeErrors("all", all);
  if (!korth.empty()) rep.korthikanti = SummarizeErrors("Korthikanti et al. 2022", korth);
  auto group = [&](const std::string& name, auto pred) {
    std::vector<const RunValidation*> g;
    for (const RunValidation* r : all) {
      if (pred(*r)) g.push_back(r);
    }
    if (!g.empty()) rep.families.push_back(SummarizeErrors(name, g));
  };
  for (const std::string& f : families) {
    group("chip " + f, [&](const RunValidation& r) { return r.family == f; });
  }
  group("dense", [](const RunValidation& r) { return !r.is_moe; });
  group("moe", [](const RunValidation& r) { return r.is_moe; });
  group("gpu", [](const RunValidation& r) { return !r.is_tpu; });
  group("tpu", [](const RunValidation& r) { return r.is_tpu; });
  validate::SummarizeMemory(&rep);
  return rep;
}

}  // namespace occam
