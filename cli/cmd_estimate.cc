// occam estimate: one layout's step time, throughput, MFU, memory and bottleneck.
// --emit writes the layout as a framework configuration; --from reads one;
// --html writes the HTML report.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/framework_io.h"
#include "occam/report.h"
#include "occam/step.h"

namespace occam::cli {
namespace {

struct EstimateFlags {
  std::string model;
  std::string cluster;
  int64_t chips = 0;
  std::string plan;
  bool plan_given = false;  // --plan "" is given, and empty
  bool json = false;
  std::string html;
  std::string emit;
  std::vector<std::string> from;
  JobFlags job;
  WholeRunFlags whole_run;
};

Result<FromInputs> Inputs(const EstimateFlags& f, std::string& notes) {
  if (!f.from.empty()) {
    if (f.plan_given) return InvalidInput("--plan and --from both give the layout; use one");
    return LoadFrom(f.from, f.model, f.cluster, f.chips, f.job, notes);
  }
  if (f.model.empty()) return InvalidInput("--model is required (or --from FMT FILE)");
  if (f.cluster.empty()) return InvalidInput("--cluster is required");
  if (!f.plan_given) return InvalidInput("--plan is required (or --from FMT FILE)");
  FromInputs in;
  OCCAM_ASSIGN_OR_RETURN(in.model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(in.cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(in.job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(in.plan, ParsePlan(f.plan));
  return in;
}

Status Run(const EstimateFlags& f, CommandOutput& output) {
  OCCAM_ASSIGN_OR_RETURN(std::optional<Framework> emit, ParseEmitFlag(f.emit));
  if (f.json && (emit || !f.from.empty())) {
    return InvalidInput("--json does not combine with --emit or --from (text output only)");
  }
  OCCAM_ASSIGN_OR_RETURN(FromInputs in, Inputs(f, output.err));
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(in.model, in.cluster, in.job));
  OCCAM_ASSIGN_OR_RETURN(Estimate e, step.Evaluate(in.plan));
  if (!f.html.empty()) {
    OCCAM_RETURN_IF_ERROR(WriteOutputFile(
        f.html, EstimateHtml(e, in.model, in.cluster, in.job, {output.command_line}), "--html"));
  }
  const std::string text = f.json ? EstimateJson(e, in.model, in.cluster, in.job) + "\n"
                                  : EstimateText(e, in.model, in.cluster, in.job);
  OCCAM_ASSIGN_OR_RETURN(std::string out,
                         WithWholeRun(text, f.json, f.whole_run, e, in.model, in.cluster, in.job));
  if (!f.from.empty()) {
    OCCAM_ASSIGN_OR_RETURN(std::string better, BetterLayoutLine(in, e));
    out += better;
  }
  if (emit) {
    OCCAM_ASSIGN_OR_RETURN(EmitOutcome o, EmitForFramework(*emit, step, in.plan));
    out += EmitText(o);
  }
  output.out += out;
  return Status::Ok();
}

}  // namespace

void RegisterEstimate(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<EstimateFlags>();
  auto* cmd = app.add_subcommand(
      "estimate", "step time, tokens/s, MFU/HFU, memory and bottleneck of one layout");
  cmd->add_option("--model", flags->model, "catalog name or config file");
  cmd->add_option("--cluster", flags->cluster, "cluster template or cluster file");
  cmd->add_option("--chips", flags->chips, "number of chips (templates)");
  auto* plan_opt = cmd->add_option(
      "--plan", flags->plan, "layout, e.g. \"tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b\"");
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->add_option("--html", flags->html,
                  "also write an HTML report (memory per device, step-time split) to this file");
  cmd->add_option("--emit", flags->emit,
                  "also print the layout as a megatron, torchtitan or maxtext configuration");
  cmd->add_option("--from", flags->from,
                  "read model, batch and layout from a configuration: --from "
                  "megatron|torchtitan|maxtext FILE")
      ->expected(2);
  AddWholeRunFlags(*cmd, flags->whole_run);
  AddJobFlags(*cmd, flags->job);
  cmd->callback([flags, output, plan_opt] {
    flags->plan_given = plan_opt->count() > 0;
    output->Finish(Run(*flags, *output));
  });
}

}  // namespace occam::cli
