// What torchtitan's operator-level selective checkpointing keeps of a block
// (selective_ac_option = "op"; SelectiveAC / _apply_op_sac in
// torchtitan/distributed/activation_checkpoint.py at 82a9530,
// _apply_ac_to_transformer_block in parallelize_llama.py at 9dec370 before
// it). The policy is called on every aten op of a checkpointed block with a
// counter created afresh for each call of the block. It marks as must-save
// the outputs of the ops in the model's save list (aten.mm, the SDPA and
// flex-attention kernels, reduce-scatter, all-to-all, max) except every
// second aten.mm (the counter's even values); every other op is recomputed
// in backward. Matmuls whose weight shape is listed in
// per_op_sac_force_recompute_mm_shapes_by_fqns (default the MoE router's
// gate) are recomputed and not counted.
#include <array>

#include "cost/blocks.h"

namespace occam::cost_internal {
namespace {

// One projection of the block, in the order the model's forward runs it.
struct Projection {
  double in = 0;      // input width per token
  double out = 0;     // output width per token
  bool bias = false;  // biased: aten.addmm, not aten.mm (below)
  bool read = true;   // read by the block's backward
};

struct Projections {
  std::array<Projection, 12> p{};
  int n = 0;
  void Add(double in, double out, bool bias, bool read = true) {
    p[static_cast<size_t>(n++)] = {in, out, bias, read};
  }
};

// torchtitan's forward order: the attention's projections (q; q_a, q_b
// under MLA with a q latent; k, v or MLA's kv_a, kv_b; the output
// projection), then the MLP (w1, w3, w2 of a gated MLP; under MoE the
// router, force-recomputed, the routed experts' grouped GEMMs, no aten.mm,
// then the shared experts as one gated MLP of n_s x f_s, models/moe.py
// `FeedForward(dim, hidden_dim * num_shared_experts)`). The output
// projections feed only a residual add (or scatter_add onto the routed
// output), whose backward reads neither operand.
Projections BlockProjections(const ModelSpec& m, bool moe) {
  const AttentionSpec& at = m.attention;
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(at.num_heads);
  Projections x;
  if (at.kind == AttentionKind::kMla) {
    const MlaDims& d = at.mla;
    const double dqk = static_cast<double>(d.qk_nope_head_dim + d.qk_rope_head_dim);
    const double q_in = d.q_lora_rank > 0 ? static_cast<double>(d.q_lora_rank) : h;
    if (d.q_lora_rank > 0) x.Add(h, q_in, at.qkv_bias);
    x.Add(q_in, a * dqk, d.q_lora_rank > 0 ? false : at.qkv_bias);
    x.Add(h, static_cast<double>(d.kv_lora_rank + d.qk_rope_head_dim), at.qkv_bias);
    x.Add(static_cast<double>(d.kv_lora_rank),
          a * static_cast<double>(d.qk_nope_head_dim + d.v_head_dim), false);
    x.Add(a * static_cast<double>(d.v_head_dim), h, at.out_bias, false);
  } else {
    const double d = static_cast<double>(at.head_dim);
    x.Add(h, a * d, at.qkv_bias);
    x.Add(h, static_cast<double>(at.num_kv_heads) * d, at.qkv_bias);
    x.Add(h, static_cast<double>(at.num_kv_heads) * d, at.qkv_bias);
    x.Add(a * d, h, at.out_bias, false);
  }
  double f = static_cast<double>(m.ffn_hidden);
  bool bias = m.mlp_bias;
  if (moe) {
    f = static_cast<double>(m.moe->num_shared_experts * m.moe->shared_expert_ffn);
    bias = false;
  }
  if (f <= 0) return x;
  x.Add(h, f, bias);
  if (m.gated_mlp) x.Add(h, f, bias);
  x.Add(f, h, bias, false);
  return x;
}

// What the policy keeps and re-runs. Eager (JobSpec::
// eager_autograd) stores every must-save output as it is produced
// (_CachingTorchDispatchMode, torch/utils/checkpoint.py); compiled, the AOT
// min-cut partitioner (torch/_functorch/partitioners.py) saves a must-save
// node only where the backward reads it. A
// biased projection on a contiguous 3-D input is aten.addmm (PyTorch
// aten/src/ATen/native/Linear.cpp, linear's fused path), in no save list
// and not counted; it is re-run, as are the uncounted even ones.
struct Policy {
  double kept = 0;   // output elements per token kept
  double rerun = 0;  // FLOPs per token re-run in backward
  double all = 0;    // FLOPs per token of all the projections
};

Policy Apply(const Projections& x, bool eager) {
  Policy r;
  int count = 0;
  for (int i = 0; i < x.n; ++i) {
    const Projection& p = x.p[static_cast<size_t>(i)];
    const double flops = 2.0 * p.in * p.out;
    r.all += flops;
    const bool saved = !p.bias && ++count % 2 == 1;
    if (!saved) {
      // Re-run in backward: its output, or what it feeds, is needed there
      // (an unsaved output projection's sum feeds the next norm).
      r.rerun += flops;
    } else if (eager || p.read) {
      r.kept += p.out;
    }
  }
  return r;
}

}  // namespace

// Kept per token: the must-save projection outputs above, the attention
// output (a*d_v) and its fp32 log-sum-exp, the block's input, the router's
// top-k scores (fp32) and indices (int64); per routed copy, with ep > 1, the
// dispatch and combine all-to-all outputs (h each). The routed experts'
// aten._grouped_mm is in no save list, so a routed copy keeps nothing of its
// expert MLP.
void OpSacKept(const ModelSpec& m, bool moe, const ActivationOptions& o, BlockWork& b) {
  const AttentionSpec& at = m.attention;
  const double a = static_cast<double>(at.num_heads);
  const double dv =
      static_cast<double>(at.kind == AttentionKind::kMla ? at.mla.v_head_dim : at.head_dim);
  const Policy p = Apply(BlockProjections(m, moe), o.eager_autograd);
  b.act.op_tp = kAct * (p.kept + a * dv) + kFp32Bytes * a;
  b.op_rerun_share = p.all > 0 ? p.rerun / p.all : 0.0;
  constexpr double kIndexBytes = 8.0;  // int64 expert indices
  b.act.op_seq = kAct * static_cast<double>(m.hidden) + b.top_k * (kFp32Bytes + kIndexBytes);
  b.act.op_copy = b.top_k > 0 ? 2.0 * kAct * static_cast<double>(m.hidden) : 0.0;
}

}  // namespace occam::cost_internal
