// Memory terms derived from their formulas: Megatron's distributed-optimizer
// bytes per parameter and Korthikanti et al. 2022 Table 2.
#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

TEST(Memory, DistributedOptimizerBytesPerParam) {
  // Megatron-LM distrib_optimizer.md: bf16 param + fp32 grad: 6 + 12/d bytes.
  const double p = 1e9, d = 8;
  const StateMemory m = ShardedState(p, 1, d);
  EXPECT_DOUBLE_EQ((m.weights + m.grads + m.optimizer).value(), p * (6 + 12 / d));
  const StateMemory none = ShardedState(p, 0, d);
  EXPECT_DOUBLE_EQ((none.weights + none.grads + none.optimizer).value(), 18 * p);
  // Fully sharded: an fp32 weight shard that is its own master (FSDP2), 4 + 4
  // + 8 = 16 bytes per parameter, the ZeRO paper's 2 + 2 + 12 (§3.1).
  const StateMemory z3 = ShardedState(p, 3, d);
  EXPECT_DOUBLE_EQ((z3.weights + z3.grads + z3.optimizer).value(), 16 * p / d);
  EXPECT_DOUBLE_EQ(z3.weights.value(), 4 * p / d);
  const StateMemory z2 = ShardedState(p, 2, d);
  EXPECT_DOUBLE_EQ(z2.grads.value(), 4 * p / d);
  EXPECT_DOUBLE_EQ(z2.weights.value(), 2 * p);
}

// GPT-3-style block, as in Korthikanti: MHA, GeLU 4h MLP, dropout, no flash.
struct Korthikanti {
  ModelSpec model = testing::Gpt(24, 2048, 16, 51200);
  ActivationOptions options{.dropout = true, .flash_attention = false};
  ModelWork work = BuildModelWork(model, 2048, options);
};

TEST(Memory, KorthikantiTable2WithSequenceParallel) {
  Korthikanti k;
  const double s = 2048, b = 2, h = 2048, a = 16;
  for (int64_t t : {1, 2, 4, 8}) {
    const double expected = s * b * h * (34.0 / t + 5.0 * a * s / (h * t));
    EXPECT_NEAR(
        BlockActivationBytes(k.work.dense, k.work, b * s, s, t, true, Recompute::kNone, 1.0),
        expected, 1e-6 * expected)
        << "tp=" << t;
  }
}

TEST(Memory, KorthikantiTable2WithoutSequenceParallel) {
  Korthikanti k;
  const double s = 2048, b = 1, h = 2048, a = 16, t = 4;
  const double expected = s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
  EXPECT_NEAR(BlockActivationBytes(k.work.dense, k.work, b * s, s, 4, false, Recompute::kNone, 1),
              expected, 1e-6 * expected);
}

// The loss's log-softmax backward holds three fp32 tensors (12 B per
// logit) against the 2 + 4 B kept between forward and backward.
TEST(Memory, LossPeakIsThreeFp32CopiesOfTheLogits) {
  const double logits = 2.0 * 8192 * 128256;
  const double held = 6.0 * logits;
  EXPECT_DOUBLE_EQ(held + LossTransientBytes(held), 12.0 * logits);
}

// Unchunked, the loss holds its logits and peaks at 12 B per logit.
// ChunkedLossWrapper with n chunks holds the 16-bit gradient of the hidden
// states and peaks at one chunk's logits (12 B each, unfused) beside the
// fp32 accumulator of that gradient.
TEST(Memory, ChunkedLossHoldsOneChunkOfLogits) {
  const double tokens = 8192, vocab = 151936, h = 2048, n = 8;
  const double logit_bytes = 6.0 * tokens * vocab, hidden_bytes = 2.0 * tokens * h;
  const LossMemory whole = LossBytes(logit_bytes, hidden_bytes, 0, false, false);
  EXPECT_DOUBLE_EQ(whole.held + whole.peak, 12.0 * tokens * vocab);
  EXPECT_DOUBLE_EQ(LossBytes(logit_bytes, hidden_bytes, 1, true, false).peak, 0.0);
  const LossMemory chunked = LossBytes(logit_bytes, hidden_bytes, 8, false, false);
  EXPECT_DOUBLE_EQ(chunked.held, 2.0 * tokens * h);
  EXPECT_DOUBLE_EQ(chunked.peak, 12.0 * tokens / n * vocab + 4.0 * tokens * h);
  const LossMemory fused = LossBytes(logit_bytes, hidden_bytes, 8, true, false);
  EXPECT_DOUBLE_EQ(fused.peak, 6.0 * tokens / n * vocab + 4.0 * tokens * h);
}

// Compiled (Inductor), the unfused loss keeps only the 16-bit logits (2 B
// each) and its backward writes their 16-bit gradient (2 B more); fused
// wins over compiled.
TEST(Memory, CompiledLossKeepsTheSixteenBitLogitsAndTheirGradient) {
  const double tokens = 8192, vocab = 128256, h = 4096, n = 8;
  const double logit_bytes = 6.0 * tokens * vocab, hidden_bytes = 2.0 * tokens * h;
  const LossMemory whole = LossBytes(logit_bytes, hidden_bytes, 0, false, true);
  EXPECT_DOUBLE_EQ(whole.held, 2.0 * tokens * vocab);
  EXPECT_DOUBLE_EQ(whole.held + whole.peak, 4.0 * tokens * vocab);
  const LossMemory chunked = LossBytes(logit_bytes, hidden_bytes, 8, false, true);
  EXPECT_DOUBLE_EQ(chunked.peak, 4.0 * tokens / n * vocab + 4.0 * tokens * h);
  EXPECT_DOUBLE_EQ(LossBytes(logit_bytes, hidden_bytes, 0, true, true).held, logit_bytes);
}

// PyTorch's loss_parallel (tp > 1) computes (grad_input + exp(x)) *
// grad_output beside the saved fp32 log-softmax x: four fp32 tensors, 16 B
// per logit at the peak; compiled and fused losses ignore it.
TEST(Memory, VocabParallelLossPeaksAtFourFp32Copies) {
  const double tokens = 8192, vocab = 128256 / 8.0, h = 8192, n = 8;
  const double logit_bytes = 6.0 * tokens * vocab, hidden_bytes = 2.0 * tokens * h;
  const LossMemory whole = LossBytes(logit_bytes, hidden_bytes, 0, false, false, true);
  EXPECT_DOUBLE_EQ(whole.held, logit_bytes);
  EXPECT_DOUBLE_EQ(whole.held + whole.peak, 16.0 * tokens * vocab);
  const LossMemory chunked = LossBytes(logit_bytes, hidden_bytes, 8, false, false, true);
  EXPECT_DOUBLE_EQ(chunked.peak, 16.0 * tokens / n * vocab + 4.0 * tokens * h);
  const LossMemory compiled = LossBytes(logit_bytes, hidden_bytes, 0, false, true, true);
  EXPECT_DOUBLE_EQ(compiled.held + compiled.peak, 4.0 * tokens * vocab);
  EXPECT_DOUBLE_EQ(LossBytes(logit_bytes, hidden_bytes, 0, true, false, true).peak, 0.0);
}

// Activation gradients during one block's backward, 16-bit: the block's
// output and input gradients (2 x 2h per token, / tp with sequence
// parallelism) and SwiGLU's three f-wide gradients (3 x 2f, / tp); for a
// top-2 MoE block the routed copies' 3 x 2 f_e each (2 per token, / tp).
TEST(Memory, BlockGradientsAreTheBoundaryAndTheMlpBackward) {
  const ModelWork w = BuildModelWork(testing::Llama8B(), 8192, ActivationOptions{});
  const double tokens = 16384, h = 4096, f = 14336;
  for (int64_t t : {1, 4}) {
    const double expected = tokens * (2.0 * 2.0 * h / t + 3.0 * 2.0 * f / t);
    EXPECT_NEAR(BlockGradientBytes(w.dense, w, tokens, t, true, 1.0), expected, 1e-9 * expected);
  }
  EXPECT_NEAR(BlockGradientBytes(w.dense, w, tokens, 4, false, 1.0),
              tokens * (2.0 * 2.0 * h + 3.0 * 2.0 * f / 4), 1e-3);
  const ModelWork mx = BuildModelWork(testing::Mixtral8x7B(), 4096, ActivationOptions{});
  const double expected = tokens * (2.0 * 2.0 * h + 2.0 * 3.0 * 2.0 * f);
  EXPECT_NEAR(BlockGradientBytes(mx.moe, mx, tokens, 1, false, 1.0), expected, 1e-9 * expected);
}

// Operator-level selective checkpointing on a Mixtral 8x7B MoE block (h
// 4096, 32 heads of 128, 8 KV heads, top-2 of 8 experts): half of the
// attention projections' outputs q 4096, k 1024, v 1024, o 4096 (the router
// is force-recomputed, the experts' grouped GEMMs are not saved), the
// attention output 4096 at 2 B and its fp32 log-sum-exp, the block input at
// 2 B and the top-2 scores (fp32) and indices (int64); with ep > 1 each
// routed copy adds the dispatch and combine all-to-all outputs, 2 x 4096 at
// 2 B, times the imbalance.
TEST(Memory, OperatorLevelSelectiveKeepsNoExpertTensors) {
  const ModelSpec m = testing::Mixtral8x7B();
  const ModelWork w = BuildModelWork(m, 4096, ActivationOptions{});
  const double outputs = 4096 + 1024 + 1024 + 4096;
  const double per_token = 2.0 * (outputs / 2 + 4096) + 4.0 * 32 + 2.0 * 4096 + 2 * (4.0 + 8.0);
  const double tokens = 4096, lambda = 1.25;
  ActivationSavers sv;
  EXPECT_NEAR(BlockActivationBytes(w.moe, w, tokens, 4096, 1, false, Recompute::kSelectiveOp,
                                   lambda, Precision::kBf16, sv),
              tokens * per_token, 1e-6 * tokens * per_token);
  sv.expert_all_to_all = true;
  const double a2a = tokens * 2 * lambda * 2.0 * 2.0 * 4096;
  EXPECT_NEAR(BlockActivationBytes(w.moe, w, tokens, 4096, 1, false, Recompute::kSelectiveOp,
                                   lambda, Precision::kBf16, sv),
              tokens * per_token + a2a, 1e-6 * tokens * per_token);
}

// Operator-level selective checkpointing on Llama 3.1 8B (h 4096, 32 heads
// of 128, 8 KV heads, SwiGLU 14336). The policy keeps the first, third,
// fifth and seventh matmul outputs in forward order, q 4096, v 1024, gate
// 14336 and down 4096; compiled, not the down projection's, which only the
// residual add reads. Beside them the attention output 4096 at 2 B and its
// fp32 log-sum-exp (32 x 4 B), and the block input 4096 at 2 B, per token.
TEST(Memory, OperatorLevelSelectiveOnLlama8B) {
  const ModelSpec m = testing::Llama8B();
  ActivationOptions eager;
  eager.eager_autograd = true;
  const ModelWork compiled_w = BuildModelWork(m, 8192, ActivationOptions{});
  const ModelWork eager_w = BuildModelWork(m, 8192, eager);
  const double rest = 2.0 * 4096 + 4.0 * 32 + 2.0 * 4096;
  const double compiled = 2.0 * (4096 + 1024 + 14336) + rest;
  const double eager_kept = 2.0 * (4096 + 1024 + 14336 + 4096) + rest;
  const double tokens = 2.0 * 8192;
  EXPECT_NEAR(BlockActivationBytes(compiled_w.dense, compiled_w, tokens, 8192, 1, false,
                                   Recompute::kSelectiveOp, 1),
              tokens * compiled, 1e-6 * tokens * compiled);
  EXPECT_NEAR(BlockActivationBytes(eager_w.dense, eager_w, tokens, 8192, 1, false,
                                   Recompute::kSelectiveOp, 1),
              tokens * eager_kept, 1e-6 * tokens * eager_kept);
  // With tp = 4 and sequence parallelism every kept tensor is divided by 4.
  EXPECT_NEAR(BlockActivationBytes(compiled_w.dense, compiled_w, tokens, 8192, 4, true,
                                   Recompute::kSelectiveOp, 1),
              tokens * compiled / 4, 1e-6 * tokens * compiled);
  // Less than Korthikanti's selective recompute keeps.
  EXPECT_LT(BlockActivationBytes(eager_w.dense, eager_w, tokens, 8192, 1, false,
                                 Recompute::kSelectiveOp, 1),
            BlockActivationBytes(eager_w.dense, eager_w, tokens, 8192, 1, false,
                                 Recompute::kSelective, 1));
}

// Under MLA with a fused shared-expert MLP (torchtitan's DeepSeek-V3 16B:
// h 2048, 16 heads, no q latent, kv latent 512 + rope 64, nope 128, v 128,
// two shared experts of 1408 run as one SwiGLU of 2816), the matmuls in
// forward order are q 16 x 192, kv_a 576, kv_b 16 x 256, out 2048, then
// (the router force-recomputed, the experts' grouped GEMMs uncounted) gate
// 2816, up 2816, down 2048: the first, third, fifth and seventh are kept,
// q, kv_b, gate and, eager only, down.
TEST(Memory, OperatorLevelSelectiveCountsMlaAndTheFusedSharedExperts) {
  ModelSpec m = testing::Mixtral8x7B();
  m.hidden = 2048;
  m.attention.kind = AttentionKind::kMla;
  m.attention.num_heads = 16;
  m.attention.mla = MlaDims{};
  m.attention.mla.kv_lora_rank = 512;
  m.attention.mla.qk_rope_head_dim = 64;
  m.attention.mla.qk_nope_head_dim = 128;
  m.attention.mla.v_head_dim = 128;
  m.moe->num_shared_experts = 2;
  m.moe->shared_expert_ffn = 1408;
  ActivationOptions eager;
  eager.eager_autograd = true;
  const double kept = 16.0 * 192 + 16.0 * 256 + 2816;
  const BlockWork c = BuildModelWork(m, 4096, ActivationOptions{}).moe;
  const BlockWork e = BuildModelWork(m, 4096, eager).moe;
  const double rest = 2.0 * 16 * 128 + 4.0 * 16;
  EXPECT_DOUBLE_EQ(c.act.op_tp, 2.0 * kept + rest);
  EXPECT_DOUBLE_EQ(e.act.op_tp, 2.0 * (kept + 2048) + rest);
}

// JAX's dot-saving remat policies on Llama 3.1 8B: "minimal" keeps every
// projection output, q 4096, k 1024, v 1024, o 4096, gate 14336, up 14336,
// down 4096, and the block input 4096, at 2 B per token;
// "save_dot_except_mlpwi" drops the gate and up outputs (the MLP's input
// projections) and keeps the down projection's 4096; "save_dot_except_mlp"
// keeps the attention's projections only.
TEST(Memory, JaxDotSavingPoliciesOnLlama8B) {
  const ModelSpec m = testing::Llama8B();
  const ModelWork w = BuildModelWork(m, 8192, ActivationOptions{});
  const double tokens = 8192.0;
  const double dots = 2.0 * (4096 + 1024 + 1024 + 4096 + 14336 + 14336 + 4096) + 2.0 * 4096;
  const double except_wi = 2.0 * (4096 + 1024 + 1024 + 4096 + 4096) + 2.0 * 4096;
  const double except_mlp = 2.0 * (4096 + 1024 + 1024 + 4096) + 2.0 * 4096;
  EXPECT_NEAR(
      BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kDotsExceptMlp, 1),
      tokens * except_mlp, 1e-6 * tokens * except_mlp);
  EXPECT_NEAR(BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kDots, 1),
              tokens * dots, 1e-6 * tokens * dots);
  EXPECT_NEAR(
      BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kDotsExceptMlpWi, 1),
      tokens * except_wi, 1e-6 * tokens * except_wi);
  // Activations sharded over the tensor axis (MaxText's activation_embed
  // rule, sequence parallelism here): every kept tensor divided by tp.
  EXPECT_NEAR(BlockActivationBytes(w.dense, w, tokens, 8192, 8, true, Recompute::kDots, 1),
              tokens * dots / 8, 1e-6 * tokens * dots);
  // Between full recompute (the block input) and no recompute.
  EXPECT_GT(BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kDots, 1),
            BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kFull, 1));
  EXPECT_LT(BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kDots, 1),
            BlockActivationBytes(w.dense, w, tokens, 8192, 1, false, Recompute::kNone, 1));
}

TEST(Memory, KorthikantiSelectiveAndFullRecompute) {
  Korthikanti k;
  const double s = 2048, b = 1, h = 2048, t = 8;
  EXPECT_NEAR(
      BlockActivationBytes(k.work.dense, k.work, b * s, s, 8, true, Recompute::kSelective, 1),
      s * b * h * 34 / t, 1e-3);
  EXPECT_NEAR(BlockActivationBytes(k.work.dense, k.work, b * s, s, 8, true, Recompute::kFull, 1),
              s * b * h * 2 / t, 1e-3);
}

TEST(Memory, FlashAttentionDropsTheQuadraticTerm) {
  const ModelSpec m = testing::Llama8B();
  const ModelWork w = BuildModelWork(m, 8192);
  const double s = 8192, h = 4096, f = 14336;
  // No dropout, flash: norm/attn/MLP inputs 8h, Q 2h, K,V 2*2*1024, out-proj
  // input 2h, fp32 lse 4a, SwiGLU 6f: all bytes per token.
  const double per_token = 8 * h + 2 * h + 4 * 1024 + 2 * h + 4 * 32 + 6 * f;
  EXPECT_NEAR(BlockActivationBytes(w.dense, w, s, s, 1, true, Recompute::kNone, 1), s * per_token,
              1e-6);
}

TEST(Memory, MoeActivationsScaleWithTopKAndImbalance) {
  const ModelSpec m = testing::Mixtral8x7B();
  const ModelWork w = BuildModelWork(m, 4096);
  const double t = 4096;
  const double base = BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, 1.0);
  const double skew = BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, 1.5);
  // Per routed copy: dispatched input + output (4h) and the SwiGLU tensors (6 f_e).
  const double per_copy = 4.0 * 4096 + 6.0 * 14336;
  EXPECT_NEAR(skew - base, 0.5 * t * 2 * per_copy, 1e-6);
}

// FP8 training (Transformer Engine; DeepSeek-V3 §3.3.3) keeps the FP8 cast of
// every GEMM input for the weight gradient: 1 byte instead of 2 for the QKV
// input (norm output, h), the out-projection input (a*d = h), the first MLP
// input (norm output, h) and the second MLP input (SwiGLU product, f).
TEST(Memory, Fp8StoresGemmInputsAtOneByte) {
  const ModelSpec m = testing::Llama8B();
  const ModelWork w = BuildModelWork(m, 8192);
  const double s = 8192, h = 4096, f = 14336;
  for (int64_t t : {1, 4}) {
    const double bf16 = BlockActivationBytes(w.dense, w, s, s, t, true, Recompute::kNone, 1);
    const double fp8 =
        BlockActivationBytes(w.dense, w, s, s, t, true, Recompute::kNone, 1, Precision::kFp8);
    // Norm outputs sit in the sequence-parallel region (/t with SP), the rest in the tp region.
    const double saved = s * (2 * h / t + (h + f) / t);
    EXPECT_NEAR(bf16 - fp8, saved, 1e-6 * saved) << "tp=" << t;
    EXPECT_DOUBLE_EQ(
        BlockActivationBytes(w.dense, w, s, s, t, true, Recompute::kNone, 1, Precision::kBf16),
        bf16);
  }
  // Full recompute keeps only the block input, which no GEMM reads first.
  EXPECT_DOUBLE_EQ(
      BlockActivationBytes(w.dense, w, s, s, 1, true, Recompute::kFull, 1, Precision::kFp8),
      BlockActivationBytes(w.dense, w, s, s, 1, true, Recompute::kFull, 1));
}

TEST(Memory, Fp8MoeCopiesStoreDispatchedInputAtOneByte) {
  const ModelSpec m = testing::Mixtral8x7B();
  const ModelWork w = BuildModelWork(m, 4096);
  const double t = 4096, h = 4096, fe = 14336, k = 2, lambda = 1.5;
  const double bf16 = BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda);
  const double fp8 =
      BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda, Precision::kFp8);
  // Attention: QKV input h and out-projection input h; per routed copy: the
  // dispatched input h and the SwiGLU product f_e (the router reads 16 bits).
  const double saved = t * (2 * h + k * lambda * (h + fe));
  EXPECT_NEAR(bf16 - fp8, saved, 1e-6 * saved);
}

// Module recompute (Megatron-LM --recompute-modules) on DeepSeek-V3's MoE
// block: each module drops the tensors it rebuilds, by its formula.
TEST(Memory, RecomputeModulesDropTheirTensors) {
  namespace rm = recompute_module;
  const ModelSpec m = testing::DeepSeekV3();
  const ModelWork w = BuildModelWork(m, 4096);
  const double t = 4096, h = 7168, a = 128, dqk = 128 + 64, dv = 128, fe = 2048, k = 8;
  const double lambda = 1.25, tp = 2;
  const double copies = t * k / tp * lambda;
  auto bytes = [&](unsigned modules, Precision p) {
    ActivationSavers s;
    s.recompute_modules = modules;
    return BlockActivationBytes(w.moe, w, t, t, 2, true, Recompute::kModules, lambda, p, s);
  };
  const double none =
      BlockActivationBytes(w.moe, w, t, t, 2, true, Recompute::kNone, lambda, Precision::kBf16);
  // Norm outputs: 2 x 2h in the sequence-parallel region (/tp).
  EXPECT_NEAR(none - bytes(rm::kLayernorm, Precision::kBf16), t * 4 * h / tp, 1e-3);
  // q, k after up-projection and RoPE (a d_qk each) and v (a d_v), 2 B, /tp.
  EXPECT_NEAR(none - bytes(rm::kMlaUpProj, Precision::kBf16), t * 2 * (2 * a * dqk + a * dv) / tp,
              1e-3);
  // The SwiGLU output per routed copy, 2 f_e.
  EXPECT_NEAR(none - bytes(rm::kMoeAct, Precision::kBf16), copies * 2 * fe, 1e-3);
  // Flash attention keeps no scores: core_attn drops the fp32 log-sum-exp.
  EXPECT_NEAR(none - bytes(rm::kCoreAttn, Precision::kBf16), t * 4 * a / tp, 1e-3);
  // Modules add up; under FP8 the norm output of the attention (the QKV
  // GEMM's input, kept at 1 B) and the SwiGLU output (1 B) drop less.
  const unsigned three = rm::kLayernorm | rm::kMlaUpProj | rm::kMoeAct;
  const double none8 =
      BlockActivationBytes(w.moe, w, t, t, 2, true, Recompute::kNone, lambda, Precision::kFp8);
  const double drop8 = t * (4 * h - h) / tp + t * 2 * (2 * a * dqk + a * dv) / tp + copies * fe;
  EXPECT_NEAR(none8 - bytes(three, Precision::kFp8), drop8, 1e-3 * drop8);
  // The whole MoE layer keeps only its input: every per-copy tensor, the
  // shared expert (3 x 2 f_s) and the fp32 router probabilities go.
  const double per_copy = 4 * h + 6 * fe;
  const double moe = copies * per_copy + t * 6 * 2048 / tp + t * 4 * 256 / tp;
  EXPECT_NEAR(none - bytes(rm::kMoe, Precision::kBf16), moe, 1e-6 * moe);
  // One module's tensors are rebuilt at a time: the largest.
  EXPECT_NEAR(ModuleRecomputeWorkBytes(w.moe, t, 2, true, lambda, three),
              t * 2 * (2 * a * dqk + a * dv) / tp, 1e-3);
}

// DeepSeek-V3 §3.3.3 caches the SwiGLU inputs of the routed experts in FP8;
// offload moves the named per-copy tensors to host memory.
TEST(Memory, Fp8MoeCacheAndOffload) {
  const ModelSpec m = testing::DeepSeekV3();
  const ModelWork w = BuildModelWork(m, 4096);
  const double t = 4096, h = 7168, fe = 2048, k = 8, lambda = 1.1;
  const double copies = t * k * lambda;
  const double base =
      BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda, Precision::kFp8);
  ActivationSavers cache;
  cache.fp8_moe_cache = true;
  // Gate and up outputs, 2 f_e elements per copy: 2 B -> 1 B.
  EXPECT_NEAR(base - BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda,
                                          Precision::kFp8, cache),
              copies * 2 * fe, 1e-3);
  // BF16 training has no FP8 copies to cache.
  EXPECT_DOUBLE_EQ(
      BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda, Precision::kBf16,
                           cache),
      BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda, Precision::kBf16));
  ActivationSavers off = cache;
  off.offload_modules = offload_module::kExpertFc1 | offload_module::kMoeAct;
  // The dispatched input (FP8, h) and the cached SwiGLU inputs (2 f_e at 1 B).
  const double moved = copies * (h + 2 * fe);
  EXPECT_NEAR(OffloadedActivationBytes(w.moe, w, t, 1, lambda, Precision::kFp8, off), moved, 1e-3);
  EXPECT_NEAR(BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda,
                                   Precision::kFp8, cache) -
                  BlockActivationBytes(w.moe, w, t, t, 1, true, Recompute::kNone, lambda,
                                       Precision::kFp8, off),
              moved, 1e-3);
}

// Megatron-Core applies the routing probability on the experts' activation
// output: a routed copy keeps its dispatched input and fp32 probability, not
// the expert output (h at 2 B).
TEST(Memory, ProbsInActivationKeepNoExpertOutput) {
  const ModelSpec m = testing::Mixtral8x7B();
  ActivationOptions in;
  in.moe_probs_in_activation = true;
  const ModelWork after = BuildModelWork(m, 4096);
  const ModelWork inside = BuildModelWork(m, 4096, in);
  const double t = 4096, h = 4096, k = 2, lambda = 1.2;
  const double a = BlockActivationBytes(after.moe, after, t, t, 1, true, Recompute::kNone, lambda);
  const double b =
      BlockActivationBytes(inside.moe, inside, t, t, 1, true, Recompute::kNone, lambda);
  EXPECT_NEAR(a - b, t * k * lambda * (2 * h - 4), 1e-3);
}

// BF16 Adam moments beside the FP32 master (DeepSeek-V3 §3.3.2): 4 + 2 + 2.
TEST(Memory, Bf16MomentsShrinkTheOptimizerState) {
  const double p = 1e9, d = 16;
  JobSpec job;
  job.bf16_optimizer_moments = true;
  const StateMemory m = ShardedState(p, 1, d, TrainingStateBytes(job));
  EXPECT_DOUBLE_EQ(m.optimizer.value(), 8 * p / d);
  EXPECT_DOUBLE_EQ((m.weights + m.grads).value(), 6 * p);
  // Fully sharded: the fp32 weight shard is the master; moments 2 x 2 B.
  const StateMemory z3 = ShardedState(p, 3, d, TrainingStateBytes(job));
  EXPECT_DOUBLE_EQ((z3.weights + z3.grads + z3.optimizer).value(), (4 + 4 + 4) * p / d);
  EXPECT_DOUBLE_EQ(TrainingStateBytes(JobSpec{}).optimizer, 12);
}

// BF16 training state (torchtitan training.dtype bfloat16): parameters,
// gradients and moments in BF16, no master: 2 + 2 + 2 + 2 = 8 B per
// parameter, all of it sharded under FSDP.
TEST(Memory, Bf16TrainingStateIsEightBytesPerParameter) {
  const double p = 1e9, d = 8;
  JobSpec job;
  job.bf16_optimizer_moments = job.bf16_master_weights = job.bf16_gradients = true;
  const StateMemory z3 = ShardedState(p, 3, d, TrainingStateBytes(job));
  EXPECT_DOUBLE_EQ(z3.weights.value(), 2 * p / d);
  EXPECT_DOUBLE_EQ(z3.grads.value(), 2 * p / d);
  EXPECT_DOUBLE_EQ(z3.optimizer.value(), 4 * p / d);
  // ZeRO-1: the 16-bit weight and gradient whole, the moments sharded.
  const StateMemory z1 = ShardedState(p, 1, d, TrainingStateBytes(job));
  EXPECT_DOUBLE_EQ((z1.weights + z1.grads).value(), 4 * p);
  EXPECT_DOUBLE_EQ(z1.optimizer.value(), 4 * p / d);
  // FP32 gradients alone: 4 B, the rest unchanged.
  JobSpec grads = job;
  grads.bf16_gradients = false;
  EXPECT_DOUBLE_EQ(TrainingStateBytes(grads).grad, 4);
}

// Eager autograd (torchtitan without torch.compile) saves SiLU's output
// beside its input and the up projection: one more f-wide 16-bit tensor per
// token in a dense SwiGLU block (split over tp), four more per routed copy
// for gpt-oss's clamped SwiGLU (7f saved against 3f).
TEST(Memory, EagerAutogradKeepsTheGatedActivationsIntermediates) {
  const ModelSpec llama = testing::Llama8B();
  const double tokens = 8192, s = 8192, f = 14336;
  const ActivationOptions eager{.eager_autograd = true};
  const ModelWork fused_w = BuildModelWork(llama, 8192, ActivationOptions{});
  const ModelWork eager_w = BuildModelWork(llama, 8192, eager);
  for (int64_t t : {1, 4}) {
    const double fused =
        BlockActivationBytes(fused_w.dense, fused_w, tokens, s, t, true, Recompute::kNone, 1.0);
    const double eager_bytes =
        BlockActivationBytes(eager_w.dense, eager_w, tokens, s, t, true, Recompute::kNone, 1.0);
    EXPECT_DOUBLE_EQ(eager_bytes - fused, tokens * 2.0 * f / static_cast<double>(t));
    // Full recompute keeps only the block input either way.
    EXPECT_DOUBLE_EQ(
        BlockActivationBytes(eager_w.dense, eager_w, tokens, s, t, true, Recompute::kFull, 1.0),
        BlockActivationBytes(fused_w.dense, fused_w, tokens, s, t, true, Recompute::kFull, 1.0));
  }
  ModelSpec oss = testing::GptOss120B();
  oss.clamped_swiglu = true;
  const ModelWork a = BuildModelWork(oss, 8192, ActivationOptions{});
  const ModelWork b = BuildModelWork(oss, 8192, eager);
  const double fe = 2880, k = 4;
  EXPECT_DOUBLE_EQ(b.moe.act.per_expert_copy - a.moe.act.per_expert_copy, 4.0 * 2.0 * fe);
  EXPECT_DOUBLE_EQ(BlockActivationBytes(b.moe, b, tokens, s, 1, false, Recompute::kNone, 1.0) -
                       BlockActivationBytes(a.moe, a, tokens, s, 1, false, Recompute::kNone, 1.0),
                   tokens * k * 4.0 * 2.0 * fe);
}

}  // namespace
}  // namespace occam
