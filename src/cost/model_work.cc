// Whole-model work: parameter counts, the block kinds of every layer, the LM
// head, DeepSeek MTP modules and model FLOPs per token.
//
// Symbols: L layers, h hidden, V vocabulary, s sequence length, n_mtp MTP
// modules. Sources: doc/cost-model.md §1.
#include <algorithm>

#include "cost/blocks.h"
#include "occam/cost.h"

namespace occam {

using cost_internal::BuildBlock;
using cost_internal::IsMoeLayer;
using cost_internal::NormParams;

double CausalSpan(const AttentionSpec& attention, int64_t seq_len) {
  const double s = static_cast<double>(seq_len);
  // Query i (1-based) attends to i keys: mean (s+1)/2 (causal halving).
  const double full = (s + 1.0) / 2.0;
  const double w = static_cast<double>(attention.sliding_window);
  if (w <= 0 || w >= s || attention.sliding_fraction <= 0) return full;
  // Query i attends to min(i, w) keys: mean w - w(w-1)/(2s).
  const double windowed = w - w * (w - 1.0) / (2.0 * s);
  const double f = std::clamp(attention.sliding_fraction, 0.0, 1.0);
  return f * windowed + (1.0 - f) * full;
}

namespace {

// Bytes one pass (forward or backward) of the cross entropy moves per logit,
// the two passes averaged.
// - Fused: the 16-bit logits read, the fp32 softmax written and read back
//   as the gradient, (2 + 4 + 4) per pass.
// - Megatron-Core's unfused VocabParallelCrossEntropy
//   (megatron/core/tensor_parallel/cross_entropy.py; 2021's mpu/cross_entropy.py
//   is the same sequence): the fp32 copy (read 2, write 4), the row max
//   (read 4), the max subtracted in place (8), exp in place (8), the row sum
//   (read 4), the division in place (8): 38 in the forward; in the
//   backward, the softmax scaled by the incoming gradient in place (8) and
//   the cast back to the 16-bit logits' gradient (read 4, write 2): 14.
//   52 per logit, 26 per pass.
// - PyTorch's eager cross_entropy on pred.float() (torchtitan
//   components/loss.py) runs per V-wide row: the fp32 copy (read 2, write
//   4), log_softmax's three reads and one write of fp32 (max, sum of exp,
//   output: 16; aten/src/ATen/native/cuda/SoftMax.cu cunn_SoftMaxForward,
//   rows too long for its shared-memory variant), then in the backward
//   nll_loss's zero-filled fp32 gradient (4), log_softmax's backward (sum of
//   the gradient, then gradient and output read and the input gradient
//   written: 16; cunn_SoftMaxBackward) and the cast back to 16-bit (read 4,
//   write 2): 22 + 26 = 48 per logit, 24 per pass.
double LossPassBytes(CrossEntropyImpl impl) {
  switch (impl) {
    case CrossEntropyImpl::kVocabParallel:
      return 26.0;
    case CrossEntropyImpl::kEager:
      return 24.0;
    case CrossEntropyImpl::kFused:
      break;
  }
  return kActivationBytes + 2 * kFp32Bytes;
}

// Active parameters of a block: routed experts count top_k of E.
int64_t ActiveBlockParams(const BlockWork& b, const ModelSpec& model) {
  if (!model.moe || b.params_expert == 0) return b.params_dense;
  return b.params_dense + b.params_expert / model.moe->num_experts * model.moe->top_k;
}

void CountAll(const ModelSpec& model, ModelWork& w) {
  ParamCounts& c = w.params;
  const int64_t h = model.hidden, v = model.vocab;
  c.embedding = v * h + model.learned_positions * h;
  c.lm_head = model.tied_embeddings ? 0 : v * h;
  const int64_t final_norm = NormParams(model, h);
  w.params_embedding = c.embedding;
  w.params_head = c.lm_head + final_norm;
  const int64_t n_moe = w.moe_prefix[w.num_layers];
  const int64_t n_dense = w.num_layers - n_moe;
  const int64_t blocks =
      n_dense * w.dense.params_dense + n_moe * (w.moe.params_dense + w.moe.params_expert);
  const int64_t blocks_active =
      n_dense * w.dense.params_dense + n_moe * ActiveBlockParams(w.moe, model);
  c.total = c.embedding + c.lm_head + final_norm + blocks;
  // The head matmul runs for every token (tied: through the embedding matrix).
  c.active = blocks_active + final_norm + v * h;
  // MTP module (DeepSeek-V3 §2.2, HF checkpoint layer 61): enorm, hnorm,
  // eh_proj (2h -> h), one block, its own output norm; embedding and head shared.
  const BlockWork& mtp_block = model.moe ? w.moe : w.dense;
  w.params_mtp_extra = 3 * NormParams(model, h) + 2 * h * h;
  c.mtp =
      model.mtp_layers * (w.params_mtp_extra + mtp_block.params_dense + mtp_block.params_expert);
  c.mtp_active = model.mtp_layers * (w.params_mtp_extra + ActiveBlockParams(mtp_block, model));
}

}  // namespace

ModelWork BuildModelWork(const ModelSpec& model, int64_t seq_len,
                         const ActivationOptions& options) {
  ModelWork w;
  w.num_layers = model.num_layers;
  w.seq_len = seq_len;
  w.hidden = model.hidden;
  w.vocab = model.vocab;
  w.tied_embeddings = model.tied_embeddings;
  // A materialised score matrix is computed whole: the causal mask (and any
  // sliding window) is applied to it, no block is skipped.
  const double span =
      options.flash_attention ? CausalSpan(model.attention, seq_len) : static_cast<double>(seq_len);
  w.dense = BuildBlock(model, false, span, options);
  if (model.moe) w.moe = BuildBlock(model, true, span, options);
  w.moe_prefix.assign(static_cast<size_t>(model.num_layers) + 1, 0);
  for (int64_t i = 0; i < model.num_layers; ++i) {
    w.moe_prefix[i + 1] = w.moe_prefix[i] + (IsMoeLayer(model, i) ? 1 : 0);
  }
  const double h = static_cast<double>(model.hidden), v = static_cast<double>(model.vocab);
  w.head.flops = 2.0 * h * v;
  w.head.weights = h * v;
  w.head.io = h + v;
  w.head.AddShape(h, v);
  // Final norm (read + write h, 16-bit) and cross-entropy, charged once in
  // the forward and once in the backward, per logit (LossPassBytes).
  const double loss_bytes = LossPassBytes(options.cross_entropy);
  w.head_elementwise_bytes = 2 * kActivationBytes * h + loss_bytes * v;
  // Logits (16-bit) and fp32 softmax kept for the loss backward.
  w.head_act_bytes = (kActivationBytes + kFp32Bytes) * v;
  w.mtp_layers = model.mtp_layers;
  w.mtp_proj.flops = 2.0 * (2.0 * h) * h;
  w.mtp_proj.weights = 2.0 * h * h;
  w.mtp_proj.io = 3.0 * h;
  w.mtp_proj.AddShape(2.0 * h, h);
  CountAll(model, w);
  return w;
}

ActivationOptions ActivationOptionsOf(const JobSpec& job) {
  ActivationOptions o;
  o.dropout = job.dropout;
  o.flash_attention = job.attention != AttentionImpl::kMaterialized;
  o.moe_probs_in_activation = job.moe_probs_in_activation;
  o.eager_autograd = job.eager_autograd;
  o.cross_entropy = job.cross_entropy == CrossEntropyImpl::kEager && job.compiled_loss
                        ? CrossEntropyImpl::kFused
                        : job.cross_entropy;
  return o;
}

ParamCounts CountParams(const ModelSpec& model) { return BuildModelWork(model, 1).params; }

Flops ModelFlopsPerToken(const ModelSpec& model, int64_t seq_len) {
  const ModelWork w = BuildModelWork(model, seq_len);
  const int64_t n_moe = w.moe_prefix[w.num_layers];
  double fwd = static_cast<double>(w.num_layers - n_moe) * w.dense.ForwardFlops() +
               static_cast<double>(n_moe) * w.moe.ForwardFlops() + w.head.flops;
  const BlockWork& mtp_block = model.moe ? w.moe : w.dense;
  fwd += static_cast<double>(w.mtp_layers) *
         (w.mtp_proj.flops + mtp_block.ForwardFlops() + w.head.flops);
  // Backward = 2x forward (input and weight gradients): Kaplan et al. 2020 §2.1.
  return Flops(3.0 * fwd);
}

}  // namespace occam
