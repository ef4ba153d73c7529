// `occam validate`: the measured-memory runs (kind memory_per_chip_bytes),
// apart from the throughput rows: measured and predicted GiB in the
// source's counter, occam's breakdown, and whether occam judges the stated
// layout to fit. JSON keys: doc/json-output.md § validate.
#include <fmt/format.h>

#include <string>

#include "report/percent.h"
#include "validate_memory.h"

namespace occam {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

using report_internal::Pct;

}  // namespace

std::string ValidateMemoryText(const ValidationReport& r) {
  std::string out;
  bool any = false;
  for (const RunValidation& v : r.runs) {
    if (v.kind != MetricKind::kMemoryPerChipBytes || !v.predicted) continue;
    if (!any) {
      out += fmt::format("\nmemory per chip (GiB, in the source's counter)\n");
      out += fmt::format("{:<50} {:>8} {:>9} {:>8}  {:<13} {}\n", "run", "measured", "predicted",
                         "error", "counter", "occam breakdown (GiB) / HBM");
      any = true;
    }
    std::string terms;
    for (const auto& [name, bytes] : v.memory_terms) {
      if (bytes > 0) terms += fmt::format("{} {:.1f}, ", name, bytes / kGiB);
    }
    out += fmt::format("{:<50} {:>8.1f} {:>9.1f} {:>+7.1f}%  {:<13} {}HBM {:.1f}{}\n", v.id,
                       v.measured / kGiB, *v.predicted / kGiB, 100.0 * *v.rel_error,
                       v.memory_definition, terms, v.memory_capacity_bytes / kGiB,
                       v.memory_fits ? "" : "  DOES NOT FIT");
  }
  if (r.memory.empty()) return out;
  out += fmt::format("\nmemory: absolute relative error\n");
  out += fmt::format("  {:<28} {:>5}  {:>7}  {:>7}  {:>7}  {}\n", "group", "runs", "median", "p90",
                     "mean", "worst");
  for (const ErrorStats& s : r.memory) {
    out += fmt::format("  {:<28} {:>5}  {:>7}  {:>7}  {:>7}  {} ({})\n", s.group, s.runs,
                       Pct(s.median), Pct(s.p90), Pct(s.mean), s.worst_id, Pct(s.worst));
  }
  out += fmt::format("memory runs judged not to fit though their source ran them: {}\n",
                     r.memory_not_fit.empty() ? std::string("none") : "");
  for (const std::string& id : r.memory_not_fit) out += fmt::format("  {}\n", id);
  return out;
}

void AddMemoryJson(const RunValidation& v, nlohmann::json* j) {
  if (v.kind != MetricKind::kMemoryPerChipBytes || !v.predicted) return;
  nlohmann::json terms = nlohmann::json::object();
  for (const auto& [name, bytes] : v.memory_terms) terms[name] = bytes;
  (*j)["memory_counter"] = v.memory_definition;
  (*j)["memory_terms_bytes"] = terms;
  (*j)["memory_capacity_bytes"] = v.memory_capacity_bytes;
  (*j)["memory_fits"] = v.memory_fits;
}

nlohmann::json MemorySummaryJson(const ValidationReport& r) {
  nlohmann::json groups = nlohmann::json::array();
  for (const ErrorStats& s : r.memory) {
    groups.push_back({{"group", s.group},
                      {"runs", s.runs},
                      {"median_abs_error", s.median},
                      {"p90_abs_error", s.p90},
                      {"mean_abs_error", s.mean},
                      {"worst_id", s.worst_id},
                      {"worst_abs_error", s.worst}});
  }
  return {{"groups", groups}, {"not_fit", r.memory_not_fit}};
}

}  // namespace occam
