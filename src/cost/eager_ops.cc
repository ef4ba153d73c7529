// The element-wise HBM traffic of a block whose PyTorch ops run eagerly
// (JobSpec::eager_autograd: a torchtitan model that is not compiled), beyond
// the fused kernels BuildBlock counts. Each eager op is its own kernel and
// reads its inputs and writes its output; the ops are torchtitan's
// (pytorch/torchtitan at 9dec370: models/norms.py RMSNorm, models/llama/
// model.py apply_rotary_emb, repeat_kv, Attention.forward, FeedForward).
// Bytes per token, forward; the backward's element-wise passes are counted
// from the forward's (layer_cost.cc).
#include "cost/blocks.h"

namespace occam::cost_internal {
namespace {

// RMSNorm `self._norm(x.float()).type_as(x) * self.weight`, _norm = x *
// torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps), per element of h:
// float (read 2, write 4), pow (4 + 4), mean (read 4), the product (4 + 4),
// type_as (4 + 2), the weight's product (2 + 2): 36 B against the 4 B
// (read and write 2 B) of a fused norm.
constexpr double kEagerNormExtra = 36.0 - 4.0;

// apply_rotary_emb, per element of q and k: float (2 + 4), the complex
// product with the frequencies (4 + 4), type_as (4 + 2): 20 B against the
// 4 B of a fused rope.
constexpr double kEagerRopeExtra = 20.0 - 4.0;

// F.silu(w1(x)) * w3(x), per element of the MLP width: silu (2 + 2), the
// product (4 + 2): 10 B against the 6 B of a fused gated activation.
constexpr double kEagerGateExtra = 10.0 - 6.0;

}  // namespace

double EagerElementwiseBytes(const ModelSpec& m, bool moe) {
  const AttentionSpec& at = m.attention;
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(at.num_heads);
  double bytes = 2.0 * kEagerNormExtra * h;
  if (at.kind == AttentionKind::kMla) {
    // torchtitan's MLA (models/deepseek_v3/model/model.py at 82a9530): RoPE
    // on the a query and one key rope parts, and the attention output's
    // transpose(1, 2).contiguous() copy of a d_v. The concatenations of the
    // nope and rope parts of q and k are not counted.
    const double rope = static_cast<double>(at.mla.qk_rope_head_dim);
    bytes += kEagerRopeExtra * (a + 1.0) * rope;
    bytes += 2.0 * kActivationBytes * a * static_cast<double>(at.mla.v_head_dim);
  } else {
    const double d = static_cast<double>(at.head_dim), akv = static_cast<double>(at.num_kv_heads);
    bytes += kEagerRopeExtra * (a + akv) * d;
    // repeat_kv expands k and v to every query head and reshapes the
    // expanded view, a copy: read akv d, write a d, 2 B each, for both.
    if (akv < a) bytes += 2.0 * kActivationBytes * (akv + a) * d;
    // output.transpose(1, 2).contiguous(): read and write a d.
    bytes += 2.0 * kActivationBytes * a * d;
  }
  if (!m.gated_mlp) return bytes;
  double width = static_cast<double>(m.ffn_hidden);
  if (moe) {
    const MoeSpec& e = *m.moe;
    width =
        static_cast<double>(e.num_shared_experts * e.shared_expert_ffn + e.top_k * e.expert_ffn);
  }
  return bytes + kEagerGateExtra * width;
}

}  // namespace occam::cost_internal
