// Memory per chip: training state under ZeRO sharding and stored
// activations per block and micro-batch.
//
// Symbols: P parameters held by the chip, d_s ranks the state is sharded
// over, t tokens of the micro-batch on this chip's sequence shard (b*s/cp),
// s sequence length, tp tensor parallel, k top-k, lambda routing imbalance.
// Sources: doc/cost-model.md §3.
#include <algorithm>

#include "occam/cost.h"

namespace occam {

StateBytesPerParam FullyShardedStateBytes(const StateBytesPerParam& b) {
  // Fully sharded state keeps no separate 16-bit weight: PyTorch FSDP2
  // stores the sharded parameter in fp32 and casts to 16 bits only in the
  // all-gather (MixedPrecisionPolicy, torch.distributed.fsdp docs), so the
  // fp32 shard is the master weight and the optimizer adds Adam m and v.
  // The ZeRO paper's stage 3 (arXiv:1910.02054 §3.1, 2 + 2 + K = 16 bytes
  // per parameter with K = 12) totals the same 16 bytes.
  // Without a master (BF16 training state) the 16-bit shard is the
  // parameter the optimizer updates.
  StateBytesPerParam f = b;
  if (b.master > 0) f.weight = b.master;
  f.optimizer = b.optimizer - b.master;
  f.master = 0;
  return f;
}

StateMemory ShardedState(double params, int zero, double shard, const StateBytesPerParam& given) {
  // ZeRO stages (Rajbhandari et al. 2020 arXiv:1910.02054 §5): 1 shards the
  // optimizer state, 2 also the gradients, 3 also the weights.
  const StateBytesPerParam b = zero >= 3 ? FullyShardedStateBytes(given) : given;
  const double d = shard > 1 ? shard : 1;
  StateMemory m;
  m.weights = Bytes(b.weight * params / (zero >= 3 ? d : 1.0));
  m.grads = Bytes(b.grad * params / (zero >= 2 ? d : 1.0));
  m.optimizer = Bytes(b.optimizer * params / (zero >= 1 ? d : 1.0));
  return m;
}

double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute,
                            double lambda) {
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const double seq_div = sp ? t : 1.0;
  if (recompute == Recompute::kFull) {
    // Only the block input is kept (Korthikanti §4.2: 2sbh/t with SP).
    return tokens * kActivationBytes * static_cast<double>(model.hidden) / seq_div;
  }
  const ActivationWork& a = block.act;
  // Operator-level checkpointing keeps no routed copy's expert tensors
  // (op_sac.cc OpSacKept; the all-to-all outputs are added with the savers).
  if (recompute == Recompute::kSelectiveOp) return tokens * (a.op_tp / t + a.op_seq / seq_div);
  // JAX's dot-saving policies keep the projections' outputs (blocks.cc DotsKept).
  if (recompute == Recompute::kDots) return tokens * (a.dots_tp / t + a.dots_seq / seq_div);
  if (recompute == Recompute::kDotsExceptMlpWi) {
    return tokens * (a.dots_wo_tp / t + a.dots_seq / seq_div);
  }
  if (recompute == Recompute::kDotsExceptMlp) {
    return tokens * (a.dots_attn_tp / t + a.dots_seq / seq_div);
  }
  double bytes = tokens * (a.tp_sharded / t + a.seq_region / seq_div + a.replicated);
  // Routed copies: k per token, spread over the tp ranks (sequence shards)
  // and scaled by the imbalance of the most loaded rank.
  bytes += tokens * block.top_k / t * a.per_expert_copy * lambda;
  // Attention scores (the 5as/t term) are dropped by selective recompute.
  if (recompute == Recompute::kNone) bytes += tokens * a.attn_scores * seq_len / t;
  return bytes;
}

double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute, double lambda,
                            Precision precision) {
  const double bf16 =
      BlockActivationBytes(block, model, tokens, seq_len, tp, sp, recompute, lambda);
  // Full recompute keeps only the block input, which is no GEMM input;
  // operator-level checkpointing keeps matmul outputs, not the GEMM inputs
  // Transformer Engine casts.
  if (precision != Precision::kFp8 || recompute == Recompute::kFull ||
      recompute == Recompute::kSelectiveOp || SavesDots(recompute)) {
    return bf16;
  }
  // Transformer Engine keeps the FP8 cast of each GEMM input for the weight
  // gradient instead of the 16-bit tensor (DeepSeek-V3 arXiv:2412.19437
  // §3.3.3 "cache the activations in FP8"); same divisors as above.
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const ActivationWork& a = block.act;
  const double saved = tokens * (a.fp8_tp_sharded / t + a.fp8_seq_region / (sp ? t : 1.0) +
                                 block.top_k / t * a.fp8_per_expert_copy * lambda);
  return bf16 - saved;
}

namespace {

// Bytes per token a block's tensors take at the job's precision: the 16-bit
// size, less what FP8 already stores at 1 byte.
double Stored(double bf16, double fp8_saving, Precision p) {
  return p == Precision::kFp8 ? bf16 - fp8_saving : bf16;
}

// The savers' drops for one block and micro-batch, each module apart, so
// that the total and the largest (rebuilt at a time) come from one place.
struct SaverDrops {
  double modules[7] = {};  // by recompute_module bit index
  double fp8_cache = 0;
  double offload = 0;
  double ModulesTotal() const {
    double x = 0;
    for (double v : modules) x += v;
    return x;
  }
};

SaverDrops Drops(const BlockWork& block, double hidden, double tokens, int64_t tp, bool sp,
                 double lambda, Precision precision, unsigned r, const ActivationSavers& sv) {
  namespace rm = recompute_module;
  const ActivationWork& a = block.act;
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const double seq_div = sp ? t : 1.0;
  const double copies = tokens * block.top_k / t * lambda;
  const bool moe = block.top_k > 0;
  const bool fp8 = precision == Precision::kFp8;
  SaverDrops d;
  // Megatron-LM --recompute-modules (transformer_config.py): core_attn
  // checkpoints the attention core (its score tensors are dropped by the
  // caller; here the fp32 log-sum-exp); layernorm, mla_up_proj and moe_act
  // discard their outputs; mlp, shared_experts and moe checkpoint their
  // module and keep only its input.
  if (r & rm::kCoreAttn) d.modules[0] = tokens * a.lse_tp / t;
  if (r & rm::kMlaUpProj) d.modules[1] = tokens * a.up_proj_tp / t;
  if (r & rm::kLayernorm) {
    d.modules[2] = tokens * Stored(a.norm_out_seq, a.norm_out_seq_fp8, precision) / seq_div;
  }
  const double mlp = tokens * Stored(a.mlp_tp, a.mlp_tp_fp8, precision) / t;
  if (!moe && (r & rm::kMlp)) d.modules[4] = mlp;
  if (moe && (r & rm::kMoe)) {
    d.modules[6] = mlp + copies * Stored(a.per_expert_copy, a.fp8_per_expert_copy, precision) +
                   tokens * a.router_seq / seq_div;
    return d;  // the whole layer is rebuilt: nothing of it is kept to cache or offload
  }
  if (moe && (r & rm::kSharedExperts)) d.modules[5] = mlp;
  if (moe && (r & rm::kMoeAct)) {
    d.modules[3] = copies * Stored(a.act_out_copy, a.act_out_copy_fp8, precision);
  }
  if (!moe) return d;
  // DeepSeek-V3 §3.3.3: the SwiGLU inputs of the routed experts are cached
  // in FP8 (1 byte instead of 2) for the backward.
  const bool cache = fp8 && sv.fp8_moe_cache;
  const double act_in = cache ? a.act_in_copy * kFp8Bytes / kActivationBytes : a.act_in_copy;
  if (cache) d.fp8_cache = copies * (a.act_in_copy - act_in);
  // Offload (Megatron-LM fine-grained activation offloading): expert_fc1
  // moves each copy's dispatched input (the first expert GEMM's input, FP8
  // under FP8), moe_act the activation's input.
  if (sv.offload_modules & offload_module::kExpertFc1) {
    d.offload += copies * hidden * (fp8 ? kFp8Bytes : kActivationBytes);
  }
  if (sv.offload_modules & offload_module::kMoeAct) d.offload += copies * act_in;
  return d;
}

}  // namespace

double BlockActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                            double seq_len, int64_t tp, bool sp, Recompute recompute, double lambda,
                            Precision precision, const ActivationSavers& savers) {
  const bool modules = recompute == Recompute::kModules;
  const unsigned r = modules ? savers.recompute_modules : 0;
  // core_attn drops the attention-score tensors as selective recompute does.
  const Recompute base = !modules                                 ? recompute
                         : (r & recompute_module::kCoreAttn) != 0 ? Recompute::kSelective
                                                                  : Recompute::kNone;
  const double bytes =
      BlockActivationBytes(block, model, tokens, seq_len, tp, sp, base, lambda, precision);
  if (recompute == Recompute::kFull || SavesDots(recompute)) return bytes;
  if (recompute == Recompute::kSelectiveOp) {
    // The saved all-to-all outputs of the routed copies (OpSacKept).
    const double t = static_cast<double>(tp > 0 ? tp : 1);
    const double copies = tokens * block.top_k / t * lambda;
    return bytes + (savers.expert_all_to_all ? copies * block.act.op_copy : 0.0);
  }
  const SaverDrops d =
      Drops(block, static_cast<double>(model.hidden), tokens, tp, sp, lambda, precision, r, savers);
  return std::max(0.0, bytes - d.ModulesTotal() - d.fp8_cache - d.offload);
}

double OffloadedActivationBytes(const BlockWork& block, const ModelWork& model, double tokens,
                                int64_t tp, double lambda, Precision precision,
                                const ActivationSavers& savers) {
  return Drops(block, static_cast<double>(model.hidden), tokens, tp, false, lambda, precision, 0,
               savers)
      .offload;
}

double ModuleRecomputeWorkBytes(const BlockWork& block, double tokens, int64_t tp, bool sp,
                                double lambda, unsigned modules) {
  const SaverDrops d =
      Drops(block, 0.0, tokens, tp, sp, lambda, Precision::kBf16, modules, ActivationSavers{});
  double most = 0;
  for (double v : d.modules) most = std::max(most, v);
  return most;
}

double BlockGradientBytes(const BlockWork& block, const ModelWork& model, double tokens, int64_t tp,
                          bool sp, double lambda) {
  // Autograd writes each gradient in its activation's 16-bit dtype. At the
  // block's boundary the incoming gradient of its output is alive while the
  // gradient of its input is written (2 x 2h per token, outside the tp
  // region). Inside, the MLP's backward is the widest step: the gradient of
  // the second GEMM's input is alive while the element-wise backward writes
  // the gradients of its operands (aten mul's derivative gives one per
  // operand, tools/autograd/derivatives.yaml), as many f-wide tensors as
  // the MLP keeps (gated: 3 x 2f, ActivationWork::mlp_tp; per routed copy
  // act_in_copy + act_out_copy). The dense MLP (or shared experts) and the
  // routed experts run their backward one after the other: the larger.
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const ActivationWork& a = block.act;
  const double boundary =
      2.0 * tokens * kActivationBytes * static_cast<double>(model.hidden) / (sp ? t : 1.0);
  const double mlp = tokens * a.mlp_tp / t;
  const double routed = tokens * block.top_k / t * lambda * (a.act_in_copy + a.act_out_copy);
  return boundary + std::max(mlp, routed);
}

StateBytesPerParam TrainingStateBytes(const JobSpec& job) {
  StateBytesPerParam b;
  // FP32 master weight + Adam m and v, the moments in BF16 where the recipe
  // says so (DeepSeek-V3 arXiv:2412.19437 §3.3.2). BF16 training state
  // (torchtitan training.dtype "bfloat16") keeps no master and BF16
  // gradients: 2 + 2 + 4 = 8 B per parameter with BF16 moments.
  b.master = job.bf16_master_weights ? 0.0 : kMasterWeightBytesPerParam;
  b.optimizer = b.master + (job.bf16_optimizer_moments ? kBf16AdamMomentsBytesPerParam
                                                       : kFp32AdamMomentsBytesPerParam);
  b.grad = job.bf16_gradients ? kBf16GradBytesPerParam : kGradBytesPerParam;
  return b;
}

double LossTransientBytes(double held_logit_bytes) {
  // The loss works in fp32 on the logits (PyTorch cross_entropy on
  // pred.float(), torchtitan components/loss.py; Megatron-Core's
  // vocab-parallel cross entropy likewise casts to fp32). Its peak is the
  // log-softmax backward (aten _log_softmax_backward_data): the saved fp32
  // log-softmax, the incoming fp32 gradient and the fp32 gradient it
  // produces, 3 x 4 = 12 bytes per logit, against the 2 + 4 bytes held
  // between forward and backward: 6 bytes per logit more.
  const double held = kActivationBytes + kFp32Bytes;
  return held_logit_bytes * (3.0 * kFp32Bytes - held) / held;
}

namespace {

// Bytes held between the loss's forward and backward (`held`) and added
// while its backward runs (`peak`) for logits stored at 2 + 4 B each.
LossMemory WholeLoss(double logit_bytes, bool fused, bool compiled, bool vocab_parallel) {
  if (fused) return {logit_bytes, 0.0};
  const double held = kActivationBytes + kFp32Bytes;
  if (!compiled && vocab_parallel) {
    // PyTorch's loss_parallel (torch/distributed/tensor/parallel/loss.py,
    // _nll_loss_and_log_softmax_backward) fuses the NLL and log-softmax
    // backward on the vocabulary shard as (grad_input + exp(x)) *
    // grad_output: beside the saved fp32 log-softmax x, a zeros_like(x)
    // gradient, exp(x) and their sum are alive before the product's
    // operand is freed, 4 x 4 = 16 bytes per logit against the 2 + 4 held:
    // 10 bytes more. (Megatron-Core's VocabParallelCrossEntropy works in
    // place on its saved fp32 softmax and is a fused loss here.)
    return {logit_bytes, logit_bytes * (4.0 * kFp32Bytes - held) / held};
  }
  if (!compiled) return {logit_bytes, LossTransientBytes(logit_bytes)};
  // Compiled (Inductor): the partitioner saves the 16-bit logits, not an
  // fp32 tensor (min-cut recomputation of the cast and exp,
  // torch/_functorch/partitioners.py), and the backward writes the 16-bit
  // logit gradient from them in one fused kernel: 2 B held and 2 B more
  // per logit.
  const double bf16 = logit_bytes * kActivationBytes / (kActivationBytes + kFp32Bytes);
  return {bf16, bf16};
}

}  // namespace

LossMemory LossBytes(double logit_bytes, double hidden_bytes, int64_t chunks, bool fused,
                     bool compiled, bool vocab_parallel) {
  if (chunks <= 1) return WholeLoss(logit_bytes, fused, compiled, vocab_parallel);
  // torchtitan ChunkedLossWrapper (components/loss.py): the hidden states
  // are split along the tokens; each chunk runs the head, the loss and their
  // backward before the next, so one chunk's logits are alive at a time and
  // none is held for the decoder's backward. The chunks' input gradients
  // are written into an fp32 buffer of the whole micro-batch
  // (GradAccumulator, dtype float32), cast to the hidden states' 16-bit
  // dtype and saved for the decoder's backward.
  const LossMemory chunk =
      WholeLoss(logit_bytes / static_cast<double>(chunks), fused, compiled, vocab_parallel);
  LossMemory m;
  m.held = hidden_bytes;
  m.peak = chunk.held + chunk.peak + hidden_bytes * kFp32Bytes / kActivationBytes;
  return m;
}

}  // namespace occam
