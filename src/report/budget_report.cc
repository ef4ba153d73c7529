// occam budget: the whole run as text and JSON (doc/json-output.md § budget).
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"
#include "report/percent.h"

namespace occam {
namespace {

using nlohmann::json;

using report_internal::Pct;

// Durations of a run: seconds to days.
std::string Span(Seconds s) {
  const double v = s.value();
  if (v >= 2 * 86400.0) return fmt::format("{:.1f} days", v / 86400);
  if (v >= 2 * 3600.0) return fmt::format("{:.1f} h", v / 3600);
  if (v >= 120.0) return fmt::format("{:.1f} min", v / 60);
  return fmt::format("{:.1f} s", v);
}

std::string Count(double v) {
  if (v >= 1e9) return fmt::format("{:.3f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.3f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string Mwh(const std::optional<double>& v) {
  return v ? fmt::format("{:.0f} MWh", *v) : std::string("n/a");
}

json OptionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json RunJson(const RunBudget& r) {
  const CheckpointFigures& c = r.checkpoint;
  const GoodputFigures& g = r.goodput;
  const double mtbf = g.mtbf.value();
  return json{{"plan", FormatPlan(r.plan)},
              {"chips", r.chips},
              {"chips_allocated", r.chips_allocated},
              {"step_time_s", r.step_time.value()},
              {"mfu", r.mfu},
              {"tokens_per_s", r.tokens_per_s},
              {"steps", r.steps},
              {"compute_s", r.compute.value()},
              {"wall_s", r.wall.value()},
              {"days", r.days},
              {"chip_hours", r.chip_hours},
              {"energy_chip_mwh", OptionalNumber(r.energy_chip_mwh)},
              {"energy_facility_mwh", OptionalNumber(r.energy_facility_mwh)},
              {"money", OptionalNumber(r.money)},
              {"checkpoint",
               {{"total_bytes", c.total.value()},
                {"per_chip_bytes", c.per_chip.value()},
                {"write_s", c.write.value()},
                {"restore_s", c.restore.value()},
                {"stall_s", c.stall.value()},
                {"interval_s", c.interval.value()},
                {"young_s", c.young.value()},
                {"daly_s", c.daly.value()}}},
              {"goodput",
               {{"goodput", g.goodput},
                {"failures_per_hour", g.failures_per_hour},
                {"mtbf_s", std::isfinite(mtbf) ? json(mtbf) : json(nullptr)},
                {"restart_s", g.restart.value()},
                {"expected_failures", g.expected_failures},
                {"lost_s", g.lost.value()},
                {"lost_checkpoints_s", g.lost_checkpoints.value()},
                {"lost_restarts_s", g.lost_restarts.value()},
                {"lost_rework_s", g.lost_rework.value()}}}};
}

std::string ModeText(const BudgetQuery& q) {
  switch (q.mode) {
    case ChipMode::kFixed:
      return fmt::format("{} chips (given)", q.chips);
    case ChipMode::kDeadline:
      return fmt::format("fewest chips that finish within {:g} days{}", q.days,
                         q.max_chips > 0 ? fmt::format(" (at most {})", q.max_chips) : "");
    case ChipMode::kMaxChips:
      return fmt::format("best {} at up to {} chips", BudgetObjectiveName(q.objective),
                         q.max_chips);
  }
  return "";
}

std::string RunText(const RunBudget& r) {
  const GoodputFigures& g = r.goodput;
  const CheckpointFigures& c = r.checkpoint;
  std::string s = fmt::format("layout    {}\n          step {}, MFU {}, {} tokens/s, {} steps\n",
                              FormatPlan(r.plan), FormatSeconds(r.step_time), Pct(r.mfu),
                              Count(r.tokens_per_s), Count(r.steps));
  s += fmt::format(
      "run       {:.1f} days: compute {} + lost {} (checkpoints {}, restarts {}, rework {})\n",
      r.days, Span(r.compute), Span(g.lost), Span(g.lost_checkpoints), Span(g.lost_restarts),
      Span(g.lost_rework));
  s += fmt::format("          {} chip-hours on {} chips ({:g} allocated)\n", Count(r.chip_hours),
                   r.chips, r.chips_allocated);
  s += fmt::format("energy    chips {}; facility {} (host + network share, x PUE)\n",
                   Mwh(r.energy_chip_mwh), Mwh(r.energy_facility_mwh));
  s += r.money ? fmt::format("money     {} (chip-hours x price)\n", Count(*r.money))
               : "money     not priced (give --price-per-chip-hour)\n";
  s += fmt::format("goodput   {}: MTBF {} ({:.3f} failures/h, {:.0f} expected), restart {} each\n",
                   Pct(g.goodput), std::isfinite(g.mtbf.value()) ? Span(g.mtbf) : "none",
                   g.failures_per_hour, g.expected_failures, Span(g.restart));
  s += fmt::format(
      "checkpoint {} ({} on the most loaded chip): write {}, restore {}, stall {}\n"
      "          every {} of compute (Daly {}, Young {})\n",
      FormatBytes(c.total), FormatBytes(c.per_chip), Span(c.write), Span(c.restore), Span(c.stall),
      Span(c.interval), Span(c.daly), Span(c.young));
  return s;
}

std::string LayoutRows(const std::vector<RunBudget>& runs) {
  std::string s = fmt::format("{:>3}  {:>8} {:>7} {:>9} {:>10} {:>10}  {}\n", "#", "days",
                              "goodput", "step", "chip-h", "MWh", "plan");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunBudget& r = runs[i];
    s += fmt::format("{:>3}  {:>8.2f} {:>7} {:>9} {:>10} {:>10}  {}\n", i + 1, r.days,
                     Pct(r.goodput.goodput), FormatSeconds(r.step_time), Count(r.chip_hours),
                     r.energy_facility_mwh ? fmt::format("{:.0f}", *r.energy_facility_mwh) : "n/a",
                     FormatPlan(r.plan));
  }
  return s;
}

std::string ScanRows(const std::vector<ChipCountRow>& rows) {
  std::string s = fmt::format("{:>8}  {:>8} {:>7} {:>10} {:>10}  {}\n", "chips", "days", "goodput",
                              "chip-h", "MWh", "best layout, or why none");
  for (const ChipCountRow& row : rows) {
    if (!row.best) {
      s += fmt::format("{:>8}  {}\n", row.chips, row.error);
      continue;
    }
    const RunBudget& r = *row.best;
    s += fmt::format("{:>8}  {:>8.2f} {:>7} {:>10} {:>10}  {}\n", row.chips, r.days,
                     Pct(r.goodput.goodput), Count(r.chip_hours),
                     r.energy_facility_mwh ? fmt::format("{:.0f}", *r.energy_facility_mwh) : "n/a",
                     FormatPlan(r.plan));
  }
  return s;
}

std::string InputRows(const std::vector<BudgetInput>& inputs) {
  std::string s;
  for (const BudgetInput& i : inputs) {
    const std::string v = std::isfinite(i.value) ? fmt::format("{:.6g}", i.value) : "n/a";
    s += fmt::format("  {:<24} {:>12} {:<14} {}{}\n", i.key, v, i.unit,
                     i.is_default ? "default: " : "", i.source);
  }
  return s;
}

json InputsJson(const std::vector<BudgetInput>& in) {
  json inputs = json::array();
  for (const auto& i : in) {
    inputs.push_back({{"key", i.key},
                      {"value", std::isfinite(i.value) ? json(i.value) : json(nullptr)},
                      {"unit", i.unit},
                      {"default", i.is_default},
                      {"source", i.source}});
  }
  return inputs;
}

}  // namespace

std::string WholeRunText(const RunBudget& run, const std::vector<BudgetInput>& inputs) {
  return RunText(run) + "inputs (doc/budget.md)\n" + InputRows(inputs);
}

std::string WholeRunJson(const RunBudget& run, const std::vector<BudgetInput>& inputs) {
  return json{{"run", RunJson(run)}, {"inputs", InputsJson(inputs)}}.dump(2);
}

std::string BudgetText(const BudgetResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                       const JobSpec& job, double search_seconds) {
  std::string s =
      fmt::format("budget    {} on {}, seq {}, {} seqs/step ({:.2f}M tokens), {}; objective {}\n",
                  model.name, cluster.name, job.seq_len, job.global_batch_seqs,
                  static_cast<double>(job.global_batch_tokens()) / 1e6,
                  PrecisionName(job.precision), BudgetObjectiveName(r.query.objective));
  s += fmt::format("chips     {}; {:.3f} s\n", ModeText(r.query), search_seconds);
  for (const auto& n : r.notes) s += "note      " + n + "\n";
  if (r.best) s += "\n" + RunText(*r.best);
  if (!r.scanned.empty()) s += "\nchip counts tried\n" + ScanRows(r.scanned);
  if (!r.layouts.empty() && r.best) {
    s += fmt::format("\nlayouts at {} chips, by {}\n", r.best->chips,
                     BudgetObjectiveName(r.query.objective));
    s += LayoutRows(r.layouts);
  }
  s += "\ninputs (change any with the flag of the same name, '_' as '-')\n" + InputRows(r.inputs);
  return s;
}

std::string BudgetJson(const BudgetResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                       const JobSpec& job, double search_seconds) {
  json layouts = json::array();
  for (const auto& l : r.layouts) layouts.push_back(RunJson(l));
  json scanned = json::array();
  for (const auto& row : r.scanned) {
    scanned.push_back({{"chips", row.chips},
                       {"best", row.best ? RunJson(*row.best) : json(nullptr)},
                       {"error", row.error}});
  }
  const json inputs = InputsJson(r.inputs);
  const BudgetQuery& q = r.query;
  const char* mode = q.mode == ChipMode::kFixed      ? "chips"
                     : q.mode == ChipMode::kDeadline ? "days"
                                                     : "max_chips";
  return json{
      {"model", model.name},
      {"cluster", cluster.name},
      {"chip", cluster.chip.key},
      {"seq_len", job.seq_len},
      {"global_batch_seqs", job.global_batch_seqs},
      {"global_batch_tokens", job.global_batch_tokens()},
      {"precision", std::string(PrecisionName(job.precision))},
      {"objective", BudgetObjectiveName(q.objective)},
      {"mode", mode},
      {"query",
       {{"chips", q.chips}, {"days", q.days}, {"max_chips", q.max_chips}, {"layouts", q.layouts}}},
      {"best", r.best ? RunJson(*r.best) : json(nullptr)},
      {"layouts", layouts},
      {"scanned", scanned},
      {"inputs", inputs},
      {"notes", r.notes},
      {"search_seconds", search_seconds}}
      .dump(2);
}

}  // namespace occam
