// Interpretation of a published run (doc/validation.md, "From a run to
// occam's inputs" and "Unstated fields"). Keyword rules read the free-text
// fields (precision, recompute, zero, schedule); every value chosen by a
// convention rather than read from the run is recorded in `filled`.
#include "validate/run_setup.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "validate/run_recipe.h"

namespace occam::validate {

void Fill(std::vector<std::pair<std::string, std::string>>* filled, std::string field,
          std::string how) {
  if (filled != nullptr) filled->emplace_back(std::move(field), std::move(how));
}

std::vector<Recompute> HeavierRecompute(Recompute r) {
  if (r == Recompute::kNone) return {Recompute::kSelective, Recompute::kFull};
  if (r == Recompute::kFull) return {};
  return {Recompute::kFull};
}

namespace {

// Catalog cluster template and chip for a run's chip_key (see doc/validation.md).
std::string TemplateFor(std::string_view chip_key) {
  const std::string key(chip_key);
  if (key.rfind("a100", 0) == 0) return "a100";
  if (key.rfind("h100", 0) == 0) return "h100";
  return key;  // h800, h200, b200, gb200, gb300, tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e, ...
}

// A DCN tier of the template: the outermost tier of kind kDcn in a cluster
// built beyond one slice.
std::optional<TierSpec> DcnTierOf(std::string_view tmpl, int64_t chips) {
  for (int64_t n = chips; n <= (int64_t{1} << 17); n *= 2) {
    auto c = CatalogCluster(tmpl, n);
    if (!c.ok()) continue;
    for (const TierSpec& t : c->tiers) {
      if (t.kind == TierKind::kDcn) return t;
    }
  }
  return std::nullopt;
}

// Fewer chips than one scale-up domain (64 GPUs of a 72-GPU NVL72 rack): the
// template's smallest cluster whose first domain holds them, cut to `chips`.
// Only counts below kMaxPartialChips are tried: no template's first domain is
// larger (the largest, a tpu-v7 slice, holds 9,216), and the loop re-reads the
// template once per candidate.
constexpr int64_t kMaxPartialChips = 16384;
std::optional<ClusterSpec> PartialDomain(std::string_view tmpl, int64_t chips) {
  if (chips >= kMaxPartialChips) return std::nullopt;
  for (int64_t n = chips + 1; n <= 2 * chips; ++n) {
    auto c = CatalogCluster(tmpl, n);
    if (!c.ok()) continue;
    if (c->tiers.empty() || c->tiers.front().size < chips) return std::nullopt;
    ClusterSpec out = *c;
    out.tiers.resize(1);
    out.tiers.front().size = chips;
    if (!out.tiers.front().torus_dims.empty()) return std::nullopt;  // tori do not cut
    out.num_chips = chips;
    return out;
  }
  return std::nullopt;
}

// More chips than one scale-up domain but not a whole number of them (256
// GPUs of 72-GPU NVL72 racks): the fewest domains that hold them, each filled
// with the same share (4 x 64), every tier scaled by share / domain size.
// Sources that give no placement leave this to the job scheduler; an even
// split is what a segment-aware scheduler (Slurm --segment) gives.
std::optional<ClusterSpec> EvenDomains(std::string_view tmpl, int64_t chips) {
  std::optional<ClusterSpec> one;
  for (int64_t n = chips + 1; !one && n <= 2 * chips; ++n) {
    if (Result<ClusterSpec> c = CatalogCluster(tmpl, n); c.ok()) one = *c;
  }
  if (!one || one->tiers.empty() || !one->tiers.front().torus_dims.empty()) {
    return std::nullopt;
  }
  const int64_t domain = one->tiers.front().size;
  const int64_t domains = (chips + domain - 1) / domain;
  if (domains < 2 || chips % domains != 0) return std::nullopt;
  Result<ClusterSpec> whole = CatalogCluster(tmpl, domains * domain);
  if (!whole.ok()) return std::nullopt;
  ClusterSpec out = *whole;
  const int64_t share = chips / domains;
  for (TierSpec& t : out.tiers) {
    if (t.size % domain != 0) return std::nullopt;
    t.size = t.size / domain * share;
  }
  out.num_chips = chips;
  return out;
}

}  // namespace

Result<ClusterSpec> BuildCluster(const PublishedRun& run,
                                 std::vector<std::pair<std::string, std::string>>* filled) {
  const std::string tmpl = TemplateFor(run.chip_key);
  const int64_t slices = InterpretSlices(run);
  Result<ClusterSpec> built = CatalogCluster(tmpl, run.n_chips);
  if (slices > 1) {
    if (run.n_chips % slices != 0) {
      return InvalidInput("n_chips " + std::to_string(run.n_chips) + " is not divisible by the " +
                          std::to_string(slices) + " slices the source describes");
    }
    const int64_t per_slice = run.n_chips / slices;
    const bool has_slice_tier =
        built.ok() && std::any_of(built->tiers.begin(), built->tiers.end(),
                                  [&](const TierSpec& t) { return t.size == per_slice; });
    if (!has_slice_tier) {
      Result<ClusterSpec> slice = CatalogCluster(tmpl, per_slice);
      if (!slice.ok()) return slice.status();
      const std::optional<TierSpec> dcn = DcnTierOf(tmpl, per_slice * 2);
      if (!dcn) return InvalidInput("template '" + tmpl + "' has no DCN tier to join slices");
      ClusterSpec c = *slice;
      c.tiers.back().size = per_slice;
      TierSpec outer = *dcn;
      outer.size = run.n_chips;
      c.tiers.push_back(outer);
      c.num_chips = run.n_chips;
      built = c;
    }
  }
  if (!built.ok() && slices == 1) {
    if (auto partial = PartialDomain(tmpl, run.n_chips)) {
      built = *partial;
    } else if (auto even = EvenDomains(tmpl, run.n_chips)) {
      Fill(filled, "cluster",
           std::to_string(run.n_chips / even->tiers.front().size) + " scale-up domains of " +
               std::to_string(even->tiers.front().size) +
               " chips (the fewest that hold n_chips, evenly filled; placement not stated)");
      built = *even;
    }
  }
  if (!built.ok()) {
    return Status(built.status().code(), "no cluster for chip_key '" + run.chip_key + "' x " +
                                             std::to_string(run.n_chips) + ": " +
                                             built.status().message());
  }
  ClusterSpec c = *built;
  if (c.chip.key != run.chip_key) {
    // A variant chip on the same fabric (h100-sxm-96g in an h100 cluster).
    Result<ChipSpec> chip = CatalogChip(run.chip_key);
    if (chip.ok()) c.chip = *chip;
  }
  OCCAM_RETURN_IF_ERROR(ValidateCluster(c, "cluster"));
  return c;
}

namespace {

// Job: sequence length, global batch and precision (skip when unknowable).
Result<JobSpec> BuildJob(const PublishedRun& run, RunSetup* setup) {
  JobSpec job;
  if (run.seq_len) {
    job.seq_len = *run.seq_len;
  } else if (auto c = FrameworkConfigFor(setup->framework, setup->model)) {
    job.seq_len = c->seq_len;
    Fill(&setup->filled, "seq_len",
         std::to_string(c->seq_len) +
             " (not stated; the framework's training config: " + c->source + ")");
  } else {
    return InvalidInput("seq_len is not stated (tokens per step unknown)");
  }
  if (run.global_batch_seqs) {
    job.global_batch_seqs = *run.global_batch_seqs;
  } else if (run.global_batch_tokens) {
    const double seqs = static_cast<double>(*run.global_batch_tokens) / job.seq_len;
    // An approximate token count ("4M tokens"): round to the nearest multiple
    // of the largest power of two dividing n_chips, so data parallelism divides it.
    int64_t unit = 1;
    while (run.n_chips % (unit * 2) == 0 && unit * 2 <= seqs) unit *= 2;
    job.global_batch_seqs = std::max<int64_t>(unit, std::llround(seqs / unit) * unit);
    Fill(&setup->filled, "global_batch_seqs",
         std::to_string(job.global_batch_seqs) +
             " (global_batch_tokens / seq_len, rounded to a "
             "multiple of " +
             std::to_string(unit) + ")");
  } else {
    return InvalidInput("global batch is not stated (neither global_batch_seqs nor tokens)");
  }
  if (auto p = InterpretPrecision(run.precision)) {
    job.precision = *p;
  } else {
    job.precision = Precision::kBf16;
    Fill(&setup->filled, "precision", "bf16 (16-bit mixed precision; not stated)");
  }
  SetDatedDefaults(run, &job, &setup->filled);
  SetStatedJobSettings(run, &job, &setup->filled);
  job.balance = BalanceMethod::kAuxLoss;
  // A published run did run: whether a layout fits is judged against the
  // chip's whole HBM, not the planner's safety margin (JobSpec default 5%),
  // which would reject layouts the authors ran (doc/validation.md).
  job.memory_headroom = 0.0;
  return job;
}

std::string DefaultNote(const FrameworkDefaults& d, const PublishedRun& run) {
  return " (" + run.framework.value_or("") + "'s default; " + d.source + ")";
}

// ZeRO stage: stated, implied by stated flags, else the framework's default
// first and then the stages that shard more.
void SetZero(const PublishedRun& run, const FrameworkDefaults& d, RunSetup* s) {
  PlanSpec& plan = s->plan;
  if (auto z = InterpretZero(run.parallel.zero)) {
    plan.zero = z->stage;
    if (z->stage == 3 && z->shard_group > 0 && z->shard_group < plan.dp) {
      plan.hsdp = z->shard_group;
    }
    // torchtitan's FSDP2 keeps the gathered weights under pipeline
    // parallelism unless the run says otherwise.
    s->order.zero_follows_pp = z->stage == 3 && d.fsdp_keeps_weights_under_pp;
    s->order.zero = {plan.zero};
    return;
  }
  if (auto z = ZeroImpliedByFlags(run, s->framework)) {
    plan.zero = *z;
    s->order.zero = {*z};
    Fill(&s->filled, "parallel.zero",
         std::to_string(*z) +
             " (distributed optimizer: the stated --overlap-param-gather needs "
             "it, megatron/training/arguments.py)");
    return;
  }
  s->open.zero = true;
  const int first = d.zero.value_or(0);
  const std::vector<int> offered = ZeroStagesOffered(run, s->framework);
  s->order.zero = {first};
  for (int z : {1, 3}) {
    if (z > first && std::count(offered.begin(), offered.end(), z) > 0) {
      s->order.zero.push_back(z);
    }
  }
  if (std::count(offered.begin(), offered.end(), 3) == 0) {
    std::string stages;
    for (int z : s->order.zero) stages += (stages.empty() ? "" : ", ") + std::to_string(z);
    Fill(&s->filled, "parallel.zero stages",
         stages + " (the ZeRO stages " + run.framework.value_or("") + " had at " +
             run.date.value_or("") + ": no fully sharded data parallelism yet; ZeroStagesOffered)");
  }
  s->order.zero_follows_pp = d.fsdp_keeps_weights_under_pp;
}

// Recompute: stated, else the framework's default (none when it has no
// documented one) and then the heavier policies.
void SetRecompute(const PublishedRun& run, const FrameworkDefaults& d, RunSetup* s) {
  if (auto r = InterpretRecompute(run.parallel.recompute)) {
    // A bare "selective" means what the framework's own config for the
    // model selects (torchtitan's Llama 3 presets: operator-level SAC).
    const auto config = FrameworkConfigFor(s->framework, s->model);
    if (*r == Recompute::kSelective && config && config->selective != *r) {
      *r = config->selective;
      Fill(&s->filled, "parallel.recompute",
           std::string(RecomputeName(*r)) + " (\"" + *run.parallel.recompute + "\" in " +
               config->source + ")");
    }
    s->plan.recompute = *r;
    s->order.recompute = {*r};
    return;
  }
  s->open.recompute = true;
  const Recompute first = d.recompute.value_or(Recompute::kNone);
  s->order.recompute = {first};
  for (Recompute r : HeavierRecompute(first)) s->order.recompute.push_back(r);
}

// Schedule and interleaving.
void SetSchedule(const PublishedRun& run, const FrameworkDefaults& d, RunSetup* s) {
  const RunParallel& p = run.parallel;
  PlanSpec& plan = s->plan;
  const std::optional<Schedule> sched = InterpretSchedule(p.schedule);
  s->order.schedule = d.schedule;
  const bool stated = (p.vpp && *p.vpp > 1) || (sched && *sched != Schedule::kNone);
  const bool implied = !stated && InterleavedImpliedByFlags(run, s->framework);
  const std::string implied_note =
      "interleaved (the stated pipeline-parallel communication overlap: Megatron-LM overlaps it "
      "only in the interleaved schedule, overlap_p2p_comm off without a virtual pipeline size, "
      "megatron/training/arguments.py)";
  if (implied) s->order.schedule = Schedule::kInterleaved;
  if (s->open.pp) {
    s->open.schedule = true;
    s->open.vpp = true;
    if (implied) Fill(&s->filled, "parallel.schedule (pp > 1)", implied_note);
  } else if (plan.pp == 1) {
    plan.schedule = Schedule::kNone;
  } else if (p.vpp && *p.vpp > 1) {
    plan.schedule = Schedule::kInterleaved;
    plan.vpp = *p.vpp;
  } else if (sched == Schedule::kInterleaved) {
    plan.schedule = Schedule::kInterleaved;
    s->open.vpp = true;
  } else if (sched && *sched != Schedule::kNone) {
    plan.schedule = *sched;
  } else if (implied) {
    plan.schedule = Schedule::kInterleaved;
    s->open.vpp = true;
    Fill(&s->filled, "parallel.schedule", implied_note);
  } else if (d.schedule) {
    plan.schedule = *d.schedule;
    Fill(&s->filled, "parallel.schedule",
         std::string(ScheduleName(*d.schedule)) + DefaultNote(d, run));
  } else {
    s->open.schedule = true;
    s->open.vpp = true;
  }
}

// Stated plan fields; open ones become knobs, tried in KnobOrder.
Status BuildPlan(const PublishedRun& run, RunSetup* s) {
  const RunParallel& p = run.parallel;
  PlanSpec& plan = s->plan;
  s->framework = FrameworkOf(run);
  const FrameworkDefaults d = DefaultsOf(s->framework);
  plan.tp = p.tp.value_or(1);
  plan.pp = p.pp.value_or(1);
  plan.cp = p.cp.value_or(1);
  s->open.tp = !p.tp;
  // A run that says it ran no pipeline states pp = 1.
  const bool no_pipeline = InterpretSchedule(p.schedule) == Schedule::kNone;
  s->open.pp = !p.pp && !no_pipeline;
  if (!p.pp && no_pipeline) {
    Fill(&s->filled, "parallel.pp", "1 (the run states no pipeline: \"" + *p.schedule + "\")");
  }
  if (!p.cp) Fill(&s->filled, "parallel.cp", "1 (context parallelism not used)");
  const bool moe = s->model.moe.has_value();
  s->order.etp_over_tp = {0};
  if (moe) {
    plan.ep = p.ep.value_or(1);
    s->open.ep = !p.ep;
    // Megatron-Core splits each expert over the tp group unless the run
    // sets expert_tensor_parallel_size (etp = 1 is tried second: a recipe
    // whose expert grid the default does not divide must have set it).
    if (d.etp_is_tp) s->order.etp_over_tp = {1, 0};
  } else if (p.ep && *p.ep > 1) {
    return InvalidInput("parallel.ep > 1 for a dense model");
  }
  const int64_t model_parallel = plan.tp * plan.pp * plan.cp;
  if (!s->open.tp && !s->open.pp) {
    if (run.n_chips % model_parallel != 0) {
      return InvalidInput("tp*pp*cp = " + std::to_string(model_parallel) +
                          " does not divide n_chips " + std::to_string(run.n_chips));
    }
    plan.dp = run.n_chips / model_parallel;
    if (p.dp && *p.dp != plan.dp) {
      Fill(&s->filled, "parallel.dp",
           std::to_string(plan.dp) + " (n_chips / (tp*pp*cp); the source's dp column says " +
               std::to_string(*p.dp) + ": " + p.other.value_or("slices or expert ranks") + ")");
    }
  }
  SetZero(run, d, s);
  SetRecompute(run, d, s);
  plan.sp = p.sp.value_or(true);
  if (p.sp.value_or(false) && s->open.tp) {
    s->min_tp = 2;
    Fill(&s->filled, "parallel.tp range",
         ">= 2 (the stated sequence parallelism splits the sequence over the tensor-parallel "
         "group, Korthikanti et al. 2022 section 4.2.2)");
  }
  if (!p.sp && (plan.tp > 1 || s->open.tp)) {
    Fill(&s->filled, "parallel.sp", "true (sequence parallel with tp; Megatron-Core default)");
  }
  SetSchedule(run, d, s);
  // Micro-batch.
  const std::optional<DerivedMicroBatch> derived =
      s->open.pp ? std::nullopt : TorchtitanMicroBatch(run, s->framework, plan.pp);
  if (!run.micro_batch && derived) {
    plan.mbs = derived->mbs;
    Fill(&s->filled, "micro_batch", derived->how);
  } else if (run.micro_batch) {
    plan.mbs = *run.micro_batch;
    // MaxText's per_device_batch_size counts sequences per chip even with
    // tensor parallelism (no pipeline, no gradient accumulation).
    s->per_chip_batch = s->job.global_batch_seqs == *run.micro_batch * run.n_chips && !s->open.pp &&
                        plan.pp == 1 && (plan.tp * plan.cp > 1 || s->open.tp);
  } else {
    s->open.mbs = true;
  }
  return Status::Ok();
}

}  // namespace

Result<RunSetup> BuildRunSetup(const PublishedRun& run) {
  RunSetup s;
  s.framework = FrameworkOf(run);
  OCCAM_ASSIGN_OR_RETURN(s.model, BuildModel(run, &s.filled));
  OCCAM_ASSIGN_OR_RETURN(s.job, BuildJob(run, &s));
  OCCAM_ASSIGN_OR_RETURN(s.cluster, BuildCluster(run, &s.filled));
  OCCAM_RETURN_IF_ERROR(BuildPlan(run, &s));
  // The framework's recipe for this model, chip, precision and release fills
  // what the run leaves unstated (doc/validation.md, "Framework recipes").
  OCCAM_ASSIGN_OR_RETURN(const std::vector<RecipeRow> recipes, BundledRecipes());
  if (const std::optional<RecipeRow> row = RecipeFor(recipes, run)) {
    OCCAM_RETURN_IF_ERROR(ApplyRecipe(*row, &s));
  }
  return s;
}

}  // namespace occam::validate
