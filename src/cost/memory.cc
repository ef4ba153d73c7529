// Memory per chip: training state under ZeRO sharding and stored
// activations per block and micro-batch.
//
// Symbols: P parameters held by the chip, d_s ranks the state is sharded
// over, t tokens of the micro-batch on this chip's sequence shard (b*s/cp),
// s sequence length, tp tensor parallel, k top-k, lambda routing imbalance.
// Sources: doc/cost-model.md §3.
#include "occam/cost.h"

namespace occam {

StateBytesPerParam FullyShardedStateBytes(const StateBytesPerParam& b) {
  // Fully sharded state keeps no separate 16-bit weight: PyTorch FSDP2
  // stores the sharded parameter in fp32 and casts to 16 bits only in the
  // all-gather (MixedPrecisionPolicy, torch.distributed.fsdp docs), so the
  // fp32 shard is the master weight and the optimizer adds Adam m and v.
  // The ZeRO paper's stage 3 (arXiv:1910.02054 §3.1, 2 + 2 + K = 16 bytes
  // per parameter with K = 12) totals the same 16 bytes.
  StateBytesPerParam f = b;
  f.weight = kFp32Bytes;
  f.optimizer = b.optimizer - kFp32Bytes;
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
  double bytes = recompute == Recompute::kSelectiveOp
                     ? tokens * (a.op_tp / t + a.op_seq / seq_div)
                     : tokens * (a.tp_sharded / t + a.seq_region / seq_div + a.replicated);
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
  // Full recompute keeps only the block input, which is no GEMM input.
  if (precision != Precision::kFp8 || recompute == Recompute::kFull) return bf16;
  // Operator-level checkpointing keeps matmul outputs, not the GEMM inputs
  // Transformer Engine casts; only routed copies keep their FP8 inputs.
  if (recompute == Recompute::kSelectiveOp) {
    const double t = static_cast<double>(tp > 0 ? tp : 1);
    return bf16 - tokens * block.top_k / t * block.act.fp8_per_expert_copy * lambda;
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

}  // namespace occam
