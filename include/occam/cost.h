// The pieces of a step's cost for one model: exact parameter counts, FLOPs
// per token, per-layer work and activation sizes, compute-time efficiency
// and memory per chip. Symbol legend and sources: doc/cost-model.md §1-3.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "occam/element_bytes.h"
#include "occam/spec.h"
#include "occam/units.h"

namespace occam {

// ------------------------------------------------------------ parameters ---

// Exact parameter counts from the config.
struct ParamCounts {
  int64_t total = 0;  // every weight in the main model (embeddings, head, all experts), no MTP
  // Weights whose matmuls one token runs through (attention, dense MLP, top-k
  // + shared experts, router, norms, LM head), no MTP. The input embedding is
  // a row lookup, not a matmul, and is not counted (the convention of the
  // gpt-oss model card; DeepSeek-V3 and Kimi K2 figures agree with it).
  int64_t active = 0;
  int64_t embedding = 0;  // input embedding (+ learned positions)
  int64_t lm_head = 0;    // 0 when tied
  int64_t mtp = 0;        // DeepSeek MTP modules (not in total; HF checkpoint = total + mtp)
  int64_t mtp_active = 0;
};
ParamCounts CountParams(const ModelSpec& model);

// Model FLOPs per token for one forward + backward pass (3x forward), causal
// attention halved, no recompute. Includes the MTP modules' work when present.
Flops ModelFlopsPerToken(const ModelSpec& model, int64_t seq_len);

// ------------------------------------------------------- per-layer work ---

// A group of matmuls of one block, per token of forward pass, before any
// parallel split. Backward is 2x the FLOPs (input grad + weight grad).
struct GemmWork {
  double flops = 0;    // sum of 2*m*n*k over the group's matmuls, divided by tokens
  double weights = 0;  // weight elements the group reads (one expert for kExperts)
  double io = 0;       // activation elements read + written per token (k + n per matmul)
  double outputs = 0;  // output elements per token (n per matmul)
  // The group's distinct matmul shapes (equal shapes merged), for the width
  // term of the GEMM efficiency: small = min(n, k), large = max(n, k); a
  // parallel split of d ranks divides the larger one (Megatron-LM column /
  // row parallel layers split the MLP, head or attention width).
  struct Shape {
    double small = 0, large = 0, flops = 0;  // flops per token, as above
  };
  static constexpr int kMaxShapes = 8;
  std::array<Shape, kMaxShapes> shapes{};
  int num_shapes = 0;
  // Records one matmul [tokens x in] @ [in x out] of 2*in*out FLOPs per token.
  void AddShape(double in, double out);
  // Sum over shapes of flops / w(n), w(n) = n / (n + half_width), with
  // n = min(small, large / split): FLOPs inflated by the width penalty.
  // Equals `flops` when half_width == 0.
  double WidthWeightedFlops(double split, double half_width) const;
};

// Stored-activation sizes of one block per token, in bytes (16-bit tensors,
// 1-byte masks), after Korthikanti et al. 2022 (arXiv:2205.05198 §4, Table 2).
struct ActivationWork {
  double tp_sharded = 0;       // tensors inside the tensor-parallel region (divided by tp)
  double seq_region = 0;       // tensors outside it (divided by tp only with sequence parallel)
  double replicated = 0;       // tensors every tp rank keeps whole (MLA latents)
  double per_expert_copy = 0;  // per routed token copy (MoE dispatch input + expert MLP)
  double attn_scores = 0;      // bytes per token per unit of sequence length (the 5as term / s)
  // Under FP8 training the GEMM inputs kept for the weight gradient are stored
  // as their FP8 copies (1 byte, not 2): the bytes per token this saves in
  // tp_sharded, seq_region and per_expert_copy (Transformer Engine;
  // DeepSeek-V3 §3.3.3).
  double fp8_tp_sharded = 0;
  double fp8_seq_region = 0;
  double fp8_per_expert_copy = 0;
  // Kept under operator-level selective checkpointing (Recompute::
  // kSelectiveOp, torchtitan's "op" policy): the outputs of the first,
  // third, ... unbiased projection in forward order (the router's
  // excluded; compiled, only those the backward reads), the attention output and fp32 log-sum-exp
  // (op_tp, divided by tp), the block input and the router's top-k outputs (op_seq, divided by tp
  // with sequence parallelism). Routed copies keep no grouped-GEMM output; when they cross ranks
  // (ep > 1) each keeps the outputs of the dispatch and combine all-to-alls (op_copy).
  double op_tp = 0;
  double op_seq = 0;
  double op_copy = 0;
  // Kept under the JAX policies (Recompute::kDots, kDotsExceptMlpWi,
  // kDotsExceptMlp): the outputs of the block's projections, q/k/v,
  // attention output and MLP (dots_tp), all but the MLP's input projections
  // (dots_wo_tp), or the attention's only (dots_attn_tp), divided by tp; the
  // block input (dots_seq, divided by tp with sequence parallelism). Routed
  // copies keep nothing (the grouped GEMM is no plain projection).
  double dots_tp = 0;
  double dots_wo_tp = 0;
  double dots_attn_tp = 0;
  double dots_seq = 0;
  // What each module of Megatron-LM's --recompute-modules discards (bytes
  // per token at 16 bits, in the region named; the *_fp8 part is what FP8
  // already stores at 1 byte instead of 2 and is counted in fp8_* above):
  double norm_out_seq = 0, norm_out_seq_fp8 = 0;  // layernorm: the two norm outputs
  double up_proj_tp = 0;                          // mla_up_proj: q, k, v after up-projection
  double lse_tp = 0;                              // core_attn (flash): fp32 log-sum-exp
  double mlp_tp = 0, mlp_tp_fp8 = 0;              // mlp / shared_experts: the MLP's inner tensors
  double act_out_copy = 0, act_out_copy_fp8 = 0;  // moe_act: activation output per copy
  double act_in_copy = 0;  // the activation's inputs per copy (gate and up outputs)
  double router_seq = 0;   // moe: the fp32 router probabilities
};

// Memory savers beside the recompute policy (doc/cost-model.md §3).
struct ActivationSavers {
  unsigned recompute_modules = 0;  // Recompute::kModules: recompute_module bits
  unsigned offload_modules = 0;    // offload_module bits: moved to host memory
  bool fp8_moe_cache = false;      // SwiGLU inputs of routed experts kept in FP8
  // Routed copies cross ranks by all-to-all (ep > 1): operator-level
  // checkpointing keeps the collectives' outputs (ActivationWork::op_copy).
  bool expert_all_to_all = false;
};

// One transformer block kind (dense-MLP block or MoE block).
struct BlockWork {
  GemmWork attn_proj;  // q/k/v/o projections (MLA: down and up projections)
  GemmWork attn_core;  // scores QK^T and context PV at the causal span
  GemmWork mlp;        // dense MLP, or the shared experts of an MoE block
  GemmWork router;
  GemmWork expert;               // ONE routed expert per routed token copy; x top_k per token
  double top_k = 0;              // routed copies per token (0 for a dense block)
  double elementwise_bytes = 0;  // memory-bound ops per token, forward (norms, act, rope, adds)
  // Materialised attention (AttentionImpl::kMaterialized): HBM bytes per token
  // of the score-matrix passes (all heads), forward and backward; 0 under
  // FlashAttention, whose scores stay on chip.
  double score_bytes_fwd = 0;
  double score_bytes_bwd = 0;
  ActivationWork act;
  // Forward FLOPs per token of the MLA up-projections (q and kv), which the
  // mla_up_proj recompute module re-runs; 0 without MLA.
  double up_proj_flops = 0;
  // Memory-bound bytes per token of the two norms (forward) and per routed
  // copy of the experts' activation: what layernorm and moe_act re-run.
  double norm_ew_bytes = 0;
  double act_ew_copy_bytes = 0;
  // The share of the attention projections' and dense MLP's (or shared
  // experts') FLOPs that operator-level checkpointing re-runs in backward:
  // the projections it does not keep (op_sac.cc).
  double op_rerun_share = 0;
  int64_t params_dense = 0;   // parameters of the block outside routed experts
  int64_t params_expert = 0;  // routed experts of the block (all of them)
  // Forward FLOPs per token of the whole block, all experts' share included.
  double ForwardFlops() const;
};

// Options of the activation-memory model.
struct ActivationOptions {
  bool dropout = false;         // store dropout masks (GPT-2/-3 era; no current config uses it)
  bool flash_attention = true;  // scores are recomputed in backward, not stored (Dao et al. 2022)
  // JobSpec::moe_probs_in_activation: the routed copy keeps no expert output.
  bool moe_probs_in_activation = false;
  // JobSpec::eager_autograd: the gated activation's intermediates are saved,
  // and the element-wise ops run as separate kernels.
  bool eager_autograd = false;
  // How the loss's cross entropy runs (JobSpec::cross_entropy; an eager one
  // under JobSpec::compiled_loss is one fused Inductor graph: kFused): its
  // passes over the logits (model_work.cc).
  CrossEntropyImpl cross_entropy = CrossEntropyImpl::kFused;
};

// The options a job implies (JobSpec::attention, JobSpec::dropout).
ActivationOptions ActivationOptionsOf(const JobSpec& job);

// Everything about the model that does not depend on the parallel layout.
struct ModelWork {
  int64_t num_layers = 0;
  int64_t seq_len = 0;
  int64_t hidden = 0;
  int64_t vocab = 0;
  BlockWork dense;                    // blocks with a dense MLP
  BlockWork moe;                      // MoE blocks (all zero for dense models)
  std::vector<int32_t> moe_prefix;    // moe_prefix[i] = MoE blocks among layers [0, i); size L+1
  GemmWork head;                      // LM head matmul (h x V)
  double head_elementwise_bytes = 0;  // final norm + cross-entropy over V logits, per token
  double head_act_bytes = 0;          // logits kept for the loss backward, per token (/tp)
  int64_t params_embedding = 0;
  int64_t params_head = 0;  // LM head + final norm (tied: final norm only)
  bool tied_embeddings = false;
  // MTP modules (DeepSeek-V3 §2.2): each an eh_proj (2h -> h), two norms and
  // one MoE block, plus a second pass through the shared LM head.
  int64_t mtp_layers = 0;
  GemmWork mtp_proj;
  int64_t params_mtp_extra = 0;  // per module, outside its block (enorm, hnorm, eh_proj)
  ParamCounts params;
  int64_t MoeLayers(int64_t begin, int64_t end) const {
    return moe_prefix[end] - moe_prefix[begin];
  }
};

// REQUIRES: ValidateModel ok, seq_len > 0.
ModelWork BuildModelWork(const ModelSpec& model, int64_t seq_len,
                         const ActivationOptions& options = {});

// Mean attended span per query token (causal: (s+1)/2; a sliding window w < s
// limits it to w - w(w-1)/(2s)), averaged over full and sliding layers.
double CausalSpan(const AttentionSpec& attention, int64_t seq_len);

// ------------------------------------------------------------ compute ---

// GEMM efficiency over the token dimension t of one matmul:
//   eta(t) = chip.gemm_efficiency * t / (t + chip.gemm_half_tokens)
double GemmEfficiency(const ChipSpec& chip, double tokens);

// Roofline time of `flops` matmul work over `tokens` rows that reads/writes
// `bytes`: max(flops / (peak * eta(tokens)), bytes / HBM bandwidth).
// FP8 uses the chip's fp8 peak (== bf16 peak where it has no FP8 speed-up)
// and eta(tokens) * chip.gemm_fp8_ratio (FP8 GEMMs reach a lower fraction of
// their peak: H100 MAMF 70.9% FP8 vs 80.3% BF16).
Seconds GemmTime(const ChipSpec& chip, Precision precision, double flops, double tokens,
                 double bytes);
// Memory-bound op: bytes / HBM bandwidth.
Seconds MemoryBoundTime(const ChipSpec& chip, double bytes);

// Bytes one FP8 training step moves to cast a block's GEMM operands (forward
// and backward together) for `tokens` tokens on a chip holding 1/tp of the
// dense GEMMs and 1/etp of each expert: Transformer Engine casts each GEMM
// input (forward) and output gradient (backward), reading 2 B and writing the
// FP8 copy and its transpose, 4 B per element: 4 * io bytes per token
// (GemmWork::io = k + n per matmul). Routed copies count top_k * lambda per
// token. The 16-bit router is not cast. `per_element`: the bytes one cast
// moves per element (4 for Transformer Engine; 5 with dynamic scaling's amax
// read, JobSpec::fp8_dynamic_scaling).
double Fp8CastBytes(const BlockWork& block, double tokens, int64_t tp, int64_t etp, double lambda,
                    double per_element = 4.0);

// ------------------------------------------------------------- memory ---

// Bytes of training state per parameter under mixed-precision Adam with the
// Training-state bytes per parameter; defaults: the Megatron
// distributed-optimizer convention of occam/element_bytes.h.
struct StateBytesPerParam {
  double weight = kWeightBytesPerParam;
  double grad = kGradBytesPerParam;
  double optimizer = kAdamStateBytesPerParam;  // the master weight (if any) + Adam m and v
  double master =
      kMasterWeightBytesPerParam;  // the part of `optimizer` that is the master; 0: none
};

// Per-chip training-state bytes for `params` parameters held by a chip
// (already divided by tp/ep/pp), sharded over `shard` data-parallel ranks
// according to the ZeRO stage: 1 shards the optimizer, 2 also gradients,
// 3 also weights.
struct StateMemory {
  Bytes weights, grads, optimizer;
};
// Under ZeRO-3 / FSDP the state per parameter is FullyShardedStateBytes(b):
// an fp32 weight shard that is its own master (the 16-bit shard without
// one), the gradient, Adam m and v.
StateMemory ShardedState(double params, int zero, double shard, const StateBytesPerParam& b = {});
StateBytesPerParam FullyShardedStateBytes(const StateBytesPerParam& b);

// The loss's working set at its peak beyond `held_logit_bytes` of kept
// logits (16-bit logits + fp32 log-softmax, 6 B per logit): its
// log-softmax backward holds three fp32 tensors, 12 B per logit.
double LossTransientBytes(double held_logit_bytes);

// The loss's memory on the head's chip for one micro-batch: `held` between
// its forward and backward, `peak` more while it runs.
struct LossMemory {
  double held = 0, peak = 0;
};
// logit_bytes: the micro-batch's logits on the chip at 2 + 4 B each;
// hidden_bytes: its final hidden states (tokens x h at 16 bits); chunks:
// JobSpec::loss_chunks; fused: JobSpec::fused_cross_entropy; compiled:
// JobSpec::compiled_loss (ignored when fused); vocab_parallel: the unfused
// loss runs on vocabulary-sharded logits (tp > 1, PyTorch's loss_parallel).
LossMemory LossBytes(double logit_bytes, double hidden_bytes, int64_t chunks, bool fused,
                     bool compiled, bool vocab_parallel = false);

// The MLP's input projections' share of its matmul FLOPs: 2/3 under a gated
// MLP (two input projections and one output projection of the same size),
// 1/2 otherwise.
double MlpWiShare(const ModelSpec& model);
// The share of the dense MLP's (or shared experts') matmuls a JAX
// dot-saving policy recomputes: the input projections under
// kDotsExceptMlpWi (MlpWiShare), all of them under kDotsExceptMlp, none
// otherwise.
double RecomputedMlpShare(Recompute recompute, const ModelSpec& model);

// Stored activations of one block for one micro-batch on one chip, bytes.
// tokens = b*s/cp on this chip's sequence shard; `lambda` scales the routed
// part for imbalance. Recompute: none stores everything; selective drops the
// attention scores (attn_scores term); full keeps only the block input.
double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute,
                            double lambda);
// As above for a job at `precision`: FP8 stores the GEMM-input tensors at
// 1 byte (ActivationWork::fp8_*); the BF16 result otherwise.
double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute, double lambda,
                            Precision precision);
// As above with the memory savers: Recompute::kModules drops the tensors of
// the modules named, FP8 caching halves the routed SwiGLU inputs, offload
// moves the named per-copy tensors to host memory.
double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute, double lambda,
                            Precision precision, const ActivationSavers& savers);
// Bytes per micro-batch of one block that offload moves to host (and back).
double OffloadedActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                                int64_t tp, double lambda, Precision precision,
                                const ActivationSavers& savers);
// The largest module's tensors of one block, rebuilt at a time in backward
// under Recompute::kModules.
double ModuleRecomputeWorkBytes(const BlockWork& block, double tokens, int64_t tp, bool sp,
                                double lambda, unsigned modules);
// Activation gradients alive while one block's backward runs, per micro-batch:
// the block's output and input gradients and its MLP's inner gradients.
double BlockGradientBytes(const BlockWork& block, const ModelWork& model, double tokens, int64_t tp,
                          bool sp, double lambda);

// Training state per parameter for the job's state precisions
// (optimizer_moments, master_weights, gradients).
StateBytesPerParam TrainingStateBytes(const JobSpec& job);

}  // namespace occam
