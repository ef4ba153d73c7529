// Memory per chip: training state under ZeRO sharding and stored
// activations per block and micro-batch.
//
// Symbols: P parameters held by the chip, d_s ranks the state is sharded
// over, t tokens of the micro-batch on this chip's sequence shard (b*s/cp),
// s sequence length, tp tensor parallel, k top-k, lambda routing imbalance.
// Sources: doc/cost-model.md §3.
#include "occam/cost.h"

namespace occam {

StateMemory ShardedState(double params, int zero, double shard, const StateBytesPerParam& b) {
  // ZeRO stages (Rajbhandari et al. 2020 arXiv:1910.02054 §5): 1 shards the
  // optimizer state, 2 also the gradients, 3 also the weights.
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
  // Full recompute keeps only the block input, which is no GEMM input.
  if (precision != Precision::kFp8 || recompute == Recompute::kFull) return bf16;
  // Transformer Engine keeps the FP8 cast of each GEMM input for the weight
  // gradient instead of the 16-bit tensor (DeepSeek-V3 arXiv:2412.19437
  // §3.3.3 "cache the activations in FP8"); same divisors as above.
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const ActivationWork& a = block.act;
  const double saved = tokens * (a.fp8_tp_sharded / t + a.fp8_seq_region / (sp ? t : 1.0) +
                                 block.top_k / t * a.fp8_per_expert_copy * lambda);
  return bf16 - saved;
}

}  // namespace occam
