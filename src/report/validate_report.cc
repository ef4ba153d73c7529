// `occam validate` output: one row per run (predicted vs measured in the
// source's own metric), the filled-in fields, skipped runs with reasons, and
// the error summary by family. JSON schema: doc/json-output.md § validate.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"
#include "report/percent.h"
#include "validate_memory.h"

namespace occam {
namespace {

std::string Value(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

using report_internal::Pct;

void StatsRow(std::string& out, const ErrorStats& s) {
  out +=
      fmt::format("  {:<28} {:>5}  {:>7}  {:>7}  {:>7}  {} ({})\n", s.group, s.runs, Pct(s.median),
                  Pct(s.p90), Pct(s.mean), s.worst_id, s.runs > 0 ? Pct(s.worst) : "-");
}

nlohmann::json StatsJson(const ErrorStats& s) {
  return {{"group", s.group},          {"runs", s.runs},           {"median_abs_error", s.median},
          {"p90_abs_error", s.p90},    {"mean_abs_error", s.mean}, {"worst_id", s.worst_id},
          {"worst_abs_error", s.worst}};
}

}  // namespace

std::string ValidateText(const ValidationReport& r, bool verbose) {
  std::string out;
  out += fmt::format("{:<46} {:<22} {:>10} {:>10} {:>8}  {}\n", "run", "metric", "measured",
                     "predicted", "error", "layout");
  for (const RunValidation& v : r.runs) {
    if (!v.predicted || v.kind == MetricKind::kMemoryPerChipBytes) continue;
    out += fmt::format("{:<46} {:<22} {:>10} {:>10} {:>+7.1f}%  {}\n", v.id, MetricKindName(v.kind),
                       Value(v.measured), Value(*v.predicted), 100.0 * *v.rel_error, v.plan);
    if (verbose) {
      for (const auto& [field, how] : v.filled)
        out += fmt::format("    filled {}: {}\n", field, how);
    }
  }
  if (r.skipped > 0) {
    out += fmt::format("\nskipped ({} runs occam cannot model yet):\n", r.skipped);
    for (const RunValidation& v : r.runs) {
      if (!v.predicted) out += fmt::format("  {:<46} {}\n", v.id, v.skipped_reason);
    }
  }
  if (!r.layout_not_fit.empty()) {
    out += fmt::format(
        "\nlayouts occam's memory model judges not to fit though their source ran them ({}):\n",
        r.layout_not_fit.size());
    for (const RunValidation& v : r.runs) {
      if (!v.predicted || v.memory_fits || v.kind == MetricKind::kMemoryPerChipBytes) continue;
      out += fmt::format("  {:<46} {}\n", v.id, v.bottleneck.substr(0, v.bottleneck.find(';')));
    }
  }
  out += fmt::format("\nabsolute relative error ({} runs predicted, {} skipped)\n", r.all.runs,
                     r.skipped);
  out += fmt::format("  {:<28} {:>5}  {:>7}  {:>7}  {:>7}  {}\n", "group", "runs", "median", "p90",
                     "mean", "worst");
  StatsRow(out, r.all);
  for (const ErrorStats& f : r.families) StatsRow(out, f);
  if (r.korthikanti) {
    out += fmt::format("\nKorthikanti et al. 2022 ({} runs): mean step-time error {}\n",
                       r.korthikanti->runs, Pct(r.korthikanti->mean));
  }
  out += ValidateMemoryText(r);
  if (!verbose) out += "\n(--verbose lists the values occam filled in for unstated fields)\n";
  return out;
}

std::string ValidateJson(const ValidationReport& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunValidation& v : r.runs) {
    nlohmann::json filled = nlohmann::json::object();
    for (const auto& [field, how] : v.filled) filled[field] = how;
    nlohmann::json j = {{"id", v.id},
                        {"metric", MetricKindName(v.kind)},
                        {"source_metric", v.metric},
                        {"measured", v.measured},
                        {"predicted", nullptr},
                        {"rel_error", nullptr},
                        {"skipped_reason", nullptr},
                        {"filled", filled},
                        {"plan", v.plan},
                        {"chip", v.chip},
                        {"family", v.family},
                        {"moe", v.is_moe},
                        {"tpu", v.is_tpu}};
    if (v.predicted) {
      j["predicted"] = *v.predicted;
      j["rel_error"] = *v.rel_error;
      j["predicted_step_time_s"] = v.predicted_step_time_s;
      j["bottleneck"] = v.bottleneck;
      AddMemoryJson(v, &j);
    } else {
      j["skipped_reason"] = v.skipped_reason;
    }
    runs.push_back(std::move(j));
  }
  nlohmann::json families = nlohmann::json::array();
  for (const ErrorStats& f : r.families) families.push_back(StatsJson(f));
  nlohmann::json summary = {{"runs", r.runs.size()},
                            {"predicted", r.all.runs},
                            {"skipped", r.skipped},
                            {"all", StatsJson(r.all)},
                            {"layout_not_fit", r.layout_not_fit},
                            {"families", families},
                            {"korthikanti", nullptr}};
  if (r.korthikanti) summary["korthikanti"] = StatsJson(*r.korthikanti);
  summary["memory"] = MemorySummaryJson(r);
  return nlohmann::json{{"runs", runs}, {"summary", summary}}.dump(2) + "\n";
}

}  // namespace occam
