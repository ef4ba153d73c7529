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
    return tokens * 2.0 * static_cast<double>(model.hidden) / seq_div;
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

}  // namespace occam
