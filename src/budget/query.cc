// Budget queries: the planner's best layouts at a chip count re-ranked by
// the whole-run objective; the fewest chips that meet a deadline; the best
// run up to a chip limit (doc/budget.md § Search).
#include <algorithm>
#include <cmath>
#include <utility>

#include "occam/budget.h"
#include "occam/cost.h"

namespace occam {
namespace {

constexpr int64_t kDefaultChipLimit = int64_t{1} << 20;

struct Ranked {
  double objective = 0;
  RunBudget run;
};

// The planner's top layouts at one cluster, each as a whole run, best first.
// Layouts that miss `deadline_days` (> 0) are left out.
Result<std::vector<RunBudget>> LayoutsAt(const ModelSpec& model, const ClusterSpec& cluster,
                                         const JobSpec& job, const BudgetAssumptions& a,
                                         const SearchOptions& search, const BudgetQuery& q,
                                         double deadline_days) {
  SearchOptions s = search;
  s.top = q.layouts;
  OCCAM_ASSIGN_OR_RETURN(SearchResult found, SearchLayouts(model, cluster, job, s));
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(model, cluster, job));
  std::vector<Ranked> ranked;
  for (const LayoutResult& l : found.top) {
    OCCAM_ASSIGN_OR_RETURN(Estimate e, step.Evaluate(l.plan));
    if (!e.fits) continue;
    OCCAM_ASSIGN_OR_RETURN(RunBudget r, BudgetRun(e, model, cluster, job, a));
    if (deadline_days > 0 && r.days > deadline_days) continue;
    OCCAM_ASSIGN_OR_RETURN(double v, ObjectiveValue(r, q.objective));
    ranked.push_back({v, std::move(r)});
  }
  // The planner's order (step time, then simplicity) breaks ties.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& x, const Ranked& y) { return x.objective < y.objective; });
  std::vector<RunBudget> out;
  for (auto& r : ranked) out.push_back(std::move(r.run));
  if (out.empty() && deadline_days > 0) {
    return Infeasible("no layout finishes within " + std::to_string(deadline_days) + " days");
  }
  if (out.empty()) return Infeasible("no layout of the planner's top fits");
  return out;
}

// Days at 100% MFU: tokens x model FLOPs per token / (chips x dense peak).
// No layout is faster (the step model's MFU is at most 1).
double IdealDays(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job,
                 double tokens) {
  const FlopsPerSecond peak =
      job.precision == Precision::kFp8 ? cluster.chip.peak_fp8 : cluster.chip.peak_bf16;
  const Seconds t = (ModelFlopsPerToken(model, job.seq_len) * tokens) /
                    (peak * static_cast<double>(cluster.num_chips));
  return t.value() / 86400.0;
}

bool Better(const RunBudget& x, const RunBudget& y, BudgetObjective o) {
  const auto vx = ObjectiveValue(x, o), vy = ObjectiveValue(y, o);
  return vx.ok() && vy.ok() && *vx < *vy;
}

// One chip count of a scan; fills `row` and, when it has an answer, `out`.
Status ScanCount(const ModelSpec& model, const ClusterAtChips& cluster_at, const JobSpec& job,
                 const BudgetOptions& options, const SearchOptions& search, const BudgetQuery& q,
                 int64_t chips, ChipCountRow& row, BudgetResult& out,
                 std::optional<BudgetAssumptions>& assumed) {
  row.chips = chips;
  auto cluster = cluster_at(chips);
  if (!cluster.ok()) {
    row.error = cluster.status().message();
    return Status::Ok();
  }
  if (!assumed) {
    OCCAM_ASSIGN_OR_RETURN(BudgetAssumptions a, ResolveBudget(options, cluster->chip));
    OCCAM_RETURN_IF_ERROR(CheckObjective(a, q.objective));
    out.inputs = a.inputs;
    assumed = std::move(a);
  }
  const double deadline = q.mode == ChipMode::kDeadline ? q.days : 0;
  if (deadline > 0) {
    const double days = IdealDays(model, *cluster, job, assumed->tokens);
    if (days > deadline) {
      row.error = "cannot finish in time: " + std::to_string(days) + " days even at 100% MFU";
      return Status::Ok();
    }
  }
  auto layouts = LayoutsAt(model, *cluster, job, *assumed, search, q, deadline);
  if (!layouts.ok()) {
    if (layouts.status().code() == StatusCode::kInternal) return layouts.status();
    row.error = layouts.status().message();
    return Status::Ok();
  }
  row.best = layouts->front();
  if (!out.best || (q.mode == ChipMode::kMaxChips && Better(*row.best, *out.best, q.objective))) {
    out.best = row.best;
    out.layouts = std::move(*layouts);
  }
  return Status::Ok();
}

Status CheckQuery(const BudgetQuery& q) {
  if (q.layouts < 1 || q.layouts > 10000) {
    return InvalidInput("--top must be between 1 and 10000 (got " + std::to_string(q.layouts) +
                        ")");
  }
  if (q.mode == ChipMode::kFixed && q.chips < 1) return InvalidInput("--chips must be >= 1");
  if (q.mode == ChipMode::kDeadline && !(std::isfinite(q.days) && q.days > 0)) {
    return InvalidInput("--days must be a finite number > 0 (got " + std::to_string(q.days) + ")");
  }
  if (q.mode != ChipMode::kFixed && q.max_chips < 0) {
    return InvalidInput("--max-chips must be >= 1 (got " + std::to_string(q.max_chips) + ")");
  }
  if (q.mode == ChipMode::kMaxChips && q.max_chips < 1) {
    return InvalidInput("--max-chips must be >= 1 (got " + std::to_string(q.max_chips) + ")");
  }
  return Status::Ok();
}

}  // namespace

std::vector<int64_t> CandidateChipCounts(int64_t max_chips) {
  std::vector<int64_t> out;
  for (int64_t n : {1, 2, 3}) {
    if (n <= max_chips) out.push_back(n);
  }
  for (int64_t base = 1; base <= max_chips / 4; base *= 2) {
    for (int64_t m : {4, 5, 6, 7}) {
      if (m * base <= max_chips) out.push_back(m * base);
    }
  }
  if (max_chips >= 1 && (out.empty() || out.back() != max_chips)) out.push_back(max_chips);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<BudgetResult> RunBudgetQuery(const ModelSpec& model, const ClusterAtChips& cluster_at,
                                    const JobSpec& job, const BudgetOptions& options,
                                    const SearchOptions& search, const BudgetQuery& q) {
  OCCAM_RETURN_IF_ERROR(CheckQuery(q));
  BudgetResult out;
  out.query = q;
  std::optional<BudgetAssumptions> assumed;
  if (q.mode == ChipMode::kFixed) {
    OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, cluster_at(q.chips));
    OCCAM_ASSIGN_OR_RETURN(BudgetAssumptions a, ResolveBudget(options, cluster.chip));
    OCCAM_RETURN_IF_ERROR(CheckObjective(a, q.objective));
    out.inputs = a.inputs;
    OCCAM_ASSIGN_OR_RETURN(out.layouts, LayoutsAt(model, cluster, job, a, search, q, 0));
    out.best = out.layouts.front();
    return out;
  }
  const int64_t limit = q.max_chips > 0 ? q.max_chips : kDefaultChipLimit;
  for (int64_t chips : CandidateChipCounts(limit)) {
    ChipCountRow row;
    OCCAM_RETURN_IF_ERROR(
        ScanCount(model, cluster_at, job, options, search, q, chips, row, out, assumed));
    out.scanned.push_back(std::move(row));
    if (q.mode == ChipMode::kDeadline && out.best) break;
  }
  if (!out.best) {
    return Infeasible(q.mode == ChipMode::kDeadline
                          ? "no chip count up to " + std::to_string(limit) + " finishes within " +
                                std::to_string(q.days) + " days (see the chip counts tried)"
                          : "no chip count up to " + std::to_string(limit) + " has a layout");
  }
  out.notes.push_back("chip counts tried: 1, 2, 3 and m x 2^k for m in 4..7, up to " +
                      std::to_string(limit));
  return out;
}

}  // namespace occam
