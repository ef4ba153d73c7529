// occam estimate: one layout's step time, throughput, MFU, memory and bottleneck.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/step.h"

namespace occam::cli {
namespace {

struct EstimateFlags {
  std::string model;
  std::string cluster;
  int64_t chips = 0;
  std::string plan;
  bool json = false;
  JobFlags job;
  WholeRunFlags whole_run;
};

Status Run(const EstimateFlags& f) {
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(PlanSpec plan, ParsePlan(f.plan));
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(model, cluster, job));
  OCCAM_ASSIGN_OR_RETURN(Estimate e, step.Evaluate(plan));
  const std::string text =
      f.json ? EstimateJson(e, model, cluster, job) + "\n" : EstimateText(e, model, cluster, job);
  OCCAM_ASSIGN_OR_RETURN(std::string out,
                         WithWholeRun(text, f.json, f.whole_run, e, model, cluster, job));
  std::fputs(out.c_str(), stdout);
  return Status::Ok();
}

}  // namespace

void RegisterEstimate(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<EstimateFlags>();
  auto* cmd = app.add_subcommand(
      "estimate", "step time, tokens/s, MFU/HFU, memory and bottleneck of one layout");
  cmd->add_option("--model", flags->model, "catalog name or config file")->required();
  cmd->add_option("--cluster", flags->cluster, "cluster template or cluster file")->required();
  cmd->add_option("--chips", flags->chips, "number of chips (templates)");
  cmd->add_option("--plan", flags->plan,
                  "layout, e.g. \"tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b\"")
      ->required();
  cmd->add_flag("--json", flags->json, "print one JSON object");
  AddWholeRunFlags(*cmd, flags->whole_run);
  AddJobFlags(*cmd, flags->job);
  cmd->callback([flags, exit_code] {
    const Status s = Run(*flags);
    *exit_code = s.ok() ? 0 : Fail(s);
  });
}

}  // namespace occam::cli
