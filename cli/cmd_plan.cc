// occam plan: the fastest layout that fits, the simplest within a threshold,
// and whether pipeline parallelism is needed. occam sweep: the same answer
// across clusters and cluster / job variants. The shell measures
// search_seconds (the library reads no clock).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/search.h"

namespace occam::cli {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct PlanFlags {
  std::string model;
  std::string cluster;
  int64_t chips = 0;
  bool json = false;
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

Status RunPlan(const PlanFlags& f) {
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(SearchOptions options, BuildSearchOptions(f.search));
  const auto start = std::chrono::steady_clock::now();
  OCCAM_ASSIGN_OR_RETURN(SearchResult r, SearchLayouts(model, cluster, job, options));
  const double seconds = SecondsSince(start);
  const std::string text = f.json ? PlanJson(r, model, cluster, job, seconds) + "\n"
                                  : PlanText(r, model, cluster, job, seconds);
  OCCAM_ASSIGN_OR_RETURN(std::string out, WithBestWholeRun(text, f, r, model, cluster, job));
  std::fputs(out.c_str(), stdout);
  return Status::Ok();
}

struct SweepFlags {
  std::string model;
  std::string clusters;
  int64_t chips = 0;
  std::string vary;
  std::string csv;
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

Status RunSweepCommand(const SweepFlags& f) {
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(std::vector<ClusterSpec> clusters, LoadClusters(f.clusters, f.chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(SearchOptions options, BuildSearchOptions(f.search));
  OCCAM_ASSIGN_OR_RETURN(SweepSpec sweep, ParseSweepVary(f.vary));
  const auto start = std::chrono::steady_clock::now();
  OCCAM_ASSIGN_OR_RETURN(std::vector<SweepRow> rows,
                         RunSweep(model, clusters, job, sweep, options));
  const double seconds = SecondsSince(start);
  if (!f.csv.empty()) {
    std::ofstream out(f.csv, std::ios::binary);
    if (!out) return InvalidInput("--csv: cannot open '" + f.csv + "' for writing");
    out << SweepCsv(rows);
    if (!out) return InvalidInput("--csv: writing '" + f.csv + "' failed");
  }
  const std::string text =
      f.json ? SweepJson(rows, model, seconds) + "\n" : SweepText(rows, model, seconds);
  std::fputs(text.c_str(), stdout);
  return Status::Ok();
}

void RegisterSweep(CLI::App& app, int* exit_code) {
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
  AddJobFlags(*cmd, flags->job);
  AddSearchFlags(*cmd, flags->search);
  flags->search.top = 3;
  cmd->callback([flags, exit_code] {
    const Status s = RunSweepCommand(*flags);
    *exit_code = s.ok() ? 0 : Fail(s);
  });
}

}  // namespace

void RegisterPlan(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<PlanFlags>();
  auto* cmd = app.add_subcommand(
      "plan", "the fastest layout that fits, the simplest within 3%, and whether PP is needed");
  cmd->add_option("--model", flags->model, "catalog name or config file")->required();
  cmd->add_option("--cluster", flags->cluster, "cluster template or cluster file")->required();
  cmd->add_option("--chips", flags->chips, "number of chips (templates)");
  cmd->add_option("--top", flags->search.top, "layouts in the ranked table (default 20)");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  AddJobFlags(*cmd, flags->job);
  AddSearchFlags(*cmd, flags->search);
  AddWholeRunFlags(*cmd, flags->whole_run);
  cmd->callback([flags, exit_code] {
    const Status s = RunPlan(*flags);
    *exit_code = s.ok() ? 0 : Fail(s);
  });
  RegisterSweep(app, exit_code);
}

}  // namespace occam::cli
