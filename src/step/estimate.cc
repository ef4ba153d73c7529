// Plan checks specific to the step model, and the Estimate with its
// breakdown lines, bottleneck sentence and stated assumptions.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "step/step_core.h"

namespace occam::step_internal {
namespace {

Status Field(const char* field, const std::string& what) {
  return InvalidInput(fmt::format("plan field '{}': {}", field, what));
}

Status CheckStages(const StepModel::Impl& impl, const PlanSpec& plan) {
  const int64_t chunks = ModelChunks(plan);
  const int64_t layers = impl.model.num_layers;
  if (chunks > layers) {
    return Field("pp", fmt::format("{} pipeline chunks but the model has only {} layers "
                                   "(lower pp or vpp)",
                                   chunks, layers));
  }
  if (plan.stage_layers.empty()) return Status::Ok();
  if (static_cast<int64_t>(plan.stage_layers.size()) != chunks) {
    return Field("stages", fmt::format("{} entries given, the plan has {} pipeline chunks "
                                       "(pp x vpp; 2 x pp for zbv/dualpipev)",
                                       plan.stage_layers.size(), chunks));
  }
  int64_t sum = 0;
  for (int64_t n : plan.stage_layers) {
    if (n < 0) return Field("stages", "layer counts must be >= 0");
    sum += n;
  }
  if (sum != layers) {
    return Field("stages",
                 fmt::format("layer counts sum to {}, the model has {} layers", sum, layers));
  }
  return Status::Ok();
}

}  // namespace

Status CheckPlan(const StepModel::Impl& impl, const PlanSpec& plan) {
  OCCAM_RETURN_IF_ERROR(ValidatePlan(impl.model, impl.cluster, impl.job, plan));
  const struct {
    const char* name;
    int64_t v;
  } positive[] = {{"tp", plan.tp}, {"cp", plan.cp}, {"pp", plan.pp},   {"vpp", plan.vpp},
                  {"dp", plan.dp}, {"ep", plan.ep}, {"etp", plan.etp}, {"mbs", plan.mbs}};
  for (const auto& f : positive) {
    if (f.v < 1) return Field(f.name, fmt::format("must be >= 1 (got {})", f.v));
  }
  if (plan.zero < 0 || plan.zero > 3) {
    return Field("zero", fmt::format("must be 0, 1, 2 or 3 (got {})", plan.zero));
  }
  if (plan.hsdp < 0 || (plan.hsdp > 0 && (plan.dp * plan.cp) % plan.hsdp != 0)) {
    return Field("hsdp",
                 fmt::format("{} does not divide dp*cp = {}", plan.hsdp, plan.dp * plan.cp));
  }
  if (plan.chips() != impl.cluster.num_chips) {
    return Field("dp", fmt::format("tp*cp*pp*dp = {} but the cluster has {} chips", plan.chips(),
                                   impl.cluster.num_chips));
  }
  if (!impl.model.moe && plan.ep > 1) {
    return Field("ep", fmt::format("ep={} but the model has no experts (use ep=1)", plan.ep));
  }
  // MoE parallel folding (doc/cost-model.md § 5): ep*etp divides tp*cp*dp.
  if ((plan.tp * plan.cp * plan.dp) % (plan.ep * plan.etp) != 0) {
    return Field("ep", fmt::format("ep*etp = {} must divide tp*cp*dp = {}", plan.ep * plan.etp,
                                   plan.tp * plan.cp * plan.dp));
  }
  if (impl.job.global_batch_seqs % (plan.dp * plan.mbs) != 0) {
    return Field("mbs", fmt::format("global batch of {} sequences is not divisible by dp*mbs = {}",
                                    impl.job.global_batch_seqs, plan.dp * plan.mbs));
  }
  if (plan.pp > 1 && plan.schedule == Schedule::kNone) {
    return Field("schedule", "pp > 1 needs a pipeline schedule (e.g. schedule=1f1b)");
  }
  return CheckStages(impl, plan);
}

namespace {

std::string TierName(const ClusterSpec& cluster, int tier) {
  if (tier < 0 || tier >= static_cast<int>(cluster.tiers.size())) return "";
  return cluster.tiers[tier].name;
}

void AddItem(Estimate& e, const ClusterSpec& cl, std::string what, std::string axis, int tier,
             Seconds total, Seconds exposed) {
  if (total <= Seconds() && exposed <= Seconds()) return;
  e.breakdown.push_back(
      TimeItem{std::move(what), std::move(axis), TierName(cl, tier), total, exposed});
}

void AddBreakdown(Estimate& e, const StepModel::Impl& impl, const PlanSpec& plan,
                  const CoreResult& r) {
  const ClusterSpec& cl = impl.cluster;
  const Seg& s = r.crit;
  AddItem(e, cl, "compute", "", -1, r.m * (s.cf + s.cb + s.cw), r.m * (s.cf + s.cb + s.cw));
  const char* names[kNumAx] = {plan.sp ? "tp all-gather/reduce-scatter" : "tp all-reduce",
                               "cp ring-attention K/V exchange",
                               "ep all-to-all",
                               "fsdp weight gather/grad scatter",
                               "moe dispatcher host sync",
                               "activation offload (host link)"};
  const char* axes[kNumAx] = {"tp", "cp", "ep", "dp", "host", "host"};
  for (int a = 0; a < kNumAx; ++a) {
    AddItem(e, cl, names[a], axes[a], r.ctx.tier[a], r.m * s.total[a], r.m * s.ExposedOn(a));
  }
  AddItem(e, cl, "pipeline bubble", "", -1, r.bubble, r.bubble);
  AddItem(e, cl, "pp send/recv", "pp", r.p2p.tier, r.p2p.total, r.p2p.exposed);
  const bool rs = plan.zero >= 1 && plan.zero < 3;
  const std::string grad = plan.zero >= 3 ? "hsdp gradient all-reduce"
                           : rs           ? "dp gradient reduce-scatter"
                                          : "dp gradient all-reduce";
  AddItem(e, cl, grad, "dp", r.dp_grad.tier, r.dp_grad.total, r.dp_grad.exposed);
  AddItem(e, cl, rs ? "expert-dp gradient reduce-scatter" : "expert-dp gradient all-reduce", "edp",
          r.edp_grad.tier, r.edp_grad.total, r.edp_grad.exposed);
  AddItem(e, cl, "dp weight all-gather", "dp", r.dp_gather.tier, r.dp_gather.total,
          r.dp_gather.exposed);
  AddItem(e, cl, "expert-dp weight all-gather", "edp", r.edp_gather.tier, r.edp_gather.total,
          r.edp_gather.exposed);
  AddItem(e, cl, "optimizer step", "", -1, r.optimizer.total, r.optimizer.exposed);
}

std::string Bottleneck(const Estimate& e) {
  const double step = e.step_time.value();
  const TimeItem* top = nullptr;
  double compute = 0;
  for (const TimeItem& i : e.breakdown) {
    if (i.what == "compute") {
      compute = i.exposed.value();
    } else if (top == nullptr || i.exposed > top->exposed) {
      top = &i;
    }
  }
  std::string s;
  if (!e.fits) {
    s = fmt::format("does not fit: needs {:.1f} GB per chip, {:.1f} GB usable; ",
                    e.memory.total().value() / 1e9, e.memory_capacity.value() / 1e9);
  }
  auto pct = [&](double x) { return step > 0 ? 100.0 * x / step : 0.0; };
  if (top == nullptr || top->exposed.value() <= 0) {
    return s + fmt::format("compute-bound: compute is {:.0f}% of the step", pct(compute));
  }
  const std::string where = top->tier.empty() ? "" : " over " + top->tier;
  const std::string what = top->axis.empty() ? top->what : "exposed " + top->what + where;
  if (top->exposed.value() >= compute) {
    return s + fmt::format("{} is {:.0f}% of the step (compute {:.0f}%)", what,
                           pct(top->exposed.value()), pct(compute));
  }
  return s + fmt::format(
                 "compute-bound: compute is {:.0f}% of the step; the largest overhead "
                 "is {} ({:.0f}%)",
                 pct(compute), what, pct(top->exposed.value()));
}

// Which pipeline model timed the step (doc/cost-model.md §6).
std::string PipelineAssumption(const PlanSpec& plan, const CoreResult& r) {
  const std::string schedule(ScheduleName(r.converted ? Schedule::kGpipe : plan.schedule));
  if (r.simulated) {
    return fmt::format(
        "pipeline simulated: {} with {:.0f} micro-batches on the event engine (bubble = makespan "
        "- m x slowest device; activation peaks per device; p2p fill/drain on its own line); "
        "chunk costs rounded to 8 bits (<= 0.2%)",
        schedule, r.m);
  }
  return "pipeline bubble and in-flight micro-batches from the schedule's closed form (the "
         "simulator does not run " +
         std::string(ScheduleName(plan.schedule)) + " under a global-batch aux loss)";
}

// The training state per parameter in words (TrainingStateBytes).
std::string OptimizerAssumption(const JobSpec& job) {
  if (!job.bf16_master_weights && !job.bf16_gradients) {
    return job.bf16_optimizer_moments
               ? "optimizer: mixed-precision Adam, 2 B weight + 4 B fp32 grad + 4 B fp32 master + "
                 "2 x 2 B bf16 moments per parameter"
               : "optimizer: mixed-precision Adam, 2 B weight + 4 B fp32 grad + 12 B fp32 state "
                 "per parameter";
  }
  return std::string("optimizer: Adam, 2 B bf16 weight") +
         (job.bf16_gradients ? " + 2 B bf16 grad" : " + 4 B fp32 grad") +
         (job.bf16_master_weights ? " (no fp32 master)" : " + 4 B fp32 master") +
         (job.bf16_optimizer_moments ? " + 2 x 2 B bf16 moments" : " + 2 x 4 B fp32 moments") +
         " per parameter";
}

void AddAssumptions(Estimate& e, const StepModel::Impl& impl, const PlanSpec& plan,
                    const CoreResult& r) {
  auto& a = e.assumptions;
  a.push_back("MFU/HFU against the chip's dense " + std::string(PrecisionName(impl.job.precision)) +
              " peak");
  a.push_back(OptimizerAssumption(impl.job) + ", ZeRO stage " + std::to_string(plan.zero));
  if (impl.job.moe_probs_in_activation && impl.model.moe) {
    a.push_back(
        "moe routing probabilities applied on the experts' activation output: a routed "
        "copy keeps no expert output");
  }
  if (impl.job.fp8_moe_cache) {
    a.push_back("fp8 moe cache: the routed experts' SwiGLU inputs kept in FP8 for the backward");
  }
  if (plan.offload_modules != 0) {
    a.push_back(fmt::format(
        "activation offload: {} to host memory over a {:.0f} GB/s host link per direction, "
        "exposed where a block's pass is shorter than its copy",
        OffloadModulesName(plan.offload_modules),
        impl.cluster.chip.host_link_bandwidth.value() / 1e9));
  }
  if (impl.job.attention == AttentionImpl::kMaterialized) {
    a.push_back("attention: materialized score matrix (full s x s per head, written to HBM)");
  } else if (impl.job.attention == AttentionImpl::kFlash2) {
    a.push_back(fmt::format(
        "attention: FlashAttention-2's kernel (PyTorch SDPA's flash backend; scores recomputed, "
        "not stored, causal blocks skipped) at {:.2f} of the fused kernels' rate on this chip",
        impl.cluster.chip.flash2_ratio));
  } else {
    a.push_back("attention: FlashAttention (scores recomputed, not stored, causal blocks skipped)");
  }
  a.push_back(impl.job.dropout ? "dropout: attention and hidden dropout (masks stored)"
                               : "dropout: none");
  if (impl.model.moe && plan.ep > 1 && impl.cluster.chip.moe_dispatch_host_s > 0) {
    a.push_back(
        impl.job.moe_host_sync
            ? fmt::format("moe dispatcher host sync: {:.3g} ms of host time per MoE layer forward "
                          "after the dispatcher's device-to-host sync (again in a full "
                          "recompute), the device idle for what the forward's FLOP share of the "
                          "block's time (1/3, 1/4 with full recompute) does not cover "
                          "(calibration moe_dispatch_host_ms; off with moe_host_sync: false or "
                          "--no-moe-host-sync)",
                          impl.cluster.chip.moe_dispatch_host_s * 1e3)
            : "moe dispatcher host sync: off (moe_host_sync: false)");
  }
  if (impl.job.tp_comm_overlap && plan.tp > 1) {
    a.push_back("tensor-parallel collectives pipelined with their GEMMs (1/tp of each exposed)");
  }
  if (!impl.job.overlap_grad_reduce) {
    a.push_back("data-parallel gradient reduction after the last backward, not overlapped");
  }
  if (plan.zero >= 3 && (impl.job.fsdp_per_tensor || !impl.job.fsdp_overlap)) {
    a.push_back(std::string("zero-3 collectives: ") +
                (impl.job.fsdp_per_tensor ? "one all-gather and reduce-scatter per weight matrix"
                                          : "one all-gather and reduce-scatter per block") +
                (impl.job.fsdp_overlap ? ", prefetched behind compute"
                                       : ", on the compute stream (exposed)"));
  }
  if (impl.model.moe && impl.job.capacity_factor > 0 && r.ctx.lambda >= impl.job.capacity_factor) {
    a.push_back(fmt::format(
        "MoE rank imbalance lambda = {:.3g}: capped by the capacity factor (tokens dropped)",
        r.ctx.lambda));
  } else if (impl.model.moe) {
    a.push_back(impl.job.moe_imbalance > 0
                    ? fmt::format("MoE rank imbalance lambda = {:.3g} (given)", r.ctx.lambda)
                    : fmt::format("MoE rank imbalance lambda = {:.3g} (balance simulation of "
                                  "{} routing over ep={})",
                                  r.ctx.lambda, BalanceMethodName(impl.job.balance), plan.ep));
  }
  if (plan.pp > 1) {
    a.push_back(plan.stage_layers.empty()
                    ? "pipeline split: embedding = 1 layer on the first chunk, head + loss = 1 "
                      "(+2 per MTP module) on the last"
                    : "pipeline split: explicit stages list");
    a.push_back(PipelineAssumption(plan, r));
  }
  if (r.ctx.ep_window == EpWindow::kPaired && !r.ctx.dual) {
    a.push_back(fmt::format(
        "a2a_overlap: combined 1F1B pairs each forward with a backward layer by layer; {:.3g} "
        "of the passes (warm-up/cool-down, mean over the pipeline ranks) keep their expert "
        "all-to-all exposed",
        r.ctx.a2a_unpaired));
  }
  if (r.ctx.ep_window == EpWindow::kHalves) {
    a.push_back(fmt::format(
        "a2a_overlap=tbo: each MoE layer runs its micro-batch as two halves, one half's "
        "all-to-all beside the other half's compute (GEMMs at half the tokens); {:.3g} of it "
        "(the first dispatch and last combine of each pass) stays exposed",
        r.ctx.a2a_unpaired));
  }
  if (r.ctx.ep_window == EpWindow::kShared) {
    a.push_back(
        "a2a_overlap=shared: the expert all-to-all hides only behind the shared expert's "
        "compute; the rest is exposed");
  }
  if (r.ctx.dual && impl.model.moe && plan.ep > 1) {
    a.push_back(fmt::format(
        "{}: each F&B pair hides its chunks' expert all-to-all behind the other's compute; "
        "{:.3g} of the chunk passes (warm-up, cool-down, counted from the schedule, mean over the "
        "devices) run alone with it exposed",
        ScheduleName(plan.schedule), r.ctx.a2a_unpaired));
  }
  if (r.all_forward_first) {
    a.push_back(
        "global-batch aux loss: every forward before the first backward "
        "(all micro-batches in flight)");
  }
  if (impl.model.mtp_layers > 0) a.push_back("MTP modules trained (in FLOPs and memory)");
}

}  // namespace

Estimate BuildEstimate(const StepModel::Impl& impl, const PlanSpec& plan, const CoreResult& r) {
  Estimate e;
  e.plan = plan;
  e.step_time = r.step;
  const double tokens = static_cast<double>(impl.job.global_batch_tokens());
  const double chips = static_cast<double>(plan.chips());
  e.tokens_per_s = tokens / r.step.value();
  e.tokens_per_s_per_chip = e.tokens_per_s / chips;
  e.model_flops_per_token = Flops(impl.model_flops_per_token);
  e.model_flops_per_chip = FlopsPerSecond(impl.model_flops_per_token * e.tokens_per_s_per_chip);
  e.mfu = r.mfu;
  e.hfu = r.hfu;
  e.params_total = impl.work.params.total;
  e.params_active = impl.work.params.active;
  e.memory = r.memory;
  e.memory_capacity = r.capacity;
  e.fits = r.fits;
  e.bubble = r.bubble;
  AddBreakdown(e, impl, plan, r);
  e.bottleneck = Bottleneck(e);
  AddAssumptions(e, impl, plan, r);
  return e;
}

}  // namespace occam::step_internal
