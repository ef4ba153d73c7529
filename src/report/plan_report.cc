// occam plan / sweep: text tables, JSON and CSV of search results.
// JSON schemas: doc/json-output.md § plan and § sweep.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "occam/report.h"
#include "report/percent.h"

namespace occam {
namespace {

using nlohmann::json;

using report_internal::Pct;

json LayoutJson(const LayoutResult& l) {
  const PlanSpec& p = l.plan;
  return json{{"plan", FormatPlan(p)},
              {"step_time_s", l.step_time.value()},
              {"mfu", l.mfu},
              {"memory_per_chip_bytes", l.memory_per_chip.value()},
              {"complexity", l.complexity},
              {"bottleneck", l.bottleneck},
              {"tp", p.tp},
              {"cp", p.cp},
              {"pp", p.pp},
              {"vpp", p.vpp},
              {"dp", p.dp},
              {"ep", p.ep},
              {"zero", p.zero},
              {"hsdp", p.hsdp},
              {"mbs", p.mbs},
              {"recompute", std::string(RecomputeName(p.recompute))},
              {"schedule", std::string(ScheduleName(p.schedule))},
              {"placement", PlacementName(p)}};
}

json OptionalLayout(const std::optional<LayoutResult>& l) {
  return l ? LayoutJson(*l) : json(nullptr);
}

json ResultJson(const SearchResult& r) {
  json top = json::array();
  for (const auto& l : r.top) top.push_back(LayoutJson(l));
  return json{{"layouts_candidates", r.layouts_candidates},
              {"layouts_pruned_memory", r.layouts_pruned_memory},
              {"layouts_pruned_bound", r.layouts_pruned_bound},
              {"layouts_invalid", r.layouts_invalid},
              {"layouts_evaluated", r.layouts_evaluated},
              {"layouts_feasible", r.layouts_feasible},
              {"best", OptionalLayout(r.best)},
              {"simplest", OptionalLayout(r.simplest)},
              {"pp_needed", r.pp_needed},
              {"pp_verdict", r.pp_verdict},
              {"pp_margin", r.pp_margin ? json(*r.pp_margin) : json(nullptr)},
              {"pp_error_band", r.pp_error_band},
              {"best_without_pp", OptionalLayout(r.best_without_pp)},
              {"best_with_pp", OptionalLayout(r.best_with_pp)},
              {"top", top},
              {"notes", r.notes}};
}

std::string TableHeader() {
  return fmt::format(
      "{:>3} {:>3} {:>3} {:>3} {:>3} {:>5} {:>4} {:>6} {:>3} {:<9} {:<11} "
      "{:<14} {:>10} {:>6} {:>9} {:>3}  {}\n",
      "#", "tp", "cp", "pp", "vpp", "dp", "ep", "zero", "mbs", "recompute", "schedule", "placement",
      "step", "MFU", "mem/chip", "cx", "bottleneck");
}

std::string ZeroName(const PlanSpec& p) {
  if (p.hsdp > 0) return fmt::format("hsdp{}", p.hsdp);
  return fmt::format("{}", p.zero);
}

std::string TableRow(size_t i, const LayoutResult& l) {
  const PlanSpec& p = l.plan;
  return fmt::format(
      "{:>3} {:>3} {:>3} {:>3} {:>3} {:>5} {:>4} {:>6} {:>3} {:<9} {:<11} "
      "{:<14} {:>10} {:>6} {:>9} {:>3}  {}\n",
      i, p.tp, p.cp, p.pp, p.vpp, p.dp, p.ep, ZeroName(p), p.mbs, RecomputeName(p.recompute),
      ScheduleName(p.schedule), PlacementName(p), FormatSeconds(l.step_time), Pct(l.mfu),
      FormatBytes(l.memory_per_chip), l.complexity, l.bottleneck);
}

std::string LayoutLine(const char* label, const std::optional<LayoutResult>& l) {
  if (!l) return fmt::format("{:<18}none\n", label);
  return fmt::format("{:<18}{}  ({}, MFU {}, {} per chip, complexity {})\n", label,
                     FormatPlan(l->plan), FormatSeconds(l->step_time), Pct(l->mfu),
                     FormatBytes(l->memory_per_chip), l->complexity);
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string MfuOrEmpty(const std::optional<LayoutResult>& l) {
  return l ? fmt::format("{:.4f}", l->mfu) : "";
}
std::string PlanOrEmpty(const std::optional<LayoutResult>& l) {
  return l ? FormatPlan(l->plan) : "";
}

std::string AxisOrderName(const PlanSpec& p) {
  if (p.order.empty()) return "default";
  const std::vector<Axis> ep_outside = {Axis::kTp, Axis::kCp, Axis::kDp, Axis::kEp, Axis::kPp};
  const std::vector<Axis> pp_inside = {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kPp, Axis::kDp};
  if (p.order == ep_outside) return "ep-outside-dp";
  if (p.order == pp_inside) return "pp-inside-dp";
  const std::string s = FormatPlan(p);
  return s.substr(s.find("order=") + 6);
}

}  // namespace

std::string PlacementName(const PlanSpec& p) {
  const std::string mesh = p.mesh == TorusMapping::kCompact ? "+compact" : "";
  return AxisOrderName(p) + mesh;
}

std::string PlanText(const SearchResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                     const JobSpec& job, double search_seconds) {
  std::string s = fmt::format(
      "plan      {} on {} x {}, seq {}, {} seqs/step ({:.2f}M tokens), {}\n", model.name,
      cluster.name, cluster.num_chips, job.seq_len, job.global_batch_seqs,
      static_cast<double>(job.global_batch_tokens()) / 1e6, PrecisionName(job.precision));
  s += fmt::format(
      "search    {} candidates: {} pruned by memory bound, {} by step-time bound, {} invalid; "
      "{} evaluated, {} fit; {:.3f} s\n",
      r.layouts_candidates, r.layouts_pruned_memory, r.layouts_pruned_bound, r.layouts_invalid,
      r.layouts_evaluated, r.layouts_feasible, search_seconds);
  for (const auto& n : r.notes) s += "note      " + n + "\n";
  s += "\n" + TableHeader();
  for (size_t i = 0; i < r.top.size(); ++i) s += TableRow(i + 1, r.top[i]);
  s += "\n";
  s += LayoutLine("best", r.best);
  s += LayoutLine("simplest within", r.simplest);
  s += LayoutLine("best without PP", r.best_without_pp);
  s += LayoutLine("best with PP", r.best_with_pp);
  s += fmt::format("\nverdict   {}\n", r.pp_verdict);
  return s;
}

std::string PlanJson(const SearchResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                     const JobSpec& job, double search_seconds) {
  json j = ResultJson(r);
  j["model"] = model.name;
  j["cluster"] = cluster.name;
  j["chips"] = cluster.num_chips;
  j["seq_len"] = job.seq_len;
  j["global_batch_seqs"] = job.global_batch_seqs;
  j["search_seconds"] = search_seconds;
  return j.dump(2);
}

std::string SweepText(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds) {
  std::string s = fmt::format("sweep     {}, {} variants, {:.3f} s\n\n", model.name, rows.size(),
                              search_seconds);
  s += fmt::format("{:<10} {:<26} {:>6} {:>8} {:>10} {:>7}  {}\n", "cluster", "variant", "chips",
                   "best MFU", "no-PP MFU", "PP", "best layout / best without PP");
  for (const SweepRow& row : rows) {
    if (!row.result) {
      s += fmt::format("{:<10} {:<26} {:>6}  no answer: {}\n", row.cluster, row.variant, row.chips,
                       row.error);
      continue;
    }
    const SearchResult& r = *row.result;
    s += fmt::format("{:<10} {:<26} {:>6} {:>8} {:>10} {:>7}  {}\n", row.cluster, row.variant,
                     row.chips, r.best ? Pct(r.best->mfu) : "-",
                     r.best_without_pp ? Pct(r.best_without_pp->mfu) : "-",
                     r.pp_needed ? "needed" : "no", PlanOrEmpty(r.best));
    s += fmt::format("{:<65}{}\n", "", PlanOrEmpty(r.best_without_pp));
  }
  return s;
}

std::string SweepJson(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds) {
  json list = json::array();
  for (const SweepRow& row : rows) {
    json j = row.result ? ResultJson(*row.result) : json::object();
    j["cluster"] = row.cluster;
    j["variant"] = row.variant;
    j["chips"] = row.chips;
    j["seq_len"] = row.job.seq_len;
    j["global_batch_seqs"] = row.job.global_batch_seqs;
    j["error"] = row.error;
    list.push_back(j);
  }
  return json{{"model", model.name}, {"search_seconds", search_seconds}, {"rows", list}}.dump(2);
}

std::string SweepCsv(const std::vector<SweepRow>& rows) {
  std::string s =
      "cluster,variant,chips,seq_len,global_batch_seqs,best_mfu,best_without_pp_mfu,"
      "best_with_pp_mfu,pp_needed,best_plan,best_without_pp_plan,simplest_plan,layouts_evaluated,"
      "pp_verdict,error\n";
  for (const SweepRow& row : rows) {
    std::vector<std::string> f = {row.cluster, row.variant, std::to_string(row.chips),
                                  std::to_string(row.job.seq_len),
                                  std::to_string(row.job.global_batch_seqs)};
    if (row.result) {
      const SearchResult& r = *row.result;
      for (const auto& x :
           {MfuOrEmpty(r.best), MfuOrEmpty(r.best_without_pp), MfuOrEmpty(r.best_with_pp),
            std::string(r.pp_needed ? "true" : "false"), PlanOrEmpty(r.best),
            PlanOrEmpty(r.best_without_pp), PlanOrEmpty(r.simplest),
            std::to_string(r.layouts_evaluated), r.pp_verdict}) {
        f.push_back(x);
      }
    } else {
      for (int i = 0; i < 9; ++i) f.emplace_back();
    }
    f.push_back(row.error);
    for (size_t i = 0; i < f.size(); ++i) s += (i ? "," : "") + CsvField(f[i]);
    s += "\n";
  }
  return s;
}

}  // namespace occam
