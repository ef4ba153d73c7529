// Rendering of results for people (aligned text tables) and machines (one
// JSON object per command, schemas in doc/json-output.md; CSV for sweeps;
// Chrome/Perfetto trace JSON). Pure functions from results to strings: the
// shells do the printing and file writing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "occam/budget.h"
#include "occam/collective.h"
#include "occam/search.h"
#include "occam/simulate.h"
#include "occam/spec.h"
#include "occam/step.h"
#include "occam/validate.h"

namespace occam {

// occam estimate
std::string EstimateText(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job);
std::string EstimateJson(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job);

// ---- occam collective (section owned by the collectives work) ----

// What `occam collective` was asked: one call on one group shape.
struct CollectiveQuery {
  CollectiveOp op = CollectiveOp::kAllReduce;
  Bytes bytes;
  RankGroup group;
  CollectiveOptions options;
  std::string group_text;  // how the user named the group: "0-15", "axes x,y", ...
};
// Algorithm, time, algbw/busbw, the limiting tier and where the group sits.
std::string CollectiveText(const ClusterSpec& cluster, const CollectiveQuery& query,
                           const CollectiveCost& cost);
// One JSON object; keys in doc/json-output.md § collective.
std::string CollectiveJson(const ClusterSpec& cluster, const CollectiveQuery& query,
                           const CollectiveCost& cost);

// ---- occam simulate (section owned by the pipeline work) ----

// What `occam simulate` reports besides the result: the inputs in the
// user's terms and the defaults it applied.
struct SimulateReportInfo {
  std::string source;             // "uniform stages" or "model deepseek-v3, plan ..."
  bool activation_known = false;  // peak_activation is in real bytes
  // Activations of one micro-batch through one stage (L/p layers) in the
  // units of the chunk activations; > 0 adds peaks in these units ("A").
  Bytes stage_activation;
  std::vector<std::string> assumptions;  // defaults filled in ("W = B/2 ...")
};

// Makespan, bubble, per-device busy/idle and peaks as an aligned table.
std::string SimulateText(const PipelineConfig& config, const PipelineResult& result,
                         const SimulateReportInfo& info);
// One JSON object; keys in doc/json-output.md § simulate.
std::string SimulateJson(const PipelineConfig& config, const PipelineResult& result,
                         const SimulateReportInfo& info);
// Chrome/Perfetto trace: {"traceEvents": [...]}, one process (pid) per
// pipeline device, threads 0 compute, 1 send, 2 recv; "X" events with ts and
// dur in microseconds; "M" events naming processes and threads.
// REQUIRES: result.timeline recorded.
std::string PipelineTraceJson(const PipelineConfig& config, const PipelineResult& result);

// ---- occam balance (section owned by the balance work) ----

// MaxVio (batch at start and end, global), EP rank load max/mean, the
// straggler factor and the sampling used, as aligned text.
std::string BalanceText(const BalanceConfig& config, const BalanceResult& result);
// One JSON object; keys in doc/json-output.md § balance (series per step).
std::string BalanceJson(const BalanceConfig& config, const BalanceResult& result);
// The per-step series as CSV with a header row.
std::string BalanceCsv(const BalanceResult& result);

// ---- occam plan / sweep (section owned by the search work) ----

// `search_seconds` is the wall time the shell measured (the library reads no
// clock). Schemas: doc/json-output.md § plan, § sweep.
std::string PlanText(const SearchResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                     const JobSpec& job, double search_seconds);
std::string PlanJson(const SearchResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                     const JobSpec& job, double search_seconds);
std::string SweepText(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds);
std::string SweepJson(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds);
// One header line, then one line per row (RFC 4180 quoting).
std::string SweepCsv(const std::vector<SweepRow>& rows);
// "default", "ep-outside-dp", "pp-inside-dp" or the order itself ("tp/dp/ep/pp").
std::string PlacementName(const PlanSpec& plan);

// ---- occam budget (section owned by the budget work) ----

// The whole run: the answer, the layouts ranked by the objective, the chip
// counts tried and every input with its value and source. `cluster` is the
// cluster the command named (its chip and name). Schema: doc/json-output.md
// § budget.
std::string BudgetText(const BudgetResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                       const JobSpec& job, double search_seconds);
std::string BudgetJson(const BudgetResult& r, const ModelSpec& model, const ClusterSpec& cluster,
                       const JobSpec& job, double search_seconds);
// One layout's whole run and its inputs (estimate / plan --tokens): text
// lines, or {"run": {...}, "inputs": [...]} with the keys of § budget.
std::string WholeRunText(const RunBudget& run, const std::vector<BudgetInput>& inputs);
std::string WholeRunJson(const RunBudget& run, const std::vector<BudgetInput>& inputs);

// ---- occam validate (section owned by the validation work) ----

// Predicted vs measured per run, skipped runs with reasons, error summary by
// family; `verbose` adds the values filled in for unstated fields.
std::string ValidateText(const ValidationReport& report, bool verbose);
// {"runs": [...], "summary": {...}}; keys in doc/json-output.md § validate.
std::string ValidateJson(const ValidationReport& report);
// `validate --explain ID`: the run's row (measured, predicted, error, the
// values filled in for what its source does not state) and the estimate
// report of the layout and job it was predicted on (EstimateText), or its
// skip reason.
std::string ExplainText(const RunExplanation& x);
// `validate --cv source`: out-of-sample errors first, in-sample (`in`, the
// same runs under the catalog calibration) beside them.
std::string ValidateCvText(const CrossValidationReport& cv, const ValidationReport& in);
std::string ValidateCvJson(const CrossValidationReport& cv, const ValidationReport& in);
// occam validate --fit: the fitted values per chip family, then the transfers.
std::string ValidateFitText(const FitReport& fit);
std::string ValidateFitJson(const FitReport& fit);

// ---- HTML reports (doc/html-report.md) ----
//
// One self-contained HTML page per command: inline SVG charts and CSS, no
// scripts, no network references. Every page states the command line it
// answers and occam's version.

// occam's version ("0.1.0", from the CMake project).
std::string OccamVersion();

// What every page states so it can be reproduced.
struct HtmlInputs {
  std::string command_line;  // the command as typed ("occam plan --model ...")
};

// The full estimates of a plan's named layouts (StepModel::Evaluate, which
// fills memory_per_device); each absent when the search named none.
struct PlanEstimates {
  std::optional<Estimate> best;
  std::optional<Estimate> simplest;
  std::optional<Estimate> best_without_pp;
  std::optional<Estimate> best_with_pp;  // the other side of the PP verdict
};

// Memory per pipeline device (stacked, usable-HBM line) for each named
// layout, their step-time split side by side, and the top layouts as MFU
// against memory per chip.
std::string PlanHtml(const SearchResult& r, const PlanEstimates& estimates, const ModelSpec& model,
                     const ClusterSpec& cluster, const JobSpec& job, double search_seconds,
                     const HtmlInputs& inputs);
// Memory per pipeline device and the step-time split of one layout.
std::string EstimateHtml(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job, const HtmlInputs& inputs);
// MFU of the best layout with and without PP against the swept variable.
std::string SweepHtml(const std::vector<SweepRow>& rows, const ModelSpec& model,
                      double search_seconds, const HtmlInputs& inputs);
// The pipeline timeline per device and stream, busy time per device.
// REQUIRES: result.timeline recorded.
std::string SimulateHtml(const PipelineConfig& config, const PipelineResult& result,
                         const SimulateReportInfo& info, const HtmlInputs& inputs);
// Predicted against measured, log-log, one series per chip family.
std::string ValidateHtml(const ValidationReport& report, const HtmlInputs& inputs);

// ---- occam list (section owned by the spec work) ----

// Human-readable sizes and rates ("1.23 GB", "452 ms").
std::string FormatBytes(Bytes b);
std::string FormatSeconds(Seconds s);

}  // namespace occam
