// occam simulate: one pipeline schedule played as a timeline.
//
// Uniform mode: every stage takes --fwd-ms / --bwd-ms per micro-batch (one
// stage = one device's share of the layers, L/p); a device with v chunks
// runs v chunks of 1/v of that each. --wgrad-ms is the weight-gradient part
// W of --bwd-ms (default half of it, see doc/cost-model.md §7.2).
// Model mode: --model/--cluster/--chips/--plan and the job flags; the step
// layer (StepModel::PipelineFor) gives per-chunk costs, uneven stages, the
// p2p time and whether a global-batch aux loss forbids early backwards.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/schedule_traits.h"
#include "occam/simulate.h"
#include "occam/step.h"

namespace occam::cli {
namespace {

struct SimulateFlags {
  std::string schedule;
  int64_t stages = 0;
  int64_t vpp = 0;  // 0: the schedule's default
  int64_t microbatches = 0;
  double fwd_ms = 0;
  double bwd_ms = 0;
  double wgrad_ms = -1;  // < 0: default B/2
  double fwd_comm_ms = 0;
  double bwd_comm_ms = 0;
  double p2p_ms = 0;
  std::string act;  // activation of one micro-batch through one stage ("2GB")
  bool global_aux_loss = false;
  std::string trace;
  std::string html;
  bool json = false;
  // Model mode.
  std::string model;
  std::string cluster;
  int64_t chips = 0;
  std::string plan;
  JobFlags job;
};

bool ModelMode(const SimulateFlags& f) {
  return !f.model.empty() || !f.cluster.empty() || !f.plan.empty();
}

Result<PipelineConfig> ModelConfig(const SimulateFlags& f, SimulateReportInfo& info) {
  if (f.model.empty() || f.cluster.empty() || f.plan.empty()) {
    return InvalidInput(
        "model mode needs --model, --cluster and --plan together (e.g. --model "
        "deepseek-v3 --cluster h800 --chips 2048 --plan \"tp=1,pp=16,...\")");
  }
  if (!f.schedule.empty() || f.stages != 0 || f.microbatches != 0 || f.fwd_ms != 0 ||
      f.bwd_ms != 0 || f.wgrad_ms >= 0 || !f.act.empty() || f.global_aux_loss) {
    return InvalidInput(
        "--schedule/--stages/--microbatches/--fwd-ms/--bwd-ms/--wgrad-ms/--act/"
        "--global-aux-loss describe uniform stages; with --model the plan and "
        "job give them (schedule=..., pp=..., --balance)");
  }
  OCCAM_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(f.model));
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, LoadCluster(f.cluster, f.chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec job, BuildJob(f.job));
  OCCAM_ASSIGN_OR_RETURN(PlanSpec plan, ParsePlan(f.plan));
  OCCAM_ASSIGN_OR_RETURN(StepModel step, StepModel::Create(model, cluster, job));
  OCCAM_ASSIGN_OR_RETURN(PipelineConfig config, step.PipelineFor(plan));
  info.source = "model " + f.model + ", plan " + FormatPlan(plan);
  info.activation_known = true;
  if (config.require_all_forward_first) {
    info.assumptions.push_back("global-batch aux loss: every backward waits for all forwards");
  }
  return config;
}

Status Positive(double x, const std::string& flag) {
  if (x > 0 && x < 1e12) return Status::Ok();
  return InvalidInput(fmt::format("{} must be > 0 (got {:g})", flag, x));
}

Status NonNegative(double x, const std::string& flag) {
  if (x >= 0 && x < 1e12) return Status::Ok();
  return InvalidInput(fmt::format("{} must be >= 0 (got {:g})", flag, x));
}

// Layers of one chunk as a fraction of one stage's (L/p): 1/v on a lane
// (DualPipe: each direction one full stage).
double ChunkFraction(Schedule s, int64_t vpp) {
  const ScheduleTraits& t = TraitsOf(s);
  return t.parameter_copies > 1 ? 1.0 : 1.0 / double(vpp);
}

Result<PipelineConfig> UniformConfig(const SimulateFlags& f, SimulateReportInfo& info) {
  if (f.schedule.empty()) {
    return InvalidInput("--schedule is required (" + PipelineScheduleNames() + ")");
  }
  const auto schedule = ParseScheduleName(f.schedule);
  if (!schedule || *schedule == Schedule::kNone) {
    return InvalidInput("--schedule: '" + f.schedule + "' is not one of " +
                        PipelineScheduleNames());
  }
  if (f.stages < 1) return InvalidInput("--stages must be >= 1 (e.g. --stages 16)");
  if (f.microbatches < 1) return InvalidInput("--microbatches must be >= 1 (e.g. 64)");
  if (f.vpp < 0) return InvalidInput("--vpp must be >= 1");
  OCCAM_RETURN_IF_ERROR(Positive(f.fwd_ms, "--fwd-ms"));
  OCCAM_RETURN_IF_ERROR(Positive(f.bwd_ms, "--bwd-ms"));
  OCCAM_RETURN_IF_ERROR(NonNegative(f.p2p_ms, "--p2p-ms"));
  OCCAM_RETURN_IF_ERROR(NonNegative(f.fwd_comm_ms, "--fwd-comm-ms"));
  OCCAM_RETURN_IF_ERROR(NonNegative(f.bwd_comm_ms, "--bwd-comm-ms"));
  if (f.fwd_comm_ms > f.fwd_ms) return InvalidInput("--fwd-comm-ms cannot exceed --fwd-ms");
  if (f.bwd_comm_ms > f.bwd_ms) return InvalidInput("--bwd-comm-ms cannot exceed --bwd-ms");
  double wgrad = f.wgrad_ms;
  if (wgrad < 0) {
    wgrad = f.bwd_ms / 2;
    info.assumptions.push_back(
        "weight-gradient part W = --bwd-ms / 2 (Zero Bubble, arXiv:2401.10241: T_B ~ T_W for "
        "transformers); set --wgrad-ms");
  } else if (wgrad > f.bwd_ms) {
    return InvalidInput(fmt::format(
        "--wgrad-ms ({:g}) cannot exceed --bwd-ms ({:g}): W is a part of the full backward", wgrad,
        f.bwd_ms));
  }
  PipelineConfig c;
  c.schedule = *schedule;
  c.stages = f.stages;
  c.vpp = f.vpp > 0 ? f.vpp : DefaultLaneChunks(c.schedule);
  c.microbatches = f.microbatches;
  c.require_all_forward_first = f.global_aux_loss;
  const double k = ChunkFraction(c.schedule, c.vpp);
  ChunkCost cost;
  cost.forward = Milliseconds(f.fwd_ms * k);
  cost.backward_input = Milliseconds((f.bwd_ms - wgrad) * k);
  cost.backward_weight = Milliseconds(wgrad * k);
  cost.forward_comm = Milliseconds(f.fwd_comm_ms * k);
  cost.backward_comm = Milliseconds(f.bwd_comm_ms * k);
  double stage_bytes = 1;  // unknown: count in units of A
  if (!f.act.empty()) {
    OCCAM_ASSIGN_OR_RETURN(stage_bytes, ParseScaled(f.act, "--act"));
    info.activation_known = true;
  }
  cost.activation = Bytes(stage_bytes * k);
  info.stage_activation = Bytes(stage_bytes);
  c.chunks = {cost};
  c.p2p = Milliseconds(f.p2p_ms);
  info.source = "uniform stages";
  return c;
}

// A trace holds one event per operation (~100 bytes of JSON each, and the
// timeline behind it in memory): 1 M operations make a ~100 MB file that
// Perfetto still opens. Checked before the simulation runs.
constexpr int64_t kMaxTraceOperations = 1'000'000;

Status CheckTraceSize(const PipelineConfig& c, const std::string& flag) {
  // Forward, backward-input and weight-gradient per (micro-batch, chunk).
  const double ops =
      3.0 * double(c.microbatches) * double(c.stages) * double(std::max<int64_t>(1, c.vpp));
  if (ops <= double(kMaxTraceOperations)) return Status::Ok();
  return InvalidInput(fmt::format(
      "{0}: 3 x {1} micro-batches x {2} stages x {3} chunks is more than {4} traced operations "
      "(the timeline would not fit in memory or a viewer); use fewer --microbatches or drop {0}",
      flag, c.microbatches, c.stages, c.vpp, kMaxTraceOperations));
}

// Flags whose default means "not given": a given value must be valid.
Status CheckGivenFlags(const CLI::App& cmd, const SimulateFlags& f) {
  if (Given(cmd, "--vpp") && f.vpp < 1) {
    return InvalidInput("--vpp must be >= 1 (got " + std::to_string(f.vpp) + ")");
  }
  if (Given(cmd, "--wgrad-ms") && !(f.wgrad_ms >= 0)) {
    return InvalidInput(fmt::format("--wgrad-ms must be >= 0 (got {:g})", f.wgrad_ms));
  }
  if (Given(cmd, "--chips") && f.chips < 1) {
    return InvalidInput("--chips must be >= 1 (got " + std::to_string(f.chips) + ")");
  }
  return Status::Ok();
}

Status Run(const SimulateFlags& f, CommandOutput& output) {
  SimulateReportInfo info;
  OCCAM_ASSIGN_OR_RETURN(PipelineConfig config,
                         ModelMode(f) ? ModelConfig(f, info) : UniformConfig(f, info));
  const bool timeline = !f.trace.empty() || !f.html.empty();
  if (timeline)
    OCCAM_RETURN_IF_ERROR(CheckTraceSize(config, f.trace.empty() ? "--html" : "--trace"));
  config.record_timeline = timeline;
  OCCAM_ASSIGN_OR_RETURN(PipelineResult result, SimulatePipeline(config));
  if (!f.trace.empty()) {
    OCCAM_RETURN_IF_ERROR(WriteOutputFile(f.trace, PipelineTraceJson(config, result), "--trace"));
  }
  if (!f.html.empty()) {
    OCCAM_RETURN_IF_ERROR(WriteOutputFile(
        f.html, SimulateHtml(config, result, info, {output.command_line}), "--html"));
  }
  output.out += f.json ? SimulateJson(config, result, info) : SimulateText(config, result, info);
  if (!f.trace.empty() && !f.json) output.out += "trace written to " + f.trace + "\n";
  return Status::Ok();
}

}  // namespace

void RegisterSimulate(CLI::App& app, CommandOutput* output) {
  auto* cmd = app.add_subcommand("simulate", "play a pipeline schedule as a timeline");
  auto f = std::make_shared<SimulateFlags>();
  cmd->add_option("--schedule", f->schedule,
                  "gpipe (alias afab), 1f1b, interleaved, zb-h1, zbv, dualpipe, dualpipev");
  cmd->add_option("--stages", f->stages, "pipeline ranks (devices)");
  cmd->add_option("--vpp", f->vpp, "chunks per device (interleaved/gpipe; zbv and dualpipev: 2)");
  cmd->add_option("--microbatches", f->microbatches,
                  "micro-batches per step (dualpipe: both directions together)");
  cmd->add_option("--fwd-ms", f->fwd_ms, "forward of one micro-batch through one stage, ms");
  cmd->add_option("--bwd-ms", f->bwd_ms, "full backward (B + W) of one micro-batch, one stage, ms");
  cmd->add_option("--wgrad-ms", f->wgrad_ms,
                  "weight-gradient part W of --bwd-ms, ms (default --bwd-ms / 2)");
  cmd->add_option("--fwd-comm-ms", f->fwd_comm_ms,
                  "part of --fwd-ms that is communication DualPipe can overlap (default 0)");
  cmd->add_option("--bwd-comm-ms", f->bwd_comm_ms,
                  "part of --bwd-ms that is communication DualPipe can overlap (default 0)");
  cmd->add_option("--p2p-ms", f->p2p_ms, "send/recv of one activation between stages, ms");
  cmd->add_option("--act", f->act,
                  "activations of one micro-batch through one stage (e.g. 2GB, 1.5GiB)");
  cmd->add_flag("--global-aux-loss", f->global_aux_loss,
                "MoE global-batch auxiliary loss: backward waits for all forwards");
  cmd->add_option("--model", f->model, "model mode: catalog name or config file");
  cmd->add_option("--cluster", f->cluster, "model mode: cluster template or file");
  cmd->add_option("--chips", f->chips, "model mode: chips (sizes a cluster template)");
  cmd->add_option("--plan", f->plan, "model mode: layout, e.g. \"tp=1,pp=16,ep=64,dp=128,...\"");
  AddJobFlags(*cmd, f->job);
  cmd->add_option("--trace", f->trace, "write a Chrome/Perfetto trace (JSON) to this file");
  cmd->add_option("--html", f->html,
                  "also write an HTML report (the timeline per device and stream) to this file");
  cmd->add_flag("--json", f->json, "print one JSON object");
  cmd->callback([cmd, f, output] {
    const Status given = CheckGivenFlags(*cmd, *f);
    output->Finish(given.ok() ? Run(*f, *output) : given);
  });
}

}  // namespace occam::cli
