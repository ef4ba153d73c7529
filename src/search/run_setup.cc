// Interpretation of a published run (doc/validation.md, "From a run to
// occam's inputs" and "Unstated fields"). Keyword rules read the free-text
// fields (precision, recompute, zero, schedule); every value chosen by a
// convention rather than read from the run is recorded in `filled`.
#include "search/run_setup.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "search/run_text.h"

namespace occam::validate {

void Fill(std::vector<std::pair<std::string, std::string>>* filled, std::string field,
          std::string how) {
  if (filled != nullptr) filled->emplace_back(std::move(field), std::move(how));
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

// Tries the catalog model the run names ("Llama 3.1 70B" -> llama-3.1-70b)
// when its shape matches `arch`.
std::optional<ModelSpec> CatalogMatch(const PublishedRun& run) {
  const std::string model = Squash(run.model);
  for (const std::string& name : CatalogModelNames()) {
    const std::string n = Squash(name);
    if (n.empty() || model.rfind(n, 0) != 0) continue;
    // "llama318b" must not match "llama3180b"... the name must end the model
    // stem or be followed by a non-digit.
    if (model.size() > n.size() && std::isdigit(static_cast<unsigned char>(model[n.size()]))) {
      continue;
    }
    auto m = CatalogModel(name);
    if (!m.ok()) continue;
    if (m->num_layers == run.arch.layers && m->hidden == run.arch.hidden &&
        m->attention.num_heads == run.arch.heads) {
      return *m;
    }
  }
  return std::nullopt;
}

Status SetMoe(const PublishedRun& run, ModelSpec* m,
              std::vector<std::pair<std::string, std::string>>* filled) {
  const RunMoe& rm = *run.arch.moe;
  MoeSpec moe;
  moe.num_experts = rm.experts;
  moe.top_k = rm.active_experts;
  moe.expert_ffn = rm.expert_ffn;
  moe.num_shared_experts = rm.shared_experts.value_or(0);
  moe.shared_expert_ffn = rm.expert_ffn;
  moe.first_k_dense = rm.dense_layers.value_or(0);
  if (!rm.shared_experts) Fill(filled, "arch.moe.shared_experts", "0 (none stated)");
  if (!rm.dense_layers) Fill(filled, "arch.moe.dense_layers", "0 (every layer MoE)");
  if (moe.first_k_dense >= run.arch.layers) {
    return InvalidInput("arch.moe.dense_layers must be smaller than arch.layers");
  }
  m->moe = moe;
  if (!m->ffn_hidden) m->ffn_hidden = rm.expert_ffn;
  return Status::Ok();
}

}  // namespace

Result<ModelSpec> BuildModel(const PublishedRun& run,
                             std::vector<std::pair<std::string, std::string>>* filled) {
  if (run.arch.mla) {
    return InvalidInput("arch.mla given but no catalog config matches '" + run.model +
                        "'; MLA runs need a catalog model");
  }
  if (auto m = CatalogMatch(run)) {
    Fill(filled, "model", "catalog config '" + m->name + "' (same layers/hidden/heads as arch)");
    return *m;
  }
  const RunArch& a = run.arch;
  ModelSpec m;
  m.name = run.model;
  m.model_type = "occam";
  m.num_layers = a.layers;
  m.hidden = a.hidden;
  m.attention.kind = AttentionKind::kGqa;
  m.attention.num_heads = a.heads;
  m.attention.num_kv_heads = a.kv_heads.value_or(a.heads);
  if (!a.kv_heads) Fill(filled, "arch.kv_heads", std::to_string(a.heads) + " (multi-head)");
  if (!a.head_dim && a.hidden % a.heads != 0) {
    return InvalidInput("arch.head_dim is null and hidden is not divisible by heads");
  }
  m.attention.head_dim = a.head_dim.value_or(a.hidden / a.heads);
  if (a.vocab) {
    m.vocab = *a.vocab;
  } else {
    m.vocab = 51200;
    Fill(filled, "arch.vocab", "51200 (Megatron's padded GPT-2 vocabulary; not stated)");
  }
  const std::string act = Lower(a.ffn_activation.value_or(""));
  if (a.ffn_activation) {
    m.gated_mlp = Has(act, "glu");
  } else {
    // MoE families in the file all use gated experts; dense GPTs GeLU.
    m.gated_mlp = a.moe.has_value();
    Fill(filled, "arch.ffn_activation",
         m.gated_mlp ? "SwiGLU (gated experts, as every MoE family here)" : "GeLU (GPT)");
  }
  if (a.ffn) {
    m.ffn_hidden = *a.ffn;
  } else if (!a.moe) {
    // GPT: 4h. LLaMA: 2/3 of 4h rounded up to a multiple of 256 (Touvron et al. 2023 §2.2).
    m.ffn_hidden = m.gated_mlp ? (8 * a.hidden / 3 + 255) / 256 * 256 : 4 * a.hidden;
    Fill(filled, "arch.ffn",
         std::to_string(m.ffn_hidden) + (m.gated_mlp ? " (8h/3 rounded to 256)" : " (4h)"));
  }
  const std::string other = Lower(a.other.value_or(""));
  m.tied_embeddings = Has(other, "tied");
  if (Has(act, "gelu (standard gpt)") || (!a.ffn_activation && !a.moe)) {
    m.norm = NormKind::kLayerNorm;
    m.mlp_bias = true;
  }
  if (a.moe) OCCAM_RETURN_IF_ERROR(SetMoe(run, &m, filled));
  OCCAM_RETURN_IF_ERROR(ValidateModel(m, "arch"));
  return m;
}

Result<ClusterSpec> BuildCluster(const PublishedRun& run) {
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
    if (auto partial = PartialDomain(tmpl, run.n_chips)) built = *partial;
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
  if (!run.seq_len) return InvalidInput("seq_len is not stated (tokens per step unknown)");
  job.seq_len = *run.seq_len;
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
  SetStatedJobSettings(run, &job);
  job.balance = BalanceMethod::kAuxLoss;
  // A published run did run: whether a layout fits is judged against the
  // chip's whole HBM, not the planner's safety margin (JobSpec default 5%),
  // which would reject layouts the authors ran (doc/validation.md).
  job.memory_headroom = 0.0;
  return job;
}

// Stated plan fields; open ones become knobs.
Status BuildPlan(const PublishedRun& run, RunSetup* s) {
  const RunParallel& p = run.parallel;
  PlanSpec& plan = s->plan;
  plan.tp = p.tp.value_or(1);
  plan.pp = p.pp.value_or(1);
  plan.cp = p.cp.value_or(1);
  s->open.tp = !p.tp;
  s->open.pp = !p.pp;
  if (!p.cp) Fill(&s->filled, "parallel.cp", "1 (context parallelism not used)");
  const bool moe = s->model.moe.has_value();
  if (moe) {
    plan.ep = p.ep.value_or(1);
    s->open.ep = !p.ep;
    if (StatesExpertTpEqualsTp(run)) plan.etp = plan.tp;
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
  // ZeRO / FSDP.
  if (auto z = InterpretZero(p.zero)) {
    plan.zero = z->stage;
    if (z->stage == 3 && z->shard_group > 0 && z->shard_group < plan.dp) {
      plan.hsdp = z->shard_group;
    }
  } else {
    s->open.zero = true;
  }
  // Recompute.
  if (auto r = InterpretRecompute(p.recompute)) {
    plan.recompute = *r;
  } else {
    s->open.recompute = true;
  }
  plan.sp = p.sp.value_or(true);
  if (!p.sp && (plan.tp > 1 || s->open.tp)) {
    Fill(&s->filled, "parallel.sp", "true (sequence parallel with tp; Megatron-Core default)");
  }
  // Schedule and interleaving.
  const std::optional<Schedule> sched = InterpretSchedule(p.schedule);
  if (s->open.pp) {
    s->open.schedule = true;
    s->open.vpp = true;
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
  } else {
    s->open.schedule = true;
    s->open.vpp = true;
  }
  // Micro-batch.
  if (run.micro_batch) {
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
  OCCAM_ASSIGN_OR_RETURN(s.model, BuildModel(run, &s.filled));
  OCCAM_ASSIGN_OR_RETURN(s.job, BuildJob(run, &s));
  OCCAM_ASSIGN_OR_RETURN(s.cluster, BuildCluster(run));
  OCCAM_RETURN_IF_ERROR(BuildPlan(run, &s));
  return s;
}

}  // namespace occam::validate
