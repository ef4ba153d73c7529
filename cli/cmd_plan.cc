// occam plan: the fastest layout that fits, the simplest within a threshold,
// and whether pipeline parallelism is needed. occam sweep: the same answer
// across clusters and cluster / job variants. The shell measures
// search_seconds (the library reads no clock). --html writes the HTML report.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/framework_io.h"
#include "occam/report.h"
#include "occam/search.h"

namespace occam::cli {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Layouts of the ranking --emit searches for the fastest expressible one.
constexpr int64_t kEmitRanking = 300;

struct PlanFlags {
  std::string model;
  std::string cluster;
  int64_t chips = 0;
  bool json = false;
  std::string html;
  std::string emit;
  std::vector<std::string> from;
  JobFlags job;
  SearchFlags search;
  WholeRunFlags whole_run;
};

// The plan output with the whole run of its best layout (--tokens).
Result<std::string> WithBestWholeRun(const std::string& out, const PlanFlags& f,
                                     const SearchResult& r, const ModelSpec& model,
                                     const ClusterSpec& cluster, const JobSpec& job) {
  if (f.whole_run.tokens.empty() || !r.best) return out;
  OCCAM_ASSIGN_OR_RETURN(Estimate e, EstimateStep(model, cluster, job, r.best->plan));
  return WithWholeRun(out, f.json, f.whole_run, e, model, cluster, job);
}

// The model, cluster and job: from the flags, or read from --from FMT FILE
// (then `from_plan` is the file's layout).
Result<FromInputs> PlanInputs(const PlanFlags& f, std::optional<PlanSpec>& from_plan,
                              std::string& notes) {
  FromInputs in;
  if (!f.from.empty()) {
    OCCAM_ASSIGN_OR_RETURN(in, LoadFrom(f.from, f.model, f.cluster, f.chips, f.job, notes));
    from_plan = in.plan;
    return in;
  }
  if (f.model.empty()) return InvalidInput("--model is required (or --from FMT FILE)");
  if (f.cluster.empty()) return InvalidInput("--cluster is required");
  OCCAM_ASSIGN_OR_RETURN(in.model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(in.cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(in.job, BuildJob(f.job));
  return in;
}

// The file's own layout against the search's best (plan --from).
Result<std::string> FromSummary(const FromInputs& in, const PlanSpec& plan, const SearchResult& r) {
  OCCAM_ASSIGN_OR_RETURN(Estimate e, EstimateStep(in.model, in.cluster, in.job, plan));
  char buf[512];
  std::snprintf(buf, sizeof buf, "\nThe configuration read: %s, %.3f s per step, MFU %.1f%%%s.\n",
                FormatPlan(plan).c_str(), e.step_time.value(), 100 * e.mfu,
                e.fits ? "" : " (does not fit in memory)");
  std::string s = buf;
  if (r.best) {
    std::snprintf(buf, sizeof buf,
                  "The best layout found has %.1f%% more throughput (%.3f s per step); add "
                  "--emit %s to see it as a configuration.\n",
                  100.0 * (e.step_time.value() / r.best->step_time.value() - 1.0),
                  r.best->step_time.value(), std::string(FrameworkName(in.framework)).c_str());
    s += buf;
  }
  return s;
}

// The full estimates of the plan's named layouts, for the HTML report.
Result<PlanEstimates> EstimateNamedLayouts(const SearchResult& r, const FromInputs& in) {
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(in.model, in.cluster, in.job));
  PlanEstimates out;
  const std::pair<const std::optional<LayoutResult>*, std::optional<Estimate>*> roles[] = {
      {&r.best, &out.best},
      {&r.simplest, &out.simplest},
      {&r.best_without_pp, &out.best_without_pp},
      {&r.best_with_pp, &out.best_with_pp}};
  for (const auto& [layout, estimate] : roles) {
    if (!layout->has_value()) continue;
    OCCAM_ASSIGN_OR_RETURN(*estimate, step.Evaluate((*layout)->plan));
  }
  return out;
}

Status WritePlanHtml(const PlanFlags& f, const SearchResult& r, const FromInputs& in,
                     double seconds, const std::string& command_line) {
  if (f.html.empty()) return Status::Ok();
  OCCAM_ASSIGN_OR_RETURN(PlanEstimates estimates, EstimateNamedLayouts(r, in));
  return WriteOutputFile(
      f.html, PlanHtml(r, estimates, in.model, in.cluster, in.job, seconds, {command_line}),
      "--html");
}

Status RunPlan(const PlanFlags& f, CommandOutput& output) {
  OCCAM_ASSIGN_OR_RETURN(std::optional<Framework> emit, ParseEmitFlag(f.emit));
  if (f.json && (emit || !f.from.empty())) {
    return InvalidInput("--json does not combine with --emit or --from (text output only)");
  }
  std::optional<PlanSpec> from_plan;
  OCCAM_ASSIGN_OR_RETURN(FromInputs in, PlanInputs(f, from_plan, output.err));
  OCCAM_ASSIGN_OR_RETURN(SearchOptions options, BuildSearchOptions(f.search));
  const int64_t shown = options.top;
  // --emit looks further down the ranking for the fastest layout the
  // framework can express; the table still shows --top rows.
  if (emit) options.top = std::max<int64_t>(options.top, kEmitRanking);
  const auto start = std::chrono::steady_clock::now();
  OCCAM_ASSIGN_OR_RETURN(SearchResult r, SearchLayouts(in.model, in.cluster, in.job, options));
  const double seconds = SecondsSince(start);
  std::vector<PlanSpec> ranked;
  for (const auto& l : r.top) ranked.push_back(l.plan);
  if (static_cast<int64_t>(r.top.size()) > shown) r.top.resize(shown);
  OCCAM_RETURN_IF_ERROR(WritePlanHtml(f, r, in, seconds, output.command_line));
  const std::string text = f.json ? PlanJson(r, in.model, in.cluster, in.job, seconds) + "\n"
                                  : PlanText(r, in.model, in.cluster, in.job, seconds);
  OCCAM_ASSIGN_OR_RETURN(std::string out,
                         WithBestWholeRun(text, f, r, in.model, in.cluster, in.job));
  if (from_plan) {
    OCCAM_ASSIGN_OR_RETURN(std::string s, FromSummary(in, *from_plan, r));
    out += s;
  }
  if (emit) {
    if (!r.best) return InvalidInput("--emit: the search found no layout that fits");
    OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(in.model, in.cluster, in.job));
    OCCAM_ASSIGN_OR_RETURN(EmitOutcome o, EmitForFramework(*emit, step, r.best->plan, ranked));
    out += EmitText(o);
  }
  output.out += out;
  return Status::Ok();
}

struct SweepFlags {
  std::string model;
  std::string clusters;
  int64_t chips = 0;
  std::string vary;
  std::string csv;
  std::string html;
  bool json = false;
  JobFlags job;
  SearchFlags search;
};

Result<std::vector<ClusterSpec>> LoadClusters(const std::string& list, int64_t chips) {
  std::vector<ClusterSpec> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? list.npos : comma - start);
    if (name.empty()) return InvalidInput("--clusters: empty name in '" + list + "'");
    OCCAM_ASSIGN_OR_RETURN(ClusterSpec c, LoadCluster(name, chips));
    out.push_back(std::move(c));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Status RunSweepCommand(const SweepFlags& f, CommandOutput& output) {
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(std::vector<ClusterSpec> clusters, LoadClusters(f.clusters, f.chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(SearchOptions options, BuildSearchOptions(f.search));
  OCCAM_ASSIGN_OR_RETURN(SweepSpec sweep, ParseSweepVary(f.vary));
  const auto start = std::chrono::steady_clock::now();
  OCCAM_ASSIGN_OR_RETURN(std::vector<SweepRow> rows,
                         RunSweep(model, clusters, job, sweep, options));
  const double seconds = SecondsSince(start);
  if (!f.csv.empty()) OCCAM_RETURN_IF_ERROR(WriteOutputFile(f.csv, SweepCsv(rows), "--csv"));
  if (!f.html.empty()) {
    OCCAM_RETURN_IF_ERROR(
        WriteOutputFile(f.html, SweepHtml(rows, model, seconds, {output.command_line}), "--html"));
  }
  output.out += f.json ? SweepJson(rows, model, seconds) + "\n" : SweepText(rows, model, seconds);
  return Status::Ok();
}

void RegisterSweep(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<SweepFlags>();
  auto* cmd = app.add_subcommand(
      "sweep", "how the best layout and the PP verdict move across clusters and variants");
  cmd->add_option("--model", flags->model, "catalog name or config file")->required();
  cmd->add_option("--clusters", flags->clusters,
                  "comma-separated cluster templates or files, e.g. h800,h100,gb200,tpu-v5p")
      ->required();
  cmd->add_option("--chips", flags->chips, "number of chips (templates)");
  cmd->add_option("--vary", flags->vary,
                  "one of scale-up-size=8,16,72  scale-out-gbps=25,50,100  "
                  "global-batch-tokens=4M,16M  seq-len=4096,8192");
  cmd->add_option("--csv", flags->csv, "also write the rows as CSV to this file");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->add_option("--html", flags->html,
                  "also write an HTML report (MFU with and without PP per variant) to this file");
  AddJobFlags(*cmd, flags->job);
  AddSearchFlags(*cmd, flags->search);
  flags->search.top = 3;
  cmd->callback([flags, output] { output->Finish(RunSweepCommand(*flags, *output)); });
}

}  // namespace

void RegisterPlan(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<PlanFlags>();
  auto* cmd = app.add_subcommand(
      "plan", "the fastest layout that fits, the simplest within 3%, and whether PP is needed");
  cmd->add_option("--model", flags->model, "catalog name or config file");
  cmd->add_option("--cluster", flags->cluster, "cluster template or cluster file");
  cmd->add_option("--chips", flags->chips, "number of chips (templates)");
  cmd->add_option("--top", flags->search.top, "layouts in the ranked table (default 20)");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->add_option("--html", flags->html,
                  "also write an HTML report (memory per device, step-time split, top layouts) "
                  "to this file");
  cmd->add_option("--emit", flags->emit,
                  "also print the best layout as a megatron, torchtitan or maxtext configuration");
  cmd->add_option("--from", flags->from,
                  "take model, batch and the current layout from a configuration: --from "
                  "megatron|torchtitan|maxtext FILE")
      ->expected(2);
  AddJobFlags(*cmd, flags->job);
  AddSearchFlags(*cmd, flags->search);
  AddWholeRunFlags(*cmd, flags->whole_run);
  cmd->callback([flags, output] { output->Finish(RunPlan(*flags, *output)); });
  RegisterSweep(app, output);
}

}  // namespace occam::cli
