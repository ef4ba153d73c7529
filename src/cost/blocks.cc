// Exact per-token shapes of one transformer block (attention, MLP / MoE,
// norms): parameters, matmul FLOPs (2*m*n*k, Kaplan et al. 2020
// arXiv:2001.08361 §2.1), memory-bound bytes and stored activations
// (Korthikanti et al. 2022 arXiv:2205.05198 §4.1, generalised per tensor).
//
// Symbols: h hidden, a heads, a_kv kv heads, d head dim, f MLP width, f_e
// expert width, f_s shared-expert width, E experts, k top-k, s seq length.
// All activation sizes are bytes per token with 16-bit tensors.
#include "cost/blocks.h"

#include <algorithm>

namespace occam::cost_internal {
namespace {

constexpr double kAct = kActivationBytes;

// Adds one matmul [tokens x in] @ [in x out] (+ bias) to `g`; returns its params.
int64_t AddMatmul(GemmWork& g, int64_t in, int64_t out, bool bias) {
  g.flops += 2.0 * static_cast<double>(in) * static_cast<double>(out);
  g.weights += static_cast<double>(in) * static_cast<double>(out);
  g.io += static_cast<double>(in + out);
  g.AddShape(static_cast<double>(in), static_cast<double>(out));
  g.outputs += static_cast<double>(out);
  return in * out + (bias ? out : 0);
}

// Grouped-query attention (MHA/GQA/MQA): q, k, v, o projections.
int64_t AddGqa(const ModelSpec& m, BlockWork& b) {
  const AttentionSpec& at = m.attention;
  const int64_t h = m.hidden, d = at.head_dim, a = at.num_heads, akv = at.num_kv_heads;
  int64_t p = 0;
  p += AddMatmul(b.attn_proj, h, a * d, at.qkv_bias);
  p += AddMatmul(b.attn_proj, h, akv * d, at.qkv_bias);
  p += AddMatmul(b.attn_proj, h, akv * d, at.qkv_bias);
  p += AddMatmul(b.attn_proj, a * d, h, at.out_bias);
  // Stored for backward: Q, K, V and the out-projection input (Korthikanti
  // Table 1's "QK^T 4sbh, V 2sbh, out-proj 2sbh" with GQA widths).
  b.act.tp_sharded += kAct * static_cast<double>(a * d + 2 * akv * d + a * d);
  b.act.fp8_tp_sharded += static_cast<double>(a * d);  // out-projection input
  // Rope on q and k: read + write.
  b.elementwise_bytes += 2.0 * kAct * static_cast<double>((a + akv) * d);
  return p;
}

// Multi-head latent attention (DeepSeek-V2 arXiv:2405.04434 §2.1.2-2.1.3).
int64_t AddMla(const ModelSpec& m, BlockWork& b) {
  const AttentionSpec& at = m.attention;
  const MlaDims& x = at.mla;
  const int64_t h = m.hidden, a = at.num_heads;
  const int64_t dqk = x.qk_nope_head_dim + x.qk_rope_head_dim;
  int64_t p = 0;
  if (x.q_lora_rank > 0) {
    p += AddMatmul(b.attn_proj, h, x.q_lora_rank, at.qkv_bias);
    p += NormParams(m, x.q_lora_rank);
    p += AddMatmul(b.attn_proj, x.q_lora_rank, a * dqk, false);
    // q latent: norm input and up-projection input, kept whole on every tp rank.
    b.act.replicated += 2.0 * kAct * static_cast<double>(x.q_lora_rank);
    b.elementwise_bytes += 2.0 * kAct * static_cast<double>(x.q_lora_rank);
  } else {
    p += AddMatmul(b.attn_proj, h, a * dqk, false);
  }
  p += AddMatmul(b.attn_proj, h, x.kv_lora_rank + x.qk_rope_head_dim, at.qkv_bias);
  p += NormParams(m, x.kv_lora_rank);
  p += AddMatmul(b.attn_proj, x.kv_lora_rank, a * (x.qk_nope_head_dim + x.v_head_dim), false);
  p += AddMatmul(b.attn_proj, a * x.v_head_dim, h, at.out_bias);
  b.act.replicated += kAct * static_cast<double>(2 * x.kv_lora_rank + x.qk_rope_head_dim);
  b.act.tp_sharded += kAct * static_cast<double>(2 * a * dqk + 2 * a * x.v_head_dim);
  b.act.fp8_tp_sharded += static_cast<double>(a * x.v_head_dim);  // out-projection input
  // mla_up_proj discards q, k and v as the up-projections and RoPE leave
  // them and re-runs those projections from the kept latents.
  b.act.up_proj_tp = kAct * static_cast<double>(2 * a * dqk + a * x.v_head_dim);
  b.up_proj_flops =
      2.0 * static_cast<double>(x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim));
  if (x.q_lora_rank > 0) b.up_proj_flops += 2.0 * static_cast<double>(x.q_lora_rank * a * dqk);
  b.elementwise_bytes += 2.0 * kAct * static_cast<double>(x.kv_lora_rank);
  b.elementwise_bytes += 2.0 * kAct * static_cast<double>((a + 1) * x.qk_rope_head_dim);
  return p;
}

// Score and context matmuls: per query, 2*span*d_qk + 2*span*d_v per head.
void AddAttentionCore(const ModelSpec& m, double span, const ActivationOptions& o, BlockWork& b) {
  const AttentionSpec& at = m.attention;
  const bool mla = at.kind == AttentionKind::kMla;
  const double dqk = mla ? at.mla.qk_nope_head_dim + at.mla.qk_rope_head_dim : at.head_dim;
  const double dv = mla ? at.mla.v_head_dim : at.head_dim;
  const double a = static_cast<double>(at.num_heads);
  b.attn_core.flops = 2.0 * a * span * (dqk + dv);
  b.attn_core.io = a * (2.0 * dqk + 2.0 * dv);  // q, k, v in; o out
  if (o.flash_attention) {
    b.act.tp_sharded += kFp32Bytes * a;  // fp32 log-sum-exp per head (FlashAttention-2 §3.1)
    b.act.lse_tp = kFp32Bytes * a;
    return;
  }
  // softmax output 2as (+ dropout mask as + dropout output 2as): Korthikanti Table 1.
  b.act.attn_scores = a * (o.dropout ? 5.0 : 2.0);
  // HBM passes over the a x span score matrix, 2 B per element, 1 B per
  // dropout-mask element (Megatron-LM's unfused path: QK^T GEMM, fused
  // scale-mask-softmax, dropout, PV GEMM; Korthikanti Table 1 lists the same
  // tensors). Forward: QK^T writes S; softmax reads S, writes P; PV reads P
  // (2 + 4 + 2); dropout reads P, writes its mask and output (2 + 1 + 2).
  // Backward: dP = dO V^T written, dV reads P, softmax backward reads dP and P
  // and writes dS, dQ and dK each read dS (2 + 2 + 6 + 4); dropout backward
  // reads dP and the mask, writes its input gradient (2 + 1 + 2).
  const double drop = o.dropout ? 5.0 : 0.0;
  b.score_bytes_fwd = a * span * (8.0 + drop);
  b.score_bytes_bwd = a * span * (14.0 + drop);
}

// Dense MLP of width f: gated (SwiGLU: gate, up, down) or plain (fc1, fc2).
// `act` gains the stored tensors, `fp8` the part of them that is the second
// GEMM's input (f per token: stored at 1 byte under FP8).
int64_t AddMlp(const ModelSpec& m, int64_t f, bool bias, GemmWork& g, double* act, double* fp8,
               double* ew) {
  const int64_t h = m.hidden;
  int64_t p = 0;
  *fp8 += static_cast<double>(f);
  if (m.gated_mlp) {
    p += AddMatmul(g, h, f, bias);
    p += AddMatmul(g, h, f, bias);
    *act += kAct * 3.0 * static_cast<double>(f);  // gate out, up out, product
    *ew += kAct * 3.0 * static_cast<double>(f);   // act(gate) * up: read 2f, write f
  } else {
    p += AddMatmul(g, h, f, bias);
    *act += kAct * 2.0 * static_cast<double>(f);  // fc1 out, activation out
    *ew += kAct * 2.0 * static_cast<double>(f);
  }
  p += AddMatmul(g, f, h, bias);
  return p;
}

// Bytes per element of the gated MLP's width f that eager autograd saves
// beyond the 3f of a fused activation (gate and up outputs, the second GEMM's
// input; Megatron-Core's fused bias_swiglu saves its 2f input). torchtitan's
// eager SwiGLU, w2(F.silu(w1(x)) * w3(x)) (models/llama3/model/model.py;
// F.silu(_grouped_mm(x, w1)) * _grouped_mm(x, w3) in its MoE experts):
// silu's backward takes its input, the product saves both operands (silu's
// output the extra one), w2 its input: 4f. gpt-oss's clamped SwiGLU
// (torchtitan models/gpt_oss/moe.py swiglu): the clamps keep the 2f GEMM
// output (their input, through its strided views), then x_glu, the
// sigmoid's output, out_glu and the clamped linear half are saved by their
// products and the result by the second GEMM: 2f + 5f = 7f. None under
// torch.compile (the partitioner recomputes element-wise ops) or ungated
// MLPs (not modelled).
double EagerGateBytes(const ModelSpec& m, const ActivationOptions& o) {
  if (!o.eager_autograd || !m.gated_mlp) return 0.0;
  return kAct * (m.clamped_swiglu ? 4.0 : 1.0);
}

// Kept under JAX's dot-saving remat policies (MaxText remat_policy
// "minimal": checkpoint_dots_with_no_batch_dims, MaxText/layers/models.py at
// 76bd53b0; "save_dot_except_mlpwi": save_only_these_names of query_proj,
// key_proj, value_proj, out_proj and mlpwo, maxtext layers/decoders.py): the
// projections' outputs per token, the MLP's input projections (wi, two under
// a gated MLP) excepted in the second; the block input. One MLP-output
// projection (width h) per dense MLP or shared expert.
void DotsKept(const ModelSpec& m, BlockWork& b, double mlps) {
  const double h = static_cast<double>(m.hidden);
  const double outputs = b.attn_proj.outputs + b.mlp.outputs;
  b.act.dots_tp = kAct * outputs;
  b.act.dots_wo_tp = kAct * (b.attn_proj.outputs + mlps * h);
  b.act.dots_attn_tp = kAct * b.attn_proj.outputs;
  b.act.dots_seq = kAct * h;
}

int64_t AddMoe(const ModelSpec& m, const ActivationOptions& o, BlockWork& b) {
  const MoeSpec& e = *m.moe;
  const int64_t h = m.hidden;
  int64_t p = 0;
  for (int64_t i = 0; i < e.num_shared_experts; ++i) {
    p += AddMlp(m, e.shared_expert_ffn, false, b.mlp, &b.act.mlp_tp, &b.act.mlp_tp_fp8,
                &b.elementwise_bytes);
    b.act.mlp_tp += EagerGateBytes(m, o) * static_cast<double>(e.shared_expert_ffn);
  }
  b.act.tp_sharded += b.act.mlp_tp;
  b.act.fp8_tp_sharded += b.act.mlp_tp_fp8;
  p += AddMatmul(b.router, h, e.num_experts, e.router_bias);
  b.act.router_seq = kFp32Bytes * static_cast<double>(e.num_experts);  // fp32 router probabilities
  b.act.seq_region += b.act.router_seq;
  b.elementwise_bytes += 8.0 * static_cast<double>(e.num_experts);
  double ew_copy = 0;
  const int64_t one = AddMlp(m, e.expert_ffn, e.expert_bias, b.expert, &b.act.per_expert_copy,
                             &b.act.fp8_per_expert_copy, &ew_copy);
  b.act.per_expert_copy += EagerGateBytes(m, o) * static_cast<double>(e.expert_ffn);
  // The activation's output is the second expert GEMM's input (moe_act
  // discards it); its inputs are the first GEMM's outputs.
  const double fe = static_cast<double>(e.expert_ffn);
  b.act.act_out_copy = kAct * fe;
  b.act.act_out_copy_fp8 = kFp8Bytes * fe;
  b.act.act_in_copy = kAct * fe * (m.gated_mlp ? 2.0 : 1.0);
  b.act_ew_copy_bytes = ew_copy;
  // Dispatched input and expert output per routed copy; permute + unpermute.
  // The dispatched input is the first expert GEMM's input. With the routing
  // probability applied on the activation output (Megatron-Core experts.py
  // activation_func_with_probs) the unpermute keeps nothing and the copy
  // keeps its fp32 probability instead of the expert output.
  b.act.per_expert_copy += o.moe_probs_in_activation ? kAct * static_cast<double>(h) + kFp32Bytes
                                                     : 2.0 * kAct * static_cast<double>(h);
  b.act.fp8_per_expert_copy += kFp8Bytes * static_cast<double>(h);
  b.top_k = static_cast<double>(e.top_k);
  b.elementwise_bytes += b.top_k * (ew_copy + 4.0 * kAct * static_cast<double>(h));
  b.params_expert = one * e.num_experts;
  return p;
}

}  // namespace

int64_t NormParams(const ModelSpec& model, int64_t width) {
  return model.norm == NormKind::kLayerNorm ? 2 * width : width;
}

bool IsMoeLayer(const ModelSpec& model, int64_t i) {
  if (!model.moe) return false;
  const int64_t freq = model.moe->layer_freq > 0 ? model.moe->layer_freq : 1;
  return i >= model.moe->first_k_dense && i % freq == 0;
}

BlockWork BuildBlock(const ModelSpec& model, bool moe, double span,
                     const ActivationOptions& options) {
  BlockWork b;
  const double h = static_cast<double>(model.hidden);
  int64_t p = 2 * NormParams(model, model.hidden);
  p += model.attention.kind == AttentionKind::kMla ? AddMla(model, b) : AddGqa(model, b);
  AddAttentionCore(model, span, options, b);
  if (moe) {
    p += AddMoe(model, options, b);
  } else {
    p += AddMlp(model, model.ffn_hidden, model.mlp_bias, b.mlp, &b.act.mlp_tp, &b.act.mlp_tp_fp8,
                &b.elementwise_bytes);
    b.act.mlp_tp += EagerGateBytes(model, options) * static_cast<double>(model.ffn_hidden);
    b.act.tp_sharded += b.act.mlp_tp;
    b.act.fp8_tp_sharded += b.act.mlp_tp_fp8;
  }
  b.params_dense = p;
  OpSacKept(model, moe, options, b);
  DotsKept(model, b, moe ? static_cast<double>(model.moe->num_shared_experts) : 1.0);
  // Outside the tp region: two norm inputs, attention and MLP inputs
  // (Korthikanti Table 1: 2sbh each), and two dropout masks (sbh each).
  b.act.seq_region += kAct * 4.0 * h + (options.dropout ? 2.0 * h : 0.0);
  // The attention and MLP inputs (norm outputs) are the QKV and first MLP
  // GEMMs' inputs: 1 byte each under FP8 (an MoE block's MLP input feeds the
  // 16-bit router; its dispatched copies are counted per expert copy).
  b.act.fp8_seq_region += (moe ? 1.0 : 2.0) * kFp8Bytes * h;
  // layernorm discards the two norm outputs (the attention and MLP inputs)
  // and re-runs both norms: read and write h each.
  b.act.norm_out_seq = kAct * 2.0 * h;
  b.act.norm_out_seq_fp8 = (moe ? 1.0 : 2.0) * kFp8Bytes * h;
  b.norm_ew_bytes = kAct * 2.0 * 2.0 * h;
  // Two norms (read + write h) and two residual adds (read 2h, write h).
  b.elementwise_bytes += kAct * (2.0 * 2.0 * h + 2.0 * 3.0 * h);
  // Two hidden dropouts (attention and MLP outputs): read and write h, write a
  // 1-byte mask (Korthikanti Table 1's two sbh masks).
  if (options.dropout) b.elementwise_bytes += 2.0 * (2.0 * kAct + 1.0) * h;
  if (options.eager_autograd) b.elementwise_bytes += EagerElementwiseBytes(model, moe);
  return b;
}

}  // namespace occam::cost_internal

namespace occam {

double MlpWiShare(const ModelSpec& model) { return model.gated_mlp ? 2.0 / 3.0 : 0.5; }

double RecomputedMlpShare(Recompute recompute, const ModelSpec& model) {
  if (recompute == Recompute::kDotsExceptMlpWi) return MlpWiShare(model);
  if (recompute == Recompute::kDotsExceptMlp) return 1.0;
  return 0.0;
}

void GemmWork::AddShape(double in, double out) {
  const Shape add{std::min(in, out), std::max(in, out), 2.0 * in * out};
  for (int i = 0; i < num_shapes; ++i) {
    Shape& x = shapes[static_cast<size_t>(i)];
    if (x.small == add.small && x.large == add.large) {
      x.flops += add.flops;
      return;
    }
  }
  // Full: the last slot absorbs the FLOPs at its own width (groups here hold
  // at most five distinct shapes, MLA attention).
  if (num_shapes == kMaxShapes) {
    shapes[kMaxShapes - 1].flops += add.flops;
    return;
  }
  shapes[static_cast<size_t>(num_shapes++)] = add;
}

double GemmWork::WidthWeightedFlops(double split, double half_width) const {
  if (half_width <= 0 || num_shapes == 0) return flops;
  // 1 / w(n) = 1 + half_width / n.
  double f = 0;
  for (int i = 0; i < num_shapes; ++i) {
    const Shape& x = shapes[static_cast<size_t>(i)];
    const double n = std::min(x.small, x.large / split);
    f += n > 0 ? x.flops * (1.0 + half_width / n) : x.flops;
  }
  return f;
}

double BlockWork::ForwardFlops() const {
  return attn_proj.flops + attn_core.flops + mlp.flops + router.flops + top_k * expert.flops;
}

}  // namespace occam
