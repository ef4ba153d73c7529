// Per-token work of one transformer block, built from the config's exact
// shapes. Private to the cost layer; the public view is occam/cost.h.
//
// Symbols: h hidden, a heads, a_kv key/value heads, d head dim, f dense MLP
// width, f_e routed-expert width, f_s shared-expert width, E routed experts,
// k top-k, V vocabulary, s sequence length. Sources: doc/cost-model.md §1.
#pragma once

#include "occam/cost.h"
#include "occam/spec.h"

namespace occam::cost_internal {

// A block's attention, its MLP part (dense, or shared experts + router +
// routed experts) and its two norms. `span` is the mean attended span per
// query (CausalSpan).
BlockWork BuildBlock(const ModelSpec& model, bool moe, double span,
                     const ActivationOptions& options);

// What operator-level selective checkpointing (Recompute::kSelectiveOp,
// torchtitan's "op" policy) keeps of the block: sets b.act.op_tp, op_seq
// and op_copy (op_sac.cc). Needs b.top_k.
void OpSacKept(const ModelSpec& model, bool moe, const ActivationOptions& options, BlockWork& b);

// Forward element-wise bytes per token a block adds when its PyTorch ops
// run eagerly (ActivationOptions::eager_autograd), beyond the fused kernels
// BuildBlock counts (eager_ops.cc).
double EagerElementwiseBytes(const ModelSpec& model, bool moe);

// Parameters of one norm layer (RMSNorm: h; LayerNorm: weight + bias 2h).
int64_t NormParams(const ModelSpec& model, int64_t width);

// True when layer i (0-based) has an MoE MLP: HF DeepSeek/GLM rule
// i >= first_k_dense and i % layer_freq == 0 (modeling_deepseek.py).
bool IsMoeLayer(const ModelSpec& model, int64_t i);

}  // namespace occam::cost_internal
