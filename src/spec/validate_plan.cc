// ValidatePlan: the divisibility and size rules a parallel layout must meet
// for a model, cluster and job (doc/input-formats.md, "Plan rules").
//
// Sources of the rules: Megatron-LM (arXiv:2104.04473 §2: tp splits heads and
// the MLP, micro-batches split the per-replica batch, interleaving places v
// chunks per rank); Megatron-Core context parallelism (sequence split into
// 2*cp chunks for causal load balance); MoE parallel folding as stated in
// spec.h (ep divides dp*cp); ZB-V and DualPipeV (two chunks per rank);
// the expert all-to-all overlap methods for a2a_overlap (CheckA2aOverlap).
#include <string>
#include <string_view>
#include <utility>

#include "occam/schedule_traits.h"
#include "occam/spec.h"

namespace occam {
namespace {

// Largest parallel degree or micro-batch size accepted (2^24).
constexpr int64_t kMaxDegree = int64_t{1} << 24;

std::string S(int64_t v) { return std::to_string(v); }

Status FieldError(std::string_view field, const std::string& what) {
  return InvalidInput("plan field '" + std::string(field) + "': " + what);
}

Status CheckDegrees(const PlanSpec& p) {
  const std::pair<std::string_view, int64_t> degrees[] = {
      {"tp", p.tp}, {"cp", p.cp}, {"pp", p.pp},   {"vpp", p.vpp},
      {"dp", p.dp}, {"ep", p.ep}, {"etp", p.etp}, {"mbs", p.mbs}};
  for (const auto& [field, v] : degrees) {
    if (v < 1) return FieldError(field, "must be >= 1 (got " + S(v) + ")");
    // Bounded so that products of two degrees cannot overflow.
    if (v > kMaxDegree)
      return FieldError(field, "must be <= " + S(kMaxDegree) + " (got " + S(v) + ")");
  }
  if (p.zero < 0 || p.zero > 3)
    return FieldError("zero", "must be 0, 1, 2 or 3 (got " + S(p.zero) + ")");
  if (p.hsdp < 0) return FieldError("hsdp", "must be >= 0 (got " + S(p.hsdp) + ")");
  if (p.hsdp > 0 && p.dp % p.hsdp != 0) {
    return FieldError("hsdp", "dp=" + S(p.dp) + " is not divisible by hsdp=" + S(p.hsdp) +
                                  " (hsdp is the shard group size inside dp)");
  }
  return Status::Ok();
}

Status CheckChips(const ClusterSpec& cluster, const PlanSpec& p) {
  // Multiply only while the product stays within the chip count (no overflow).
  int64_t product = 1;
  for (const auto& [field, v] : {std::pair<std::string_view, int64_t>{"tp", p.tp},
                                 {"cp", p.cp},
                                 {"pp", p.pp},
                                 {"dp", p.dp}}) {
    if (v > cluster.num_chips / product) {
      return FieldError(field, "tp*cp*pp*dp exceeds the cluster's " + S(cluster.num_chips) +
                                   " chips (" + std::string(field) + "=" + S(v) + ")");
    }
    product *= v;
  }
  const int64_t model_parallel = p.tp * p.cp * p.pp;
  if (p.chips() == cluster.num_chips) return Status::Ok();
  std::string hint = "tp*cp*pp*dp must equal the cluster's " + S(cluster.num_chips) + " chips";
  if (cluster.num_chips % model_parallel == 0) {
    hint += "; use dp=" + S(cluster.num_chips / model_parallel);
  }
  return FieldError("dp", "tp*cp*pp*dp = " + S(p.chips()) + "; " + hint);
}

// A compact mapping places ranks on a torus; other fabrics have no
// coordinates to map (a switch tier reaches every member alike).
Status CheckMesh(const ClusterSpec& cluster, const PlanSpec& p) {
  if (p.mesh == TorusMapping::kLinear) return Status::Ok();
  if (!cluster.tiers.empty() && cluster.tiers[0].kind == TierKind::kTorus) return Status::Ok();
  return FieldError("mesh",
                    "compact places ranks on a torus, and this cluster's innermost tier "
                    "is not one; drop mesh");
}

Status CheckTensorParallel(const ModelSpec& m, const PlanSpec& p) {
  const auto& a = m.attention;
  if (a.num_heads % p.tp != 0) {
    return FieldError("tp", S(a.num_heads) + " attention heads are not divisible by tp=" + S(p.tp) +
                                " (tp splits heads)");
  }
  if (a.num_kv_heads % p.tp != 0 && p.tp % a.num_kv_heads != 0) {
    return FieldError("tp", S(a.num_kv_heads) + " KV heads and tp=" + S(p.tp) +
                                " do not divide one another (tp may exceed the KV heads only "
                                "when it is a multiple of them)");
  }
  if (m.ffn_hidden % p.tp != 0) {
    return FieldError("tp", "MLP size " + S(m.ffn_hidden) + " is not divisible by tp=" + S(p.tp));
  }
  return Status::Ok();
}

int64_t Gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// MoE parallel folding (arXiv:2504.14960 §3): the expert layers lay
// etp x ep x edp over the same tp*cp*dp ranks the attention layers use.
// etp | tp is kept although folding does not need it: the step layer costs
// the expert-tensor-parallel token exchange on the tp group
// (doc/cost-model.md § 5), which is right only when the etp ranks lie inside it.
Status CheckExperts(const ModelSpec& m, const PlanSpec& p) {
  if (!m.moe) {
    if (p.ep > 1) return FieldError("ep", "the model is dense (no experts); use ep=1");
    if (p.etp > 1) return FieldError("etp", "the model is dense (no experts); use etp=1");
    return Status::Ok();
  }
  const MoeSpec& e = *m.moe;
  if (e.num_experts % p.ep != 0) {
    return FieldError("ep", S(e.num_experts) + " experts are not divisible by ep=" + S(p.ep));
  }
  if (p.tp % p.etp != 0) {
    return FieldError("etp", "etp=" + S(p.etp) + " must divide tp=" + S(p.tp));
  }
  if (e.expert_ffn % p.etp != 0) {
    return FieldError(
        "etp", "expert MLP size " + S(e.expert_ffn) + " is not divisible by etp=" + S(p.etp));
  }
  // tp*cp*dp <= chips (CheckChips) and etp | tp, so `ranks` is exact.
  const int64_t ranks = p.tp * p.cp * p.dp / p.etp;
  if (ranks % p.ep != 0) {
    return FieldError("ep", "ep*etp = " + S(p.ep * p.etp) +
                                " must divide tp*cp*dp = " + S(p.tp * p.cp * p.dp) +
                                " (expert layers re-split the tp*cp*dp ranks of a pipeline "
                                "stage as etp x ep x edp); e.g. ep=" +
                                S(Gcd(e.num_experts, ranks)));
  }
  return Status::Ok();
}

Status CheckBatchAndSequence(const JobSpec& j, const PlanSpec& p) {
  if (j.global_batch_seqs < 1) {
    return InvalidInput(
        "job.global_batch_seqs is not set (give the global batch in sequences or "
        "tokens)");
  }
  if (j.global_batch_seqs % (p.dp * p.mbs) != 0) {
    return FieldError("mbs", "global batch of " + S(j.global_batch_seqs) +
                                 " sequences is not divisible by dp*mbs = " + S(p.dp * p.mbs) +
                                 " (micro-batches must divide the batch)");
  }
  if (p.cp > 1 && j.seq_len % (2 * p.cp) != 0) {
    return FieldError("cp", "seq_len " + S(j.seq_len) + " is not divisible by 2*cp = " +
                                S(2 * p.cp) + " (causal load balance splits it into 2*cp chunks)");
  }
  return Status::Ok();
}

// first_layers / last_layers (Megatron-LM's uneven ends, whose rules these
// are: megatron/core/transformer/transformer_config.py): both set, each rank's
// count divisible by its vpp chunks, the middle ranks' share even.
Status CheckUnevenEnds(const ModelSpec& m, const PlanSpec& p) {
  if (p.first_layers == 0 && p.last_layers == 0) return Status::Ok();
  const std::string field = p.first_layers == 0 ? "first_layers" : "last_layers";
  if (p.first_layers == 0 || p.last_layers == 0) {
    return FieldError(field, "first_layers and last_layers are set together");
  }
  if (p.pp < 2) return FieldError("first_layers", "needs pp >= 2 (got pp=" + S(p.pp) + ")");
  if (!p.stage_layers.empty()) {
    return FieldError("first_layers", "cannot be combined with stages (which lists every stage)");
  }
  if (TraitsOf(p.schedule).placement != ChunkPlacement::kLooped) {
    return FieldError("first_layers", "needs a schedule with looped chunk placement (got " +
                                          std::string(ScheduleName(p.schedule)) + ")");
  }
  const int64_t v = std::max<int64_t>(p.vpp, 1);
  if (p.first_layers % v != 0 || p.last_layers % v != 0) {
    return FieldError("first_layers", "first_layers=" + S(p.first_layers) + " and last_layers=" +
                                          S(p.last_layers) + " must be divisible by vpp=" + S(v));
  }
  const int64_t middle = m.num_layers - p.first_layers - p.last_layers;
  const int64_t ranks = p.pp - 2;
  const bool even = ranks == 0 ? middle == 0 : middle >= ranks * v && middle % (ranks * v) == 0;
  if (!even) {
    return FieldError("first_layers",
                      "the " + S(middle) + " layers left after first_layers=" + S(p.first_layers) +
                          " and last_layers=" + S(p.last_layers) +
                          " do not split evenly over the " + S(ranks) + " middle ranks x vpp=" +
                          S(v) + " chunks (the model has " + S(m.num_layers) + " layers)");
  }
  return Status::Ok();
}

Status CheckPipeline(const ModelSpec& m, const PlanSpec& p) {
  const ScheduleTraits& t = TraitsOf(p.schedule);
  const bool fixed_chunks = t.lane_chunks > 1;
  if ((p.pp == 1) != (p.schedule == Schedule::kNone)) {
    return FieldError("schedule", p.pp == 1 ? "pp=1 has no pipeline; use schedule=none"
                                            : "pp=" + S(p.pp) +
                                                  " needs a pipeline schedule "
                                                  "(e.g. schedule=1f1b)");
  }
  if (fixed_chunks && p.vpp != t.lane_chunks) {
    return FieldError("vpp", std::string(ScheduleName(p.schedule)) + " places " +
                                 (t.lane_chunks == 2 ? "two" : S(t.lane_chunks)) +
                                 " chunks per rank: set vpp=" + S(t.lane_chunks) + " (got " +
                                 S(p.vpp) + ")");
  }
  if (!fixed_chunks && t.plan_vpp && p.vpp < t.min_vpp) {
    return FieldError("vpp", std::string(ScheduleName(p.schedule)) +
                                 " needs vpp >= " + S(t.min_vpp) + " virtual stages per rank");
  }
  if (p.vpp > 1 && !t.plan_vpp) {
    return FieldError("vpp", "vpp > 1 needs schedule " + PlanVppScheduleNames() + " (got " +
                                 std::string(ScheduleName(p.schedule)) + ")");
  }
  if (p.pp * p.vpp > m.num_layers) {
    return FieldError("pp", "pp*vpp = " + S(p.pp * p.vpp) + " stages exceed the model's " +
                                S(m.num_layers) + " layers");
  }
  OCCAM_RETURN_IF_ERROR(CheckUnevenEnds(m, p));
  if (p.stage_layers.empty()) return Status::Ok();
  if (static_cast<int64_t>(p.stage_layers.size()) != p.pp * p.vpp) {
    return FieldError("stages", "lists " + S(static_cast<int64_t>(p.stage_layers.size())) +
                                    " stages but pp*vpp = " + S(p.pp * p.vpp));
  }
  int64_t sum = 0;
  for (int64_t n : p.stage_layers) sum += n;
  if (sum != m.num_layers) {
    return FieldError("stages", "layers per stage sum to " + S(sum) + " but the model has " +
                                    S(m.num_layers) +
                                    " (MTP modules are not counted: they sit on the last stage)");
  }
  return Status::Ok();
}

// The largest micro-batch size (a divisor of the per-replica batch) whose
// micro-batch count fits the schedule, 0 when none does.
int64_t FittingMbs(Schedule s, int64_t pp, int64_t per_replica) {
  int64_t best = 0;
  for (int64_t d = 1; d <= per_replica / d; ++d) {
    if (per_replica % d != 0) continue;
    for (int64_t mbs : {d, per_replica / d}) {
      if (mbs > best && MicrobatchesFit(s, pp, per_replica / mbs)) best = mbs;
    }
  }
  return best;
}

// REQUIRES: CheckBatchAndSequence and CheckPipeline passed.
Status CheckScheduleFit(const JobSpec& j, const PlanSpec& p) {
  if (p.pp <= 1) return Status::Ok();
  const int64_t per_replica = j.global_batch_seqs / p.dp;
  const int64_t m = per_replica / p.mbs;
  const std::string needs = MicrobatchNeeds(p.schedule, p.pp, m);
  if (needs.empty()) return Status::Ok();
  const std::string name(ScheduleName(p.schedule));
  std::string hint;
  if (TraitsOf(p.schedule).even_pp && p.pp % 2 != 0) {
    hint = "use an even pp or schedule=dualpipev";
  } else if (const int64_t mbs = FittingMbs(p.schedule, p.pp, per_replica); mbs > 0) {
    hint = "use mbs=" + S(mbs) + " (m = " + S(per_replica / mbs) + ") or another schedule";
  } else {
    hint = "lower pp or dp, raise the global batch, or use schedule=1f1b";
  }
  return FieldError("schedule", name + " needs " + needs +
                                    ", but m = global_batch_seqs/(dp*mbs) = " +
                                    S(j.global_batch_seqs) + "/(" + S(p.dp) + "*" + S(p.mbs) +
                                    ") = " + S(m) + " micro-batches per pipeline; " + hint);
}

Status CheckOrder(const PlanSpec& p) {
  if (p.order.empty()) return Status::Ok();
  const std::pair<Axis, int64_t> degrees[] = {{Axis::kTp, p.tp},
                                              {Axis::kCp, p.cp},
                                              {Axis::kEp, p.ep},
                                              {Axis::kDp, p.dp},
                                              {Axis::kPp, p.pp}};
  const char* names[] = {"tp", "cp", "ep", "dp", "pp"};
  for (int i = 0; i < 5; ++i) {
    if (degrees[i].second == 1) continue;
    bool listed = false;
    for (Axis a : p.order) listed = listed || a == degrees[i].first;
    if (!listed) {
      return FieldError("order", std::string("axis ") + names[i] + "=" + S(degrees[i].second) +
                                     " is not placed; list every axis larger than 1");
    }
  }
  return Status::Ok();
}

// Combined 1F1B's rules, from Megatron-Core TransformerConfig __post_init__
// (megatron/core/transformer/transformer_config.py, the
// overlap_moe_expert_parallel_comm checks) and the feature guide
// docs/user-guide/features/moe_a2a_overlap.md ("Requirements", "Megatron-FSDP"):
// pp > 1 only on the interleaved schedule (virtual pipeline stages); no full
// recomputation; at most one MTP layer; ZeRO-3/FSDP only without pipeline
// stages.
Status CheckCombined1F1B(const ModelSpec& m, const PlanSpec& p) {
  const std::string_view f = "a2a_overlap";
  if (p.pp > 1 && !TraitsOf(p.schedule).a2a_overlap_with_pp) {
    return FieldError(f,
                      "with pp > 1 it needs schedule=interleaved (Megatron-Core pairs "
                      "forward and backward on virtual stages), got " +
                          std::string(ScheduleName(p.schedule)) +
                          "; use schedule=interleaved with vpp >= 2, pp=1, or drop it");
  }
  if (p.recompute == Recompute::kModules && (p.recompute_modules & recompute_module::kMoe) != 0) {
    return FieldError(f,
                      "does not combine with recompute module moe (Megatron-Core rejects "
                      "recomputing the MoE layer with the overlap); drop moe from recompute");
  }
  if (p.recompute == Recompute::kFull) {
    return FieldError(f,
                      "does not combine with recompute=full (Megatron-Core rejects full "
                      "recomputation with the overlap); use recompute=selective or none");
  }
  if (m.mtp_layers > 1) {
    return FieldError(f, "supports at most one MTP module (the model has " + S(m.mtp_layers) +
                             "); drop a2a_overlap");
  }
  if (p.zero >= 3 && p.pp > 1) {
    return FieldError(f,
                      "with zero=3 (FSDP) it runs only without pipeline stages; use pp=1, "
                      "zero <= 2, or drop it");
  }
  return Status::Ok();
}

// Expert all-to-all overlap without DualPipe (EpOverlap). Every method needs
// experts and expert parallelism (ep > 1) to have an all-to-all to hide;
// DualPipe and DualPipeV already overlap it, so none combines with them.
// Two-batch overlap splits a micro-batch in two (MaxText
// use_batch_split_schedule): it needs at least two tokens per chip. The
// shared-expert overlap hides behind the shared expert (Megatron-Core
// --moe-shared-expert-overlap, moe_shared_expert_overlap in
// transformer_config.py): it needs one.
Status CheckA2aOverlap(const ModelSpec& m, const JobSpec& job, const PlanSpec& p) {
  if (p.a2a_overlap == EpOverlap::kNone) return Status::Ok();
  const std::string_view f = "a2a_overlap";
  if (!m.moe) return FieldError(f, "the model is dense (no expert all-to-all to hide); drop it");
  if (p.ep <= 1) {
    return FieldError(f,
                      "needs expert parallelism (ep > 1): with ep=1 there is no all-to-all "
                      "to hide; set ep or drop a2a_overlap");
  }
  if (TraitsOf(p.schedule).overlaps_a2a) {
    return FieldError(f, std::string(ScheduleName(p.schedule)) +
                             " already overlaps the expert all-to-all; drop a2a_overlap");
  }
  switch (p.a2a_overlap) {
    case EpOverlap::kCombined1F1B:
      return CheckCombined1F1B(m, p);
    case EpOverlap::kTwoBatch:
      if (p.mbs * job.seq_len < 2 * p.cp) {
        return FieldError(f,
                          "tbo splits each micro-batch in two halves and needs at least two "
                          "tokens per chip; raise mbs or drop it");
      }
      return Status::Ok();
    case EpOverlap::kSharedExpert:
      if (m.moe->num_shared_experts <= 0) {
        return FieldError(f,
                          "shared hides the all-to-all behind the shared expert, and the "
                          "model has none; use 1f1b or tbo, or drop it");
      }
      return Status::Ok();
    case EpOverlap::kNone:
      break;
  }
  return Status::Ok();
}

// Recompute modules need the parts they name (Megatron-LM
// transformer_config.py checks mla_up_proj against MLA, moe_act against
// grouped experts); offload needs experts and a host link.
Status CheckMemorySavers(const ModelSpec& m, const ClusterSpec& cluster, const PlanSpec& p) {
  namespace rm = recompute_module;
  const unsigned r = p.recompute == Recompute::kModules ? p.recompute_modules : 0;
  if (p.recompute == Recompute::kModules && r == 0) {
    return FieldError("recompute",
                      "names no module; list modules (" + RecomputeModuleNames() + ") or use none");
  }
  if ((r & rm::kMlaUpProj) && m.attention.kind != AttentionKind::kMla) {
    return FieldError("recompute", "mla_up_proj needs multi-head latent attention; drop it");
  }
  if ((r & (rm::kMoeAct | rm::kMoe | rm::kSharedExperts)) && !m.moe) {
    return FieldError("recompute", "moe_act, moe and shared_experts need an MoE model; drop them");
  }
  if ((r & rm::kSharedExperts) && m.moe && m.moe->num_shared_experts == 0) {
    return FieldError("recompute", "shared_experts: the model has no shared experts; drop it");
  }
  if (p.offload_modules != 0 && !m.moe) {
    return FieldError("offload", "expert_fc1 and moe_act need an MoE model; use offload=none");
  }
  if (p.offload_modules != 0 && !(cluster.chip.host_link_bandwidth.value() > 0)) {
    return FieldError("offload", "chip '" + cluster.chip.key +
                                     "' states no host link bandwidth (host_link_gbps); use "
                                     "offload=none or give it in the chip entry");
  }
  return Status::Ok();
}

}  // namespace

Status ValidatePlan(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job,
                    const PlanSpec& plan) {
  OCCAM_RETURN_IF_ERROR(CheckMemorySavers(model, cluster, plan));
  OCCAM_RETURN_IF_ERROR(CheckDegrees(plan));
  OCCAM_RETURN_IF_ERROR(CheckChips(cluster, plan));
  OCCAM_RETURN_IF_ERROR(CheckMesh(cluster, plan));
  OCCAM_RETURN_IF_ERROR(CheckTensorParallel(model, plan));
  OCCAM_RETURN_IF_ERROR(CheckExperts(model, plan));
  OCCAM_RETURN_IF_ERROR(CheckBatchAndSequence(job, plan));
  OCCAM_RETURN_IF_ERROR(CheckPipeline(model, plan));
  OCCAM_RETURN_IF_ERROR(CheckScheduleFit(job, plan));
  OCCAM_RETURN_IF_ERROR(CheckA2aOverlap(model, job, plan));
  return CheckOrder(plan);
}

}  // namespace occam
