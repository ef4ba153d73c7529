// `occam validate --cv source` output: out-of-sample (leave-one-source-out)
// errors first, the in-sample ones beside them, and each fold's refit.
// JSON schema: doc/json-output.md § validate --cv.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"
#include "report/percent.h"
#include "validate_memory.h"

namespace occam {
namespace {

using report_internal::Pct;

const ErrorStats* Find(const ValidationReport& r, const std::string& group) {
  if (group == r.all.group) return &r.all;
  for (const ErrorStats& f : r.families) {
    if (f.group == group) return &f;
  }
  return nullptr;
}

void Row(std::string& out, const ErrorStats& oos, const ErrorStats* in) {
  out += fmt::format("  {:<16} {:>5}  {:>8}  {:>8}    {:>8}  {:>8}\n", oos.group, oos.runs,
                     Pct(oos.median), Pct(oos.p90), in ? Pct(in->median) : "-",
                     in ? Pct(in->p90) : "-");
}

nlohmann::json Stats(const ErrorStats& s) {
  return {{"group", s.group},
          {"runs", s.runs},
          {"median_abs_error", s.median},
          {"p90_abs_error", s.p90},
          {"mean_abs_error", s.mean}};
}

}  // namespace

std::string ValidateCvText(const CrossValidationReport& cv, const ValidationReport& in) {
  const ValidationReport& r = cv.summary;
  std::string out = fmt::format("{:<46} {:<26} {:>10} {:>10} {:>9} {:>9}\n", "run", "source family",
                                "measured", "predicted", "error", "in-sample");
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const RunValidation& v = r.runs[i];
    if (!v.rel_error || v.kind == MetricKind::kMemoryPerChipBytes) continue;
    const bool has_in = i < in.runs.size() && in.runs[i].rel_error.has_value();
    out += fmt::format("{:<46} {:<26} {:>10.4g} {:>10.4g} {:>+8.1f}% {:>9}\n", v.id,
                       cv.source[i].substr(0, 26), v.measured, *v.predicted, 100.0 * *v.rel_error,
                       has_in ? fmt::format("{:+.1f}%", 100.0 * *in.runs[i].rel_error) : "-");
  }
  out += fmt::format(
      "\nabsolute relative error, leave-one-source-out ({} runs predicted, {} skipped; each "
      "source family predicted with the calibration fitted without it)\n",
      r.all.runs, r.skipped);
  out += fmt::format("  {:<16} {:>5}  {:>8}  {:>8}    {:>8}  {:>8}\n", "group", "runs", "median",
                     "p90", "in-sample", "p90");
  Row(out, r.all, &in.all);
  for (const ErrorStats& f : r.families) Row(out, f, Find(in, f.group));
  if (!r.layout_not_fit.empty()) {
    out += fmt::format(
        "layouts occam's memory model judges not to fit though their source ran them: {} "
        "(`occam validate` lists them)\n",
        r.layout_not_fit.size());
  }
  out +=
      "\nfold refits (families whose runs the fold holds out; prior = fewer than 3 "
      "training runs):\n";
  for (const FamilyFit& f : cv.fits) {
    out += fmt::format(
        "  without {:<26} {:<8} eff {:.2f}  half_tokens {:>4.0f}  half_width {:>4.0f}  host "
        "{:.1f} ms  ({} training runs{})\n",
        f.held_out_source.substr(0, 26), f.family, f.point.efficiency, f.point.half_tokens,
        f.point.half_width, f.point.host_ms, f.runs,
        f.runs >= 3 ? ", median " + Pct(f.median) : ": prior");
  }
  if (!r.memory.empty()) {
    out +=
        "\nmemory, out of sample (the allocator's reserved overhead fitted on the other "
        "documents' runs):";
    out += ValidateMemoryText(r);
  }
  return out;
}

std::string ValidateCvJson(const CrossValidationReport& cv, const ValidationReport& in) {
  const ValidationReport& r = cv.summary;
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const RunValidation& v = r.runs[i];
    nlohmann::json j = {{"id", v.id},
                        {"source_family", cv.source[i]},
                        {"family", v.family},
                        {"measured", v.measured},
                        {"predicted", nullptr},
                        {"rel_error", nullptr},
                        {"in_sample_rel_error", nullptr},
                        {"skipped_reason", nullptr}};
    if (v.rel_error) {
      j["predicted"] = *v.predicted;
      j["rel_error"] = *v.rel_error;
    } else {
      j["skipped_reason"] = v.skipped_reason;
    }
    if (i < in.runs.size() && in.runs[i].rel_error) {
      j["in_sample_rel_error"] = *in.runs[i].rel_error;
    }
    runs.push_back(std::move(j));
  }
  nlohmann::json oos = nlohmann::json::array(), ins = nlohmann::json::array();
  oos.push_back(Stats(r.all));
  ins.push_back(Stats(in.all));
  for (const ErrorStats& f : r.families) oos.push_back(Stats(f));
  for (const ErrorStats& f : in.families) ins.push_back(Stats(f));
  nlohmann::json fits = nlohmann::json::array();
  for (const FamilyFit& f : cv.fits) {
    fits.push_back({{"held_out_source", f.held_out_source},
                    {"family", f.family},
                    {"efficiency", f.point.efficiency},
                    {"half_tokens", f.point.half_tokens},
                    {"half_width", f.point.half_width},
                    {"moe_dispatch_host_ms", f.point.host_ms},
                    {"training_runs", f.runs},
                    {"training_median_abs_error", f.median}});
  }
  nlohmann::json summary = {{"predicted", r.all.runs},
                            {"skipped", r.skipped},
                            {"layout_not_fit", r.layout_not_fit},
                            {"out_of_sample", oos},
                            {"in_sample", ins},
                            {"memory_out_of_sample", MemorySummaryJson(r)},
                            {"memory_in_sample", MemorySummaryJson(in)}};
  return nlohmann::json{{"cv", "source"}, {"runs", runs}, {"summary", summary}, {"fits", fits}}
             .dump(2) +
         "\n";
}

namespace {

nlohmann::json FitJson(const FamilyFit& f) {
  return {{"family", f.family},
          {"efficiency", f.point.efficiency},
          {"half_tokens", f.point.half_tokens},
          {"half_width", f.point.half_width},
          {"moe_dispatch_host_ms", f.host_fitted ? nlohmann::json(f.point.host_ms) : nullptr},
          {"training_runs", f.runs},
          {"training_median_abs_error", f.median}};
}

}  // namespace

std::string ValidateFitText(const FitReport& fit) {
  std::string out =
      "calibration fit on all runs (doc/validation.md, \"Calibration fit\"; host ms - = no MoE "
      "run to fit it on):\n";
  out += fmt::format("  {:<10} {:>10} {:>12} {:>11} {:>9} {:>6} {:>8}\n", "family", "efficiency",
                     "half_tokens", "half_width", "host ms", "runs", "median");
  for (const FamilyFit& f : fit.fits) {
    out += fmt::format("  {:<10} {:>10.3f} {:>12.0f} {:>11.0f} {:>9} {:>6} {:>8}\n", f.family,
                       f.point.efficiency, f.point.half_tokens, f.point.half_width,
                       f.host_fitted ? fmt::format("{:.2f}", f.point.host_ms) : "-", f.runs,
                       Pct(f.median));
  }
  if (!fit.transfers.empty()) {
    out +=
        "transfers from the h100 fit (efficiency times the ratio of measured plateaus; the "
        "shape and host time as h100's):\n";
    for (const FamilyFit& f : fit.transfers) {
      out += fmt::format("  {:<10} {:>10.3f} {:>12.0f} {:>11.0f} {:>9}\n", f.family,
                         f.point.efficiency, f.point.half_tokens, f.point.half_width,
                         f.host_fitted ? fmt::format("{:.2f}", f.point.host_ms) : "-");
    }
  }
  return out;
}

std::string ValidateFitJson(const FitReport& fit) {
  nlohmann::json fits = nlohmann::json::array(), transfers = nlohmann::json::array();
  for (const FamilyFit& f : fit.fits) fits.push_back(FitJson(f));
  for (const FamilyFit& f : fit.transfers) {
    nlohmann::json j = FitJson(f);
    j.erase("training_runs");
    j.erase("training_median_abs_error");
    transfers.push_back(std::move(j));
  }
  return nlohmann::json{{"fits", fits}, {"transfers", transfers}}.dump(2) + "\n";
}

}  // namespace occam
