// Megatron-LM (Megatron-Core) command-line arguments for an occam plan.
//
// Sources (NVIDIA/Megatron-LM, doc/frameworks.md § Megatron-LM for the
// commit): megatron/training/arguments.py (flags and their checks),
// megatron/core/model_parallel_config.py, megatron/core/parallel_state.py
// (DP = world/(TP*PP*CP), expert grid ETP*EP*EDP*PP, rank order
// tp-cp-ep-dp-pp), megatron/core/pipeline_parallel/schedules.py (no
// pipelining, 1F1B or interleaved 1F1B; interleaving needs PP <= N <= M and
// M mod N == 0 or >= PP for microbatch group size N, default N = PP),
// megatron/core/transformer/pipeline_parallel_layer_layout.py (layout
// strings), megatron/core/transformer/transformer_config.py (recompute,
// fp8, --overlap-moe-expert-parallel-comm).
#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

const std::vector<Axis> kMegatronOrder = {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp};

struct Args {
  std::vector<std::string> lines;
  void Add(const std::string& flag, const std::string& value = "") {
    lines.push_back(value.empty() ? flag : flag + " " + value);
  }
};

// "Et*3|t*4|...|t*2,mL": one stage per model chunk, E on the first, the MTP
// modules and the loss L on the last (pipeline_parallel_layer_layout.py).
std::string Layout(const ModelSpec& m, const std::vector<int64_t>& chunks) {
  std::string s;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i) s += "|";
    if (i == 0) s += "E";
    if (chunks[i] > 0) s += "t*" + S(chunks[i]);
    if (i + 1 == chunks.size()) {
      if (chunks[i] > 0) s += ",";
      for (int64_t k = 0; k < m.mtp_layers; ++k) s += "m";
      s += "L";
    }
  }
  return s;
}

// Megatron --moe-layer-freq for occam's rule (src/cost/blocks.cc IsMoeLayer:
// layer i is MoE when i >= first_k_dense and i % layer_freq == 0).
std::string MoeLayerFreq(const ModelSpec& m) {
  const MoeSpec& e = *m.moe;
  if (e.layer_freq <= 1) {
    return "\"([0]*" + S(e.first_k_dense) + "+[1]*" + S(m.num_layers - e.first_k_dense) + ")\"";
  }
  std::string s = "\"[";
  for (int64_t i = 0; i < m.num_layers; ++i) {
    s += (i ? "," : "") + std::string(i >= e.first_k_dense && i % e.layer_freq == 0 ? "1" : "0");
  }
  return s + "]\"";
}

void ModelArgs(const ModelSpec& m, const JobSpec& job, Args& a) {
  const AttentionSpec& at = m.attention;
  a.Add("--num-layers", S(m.num_layers));
  a.Add("--hidden-size", S(m.hidden));
  a.Add("--ffn-hidden-size", S(m.ffn_hidden));
  a.Add("--num-attention-heads", S(at.num_heads));
  if (at.kind == AttentionKind::kMla) {
    a.Add("--multi-latent-attention");
    if (at.mla.q_lora_rank > 0) a.Add("--q-lora-rank", S(at.mla.q_lora_rank));
    a.Add("--kv-lora-rank", S(at.mla.kv_lora_rank));
    a.Add("--qk-head-dim", S(at.mla.qk_nope_head_dim));
    a.Add("--qk-pos-emb-head-dim", S(at.mla.qk_rope_head_dim));
    a.Add("--v-head-dim", S(at.mla.v_head_dim));
  } else {
    a.Add("--kv-channels", S(at.head_dim));
    if (at.num_kv_heads != at.num_heads) {
      a.Add("--group-query-attention");
      a.Add("--num-query-groups", S(at.num_kv_heads));
    }
  }
  if (at.qkv_bias) a.Add("--add-qkv-bias");
  if (!m.mlp_bias && !at.out_bias) a.Add("--disable-bias-linear");
  if (m.gated_mlp) a.Add("--swiglu");
  a.Add("--normalization", m.norm == NormKind::kRmsNorm ? "RMSNorm" : "LayerNorm");
  a.Add("--position-embedding-type", m.learned_positions > 0 ? "learned_absolute" : "rope");
  a.Add("--max-position-embeddings", S(std::max(m.learned_positions, job.seq_len)));
  a.Add("--vocab-size", S(m.vocab));
  if (!m.tied_embeddings) a.Add("--untie-embeddings-and-output-weights");
  if (m.mtp_layers > 0) a.Add("--mtp-num-layers", S(m.mtp_layers));
  if (!m.moe) return;
  const MoeSpec& e = *m.moe;
  a.Add("--num-experts", S(e.num_experts));
  a.Add("--moe-router-topk", S(e.top_k));
  a.Add("--moe-ffn-hidden-size", S(e.expert_ffn));
  if (e.num_shared_experts > 0) {
    a.Add("--moe-shared-expert-intermediate-size", S(e.num_shared_experts * e.shared_expert_ffn));
  }
  if (e.first_k_dense > 0 || e.layer_freq > 1) a.Add("--moe-layer-freq", MoeLayerFreq(m));
  if (e.num_groups > 1) {
    a.Add("--moe-router-num-groups", S(e.num_groups));
    a.Add("--moe-router-group-topk", S(e.topk_groups));
  }
  a.Add("--moe-token-dispatcher-type", "alltoall");
  switch (job.balance) {
    case BalanceMethod::kAuxFree:
      a.Add("--moe-router-load-balancing-type", "none");
      a.Add("--moe-router-enable-expert-bias");
      break;
    case BalanceMethod::kAuxLoss:
      a.Add("--moe-router-load-balancing-type", "aux_loss");
      break;
    case BalanceMethod::kSeqAux:
      a.Add("--moe-router-load-balancing-type", "seq_aux_loss");
      break;
    case BalanceMethod::kGlobalAuxLoss:
      a.Add("--moe-router-load-balancing-type", "global_aux_loss");
      break;
    case BalanceMethod::kNone:
      a.Add("--moe-router-load-balancing-type", "none");
      break;
  }
  a.Add("--moe-grouped-gemm");
}

void ParallelArgs(const Ctx& c, const PlanSpec& p, Args& a) {
  a.Add("--tensor-model-parallel-size", S(p.tp));
  if (p.tp > 1 && p.sp) a.Add("--sequence-parallel");
  a.Add("--pipeline-model-parallel-size", S(p.pp));
  // The layout string fixes occam's layer split exactly and implies the
  // virtual stages (stages / PP); it excludes the VPP and uneven-end flags.
  if (p.pp > 1)
    a.Add("--pipeline-model-parallel-layout",
          "\"" + Layout(c.model, ChunkLayers(c.model, p)) + "\"");
  a.Add("--context-parallel-size", S(p.cp));
  if (p.cp > 1) a.Add("--cp-comm-type", "p2p");
  if (c.model.moe) {
    a.Add("--expert-model-parallel-size", S(p.ep));
    a.Add("--expert-tensor-parallel-size", S(p.etp));
  }
  if (p.a2a_overlap == EpOverlap::kCombined1F1B) a.Add("--overlap-moe-expert-parallel-comm");
  if (p.a2a_overlap == EpOverlap::kSharedExpert) a.Add("--moe-shared-expert-overlap");
  if (p.zero == 1) a.Add("--use-distributed-optimizer");
  if (p.zero >= 2) {
    a.Add("--use-megatron-fsdp");
    a.Add("--data-parallel-sharding-strategy", p.zero == 2 ? "optim_grads" : "optim_grads_params");
    a.Add("--ckpt-format", "fsdp_dtensor");
  }
  if (p.hsdp > 0) a.Add("--num-distributed-optimizer-instances", S(p.dp / p.hsdp));
  if (c.job.overlap_grad_reduce) {
    a.Add("--overlap-grad-reduce");
    if (p.zero >= 1) a.Add("--overlap-param-gather");
  }
  if (c.job.tp_comm_overlap) a.Add("--tp-comm-overlap");
}

void StepArgs(const Ctx& c, const PlanSpec& p, Args& a) {
  a.Add("--micro-batch-size", S(p.mbs));
  a.Add("--global-batch-size", S(c.job.global_batch_seqs));
  a.Add("--seq-length", S(c.job.seq_len));
  // Megatron-LM has no operator-level or dot-saving policy: selective is the
  // closest.
  if (p.recompute == Recompute::kSelective || p.recompute == Recompute::kSelectiveOp ||
      SavesDots(p.recompute)) {
    a.Add("--recompute-granularity", "selective");
  }
  if (p.recompute == Recompute::kModules) {
    a.Add("--recompute-granularity", "selective");
    std::string modules = RecomputeModulesName(p.recompute_modules);
    for (char& ch : modules) {
      if (ch == '+') ch = ' ';
    }
    a.Add("--recompute-modules", modules);
  }
  if (p.offload_modules != 0) {
    std::string modules = OffloadModulesName(p.offload_modules);
    for (char& ch : modules) {
      if (ch == '+') ch = ' ';
    }
    a.Add("--fine-grained-activation-offloading");
    a.Add("--offload-modules", modules);
  }
  if (p.recompute == Recompute::kFull) {
    a.Add("--recompute-granularity", "full");
    a.Add("--recompute-method", "uniform");
    a.Add("--recompute-num-layers", "1");
  }
  a.Add("--bf16");
  if (c.job.cross_entropy == CrossEntropyImpl::kFused) a.Add("--cross-entropy-loss-fusion");
  if (!c.job.grad_accumulation_fusion) a.Add("--no-gradient-accumulation-fusion");
  if (c.job.precision == Precision::kFp8) {
    a.Add("--fp8-format", "e4m3");
    a.Add("--fp8-recipe", IsBlackwell(c.cluster.chip) ? "mxfp8" : "blockwise");
    if (c.job.fp8_output_proj) a.Add("--fp8-output-proj");
  }
}

}  // namespace

std::vector<std::string> MegatronProblems(const Ctx& c, const PlanSpec& p) {
  std::vector<std::string> out;
  const std::string sched(ScheduleName(p.schedule));
  if (p.schedule != Schedule::kNone && p.schedule != Schedule::k1F1B &&
      p.schedule != Schedule::kInterleaved) {
    out.push_back("Megatron-LM has no " + sched +
                  " schedule: it runs no pipelining, 1F1B or interleaved 1F1B "
                  "(pipeline_parallel/schedules.py get_forward_backward_func)");
  }
  if (p.schedule == Schedule::kInterleaved) {
    const int64_t m = MicroBatches(c.job, p);
    if (m < p.pp || (m % p.pp != 0 && m % p.pp < p.pp)) {
      out.push_back(
          "the interleaved schedule needs m >= pp and m mod pp == 0 with the default "
          "microbatch group size pp (schedules.py); m = " +
          S(m) + ", pp = " + S(p.pp));
    }
  }
  if (!p.order.empty() && p.order != kMegatronOrder) {
    out.push_back(
        "Megatron-LM's arguments fix the rank order tp-cp-ep-dp-pp "
        "(parallel_state.py); the plan's axis order is not expressible");
  }
  if (p.hsdp > 0 && p.zero == 0) {
    out.push_back(
        "hsdp needs a sharded optimizer (--num-distributed-optimizer-instances "
        "shards within dp/instances ranks); zero=0 shards nothing");
  }
  if (c.job.tp_comm_overlap && p.tp > 1 && !p.sp) {
    out.push_back(
        "--tp-comm-overlap needs --sequence-parallel (arguments.py); the plan has sp=false");
  }
  if (c.job.precision == Precision::kFp8 && c.job.fp8_output_proj && !IsBlackwell(c.cluster.chip)) {
    out.push_back(
        "--fp8-output-proj needs the mxfp8 recipe (transformer_config.py), which Megatron-LM "
        "runs on Blackwell only; on this chip the head stays 16-bit");
  }
  if (c.job.cross_entropy == CrossEntropyImpl::kEager) {
    out.push_back(
        "Megatron-LM has no eager PyTorch cross entropy (cross_entropy=eager): its loss is the "
        "vocab-parallel one, fused with --cross-entropy-loss-fusion or not "
        "(language_module.py compute_language_model_loss)");
  }
  if (p.a2a_overlap == EpOverlap::kTwoBatch) {
    out.push_back(
        "Megatron-LM has no two-batch (batch split) expert all-to-all overlap "
        "(a2a_overlap=tbo); it has combined 1F1B (a2a_overlap=1) and the shared-expert "
        "overlap (a2a_overlap=shared)");
  }
  return out;
}

FrameworkConfig MegatronWrite(const Ctx& c, const PlanSpec& p) {
  Args a;
  ParallelArgs(c, p, a);
  StepArgs(c, p, a);
  ModelArgs(c.model, c.job, a);
  FrameworkConfig out;
  out.text = "# Megatron-LM arguments (pretrain_gpt.py) for " + FormatPlan(p) + "\n# " +
             c.model.name + " on " + S(c.cluster.num_chips) + " x " + c.cluster.chip.name +
             ": launch " + S(c.cluster.num_chips) + " ranks (DP = world/(TP*PP*CP) = " + S(p.dp) +
             ")\n";
  for (size_t i = 0; i < a.lines.size(); ++i) {
    out.text += a.lines[i] + (i + 1 < a.lines.size() ? " \\\n" : "\n");
  }
  if (c.cluster.chip.is_tpu) {
    out.notes.push_back("Megatron-LM runs on CUDA GPUs; " + c.cluster.chip.name +
                        " is a TPU, so these arguments only document the layout");
  }
  if (p.pp > 1) {
    out.notes.push_back("the pipeline layout " +
                        std::string(p.stage_layers.empty() ? "is occam's default split"
                                                           : "is the plan's stage list") +
                        "; VPP = layout stages / PP = " +
                        S(p.vpp > 1 && p.schedule == Schedule::kInterleaved ? p.vpp : 1));
  }
  return out;
}

}  // namespace occam::frameworks_internal
