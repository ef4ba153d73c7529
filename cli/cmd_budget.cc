// occam budget: days, chip-hours, energy, money and goodput of the whole
// run for a token budget, at a chip count, for a deadline or up to a chip
// limit. The shell parses flags and measures search_seconds; the budget
// layer does the rest (doc/budget.md).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/budget.h"
#include "occam/report.h"

namespace occam::cli {
namespace {

struct BudgetFlags {
  std::string model;
  std::string cluster;
  std::string tokens;
  std::optional<int64_t> chips;
  std::optional<double> days;
  std::optional<int64_t> max_chips;
  std::string objective = "time";
  int64_t top = 20;
  bool json = false;
  BudgetOptions options;
  JobFlags job;
  SearchFlags search;
};

Result<BudgetQuery> BuildQuery(const BudgetFlags& f) {
  BudgetQuery q;
  q.layouts = f.top;
  if (f.objective == "time") {
    q.objective = BudgetObjective::kTime;
  } else if (f.objective == "cost") {
    q.objective = BudgetObjective::kCost;
  } else if (f.objective == "energy") {
    q.objective = BudgetObjective::kEnergy;
  } else {
    return InvalidInput("--objective: '" + f.objective + "' is not time, cost or energy");
  }
  if (f.chips && (f.days || f.max_chips)) {
    return InvalidInput(
        "--chips fixes the chip count; do not combine it with --days or "
        "--max-chips");
  }
  if (f.days) {
    q.mode = ChipMode::kDeadline;
    q.days = *f.days;
    q.max_chips = f.max_chips.value_or(0);
    if (f.max_chips && *f.max_chips < 1) return InvalidInput("--max-chips must be >= 1");
  } else if (f.max_chips) {
    q.mode = ChipMode::kMaxChips;
    q.max_chips = *f.max_chips;
  } else {
    q.chips = f.chips.value_or(0);
  }
  return q;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Status RunBudgetCommand(BudgetFlags f, CommandOutput& output) {
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(f.options.tokens, ParseScaled(f.tokens, "--tokens"));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(BudgetQuery q, BuildQuery(f));
  if (q.mode == ChipMode::kFixed) {
    // A cluster file without --chips: all of its chips.
    OCCAM_ASSIGN_OR_RETURN(ClusterSpec c, LoadCluster(f.cluster, q.chips));
    q.chips = c.num_chips;
  }
  f.search.top = f.top;
  OCCAM_ASSIGN_OR_RETURN(SearchOptions search, BuildSearchOptions(f.search));
  const std::string arg = f.cluster;
  const ClusterAtChips cluster_at = [arg](int64_t chips) { return LoadCluster(arg, chips); };
  const auto start = std::chrono::steady_clock::now();
  OCCAM_ASSIGN_OR_RETURN(BudgetResult r,
                         RunBudgetQuery(model, cluster_at, job, f.options, search, q));
  const double seconds = SecondsSince(start);
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, cluster_at(r.best->chips));
  output.out += f.json ? BudgetJson(r, model, cluster, job, seconds) + "\n"
                       : BudgetText(r, model, cluster, job, seconds);
  return Status::Ok();
}

}  // namespace

void RegisterBudget(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<BudgetFlags>();
  auto* cmd = app.add_subcommand(
      "budget",
      "days, chip-hours, energy, money and goodput under failures of a whole training run");
  cmd->add_option("--model", flags->model, "catalog name or config file")->required();
  cmd->add_option("--cluster", flags->cluster, "cluster template or cluster file")->required();
  cmd->add_option("--tokens", flags->tokens, "training tokens, decimal (e.g. 15T = 15e12)")
      ->required();
  cmd->add_option("--chips", flags->chips, "chips in the job");
  cmd->add_option("--days", flags->days,
                  "deadline: the fewest chips that finish in this many days");
  cmd->add_option("--max-chips", flags->max_chips,
                  "chip limit: the best run by --objective at up to this many chips");
  cmd->add_option("--objective", flags->objective, "rank by time (default), cost or energy");
  cmd->add_option("--top", flags->top,
                  "planner layouts per chip count re-ranked by the objective (default 20)");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  AddBudgetInputFlags(*cmd, flags->options);
  AddJobFlags(*cmd, flags->job);
  AddSearchFlags(*cmd, flags->search);
  cmd->callback([flags, output] { output->Finish(RunBudgetCommand(*flags, *output)); });
}

}  // namespace occam::cli
