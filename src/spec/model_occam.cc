// occam's own model format (doc/input-formats.md, "Model files"): strict,
// every key known, defaults as in ModelSpec.
#include <string>

#include "occam/message.h"
#include "spec/model_formats.h"

namespace occam::spec {
namespace {

Status ReadAttention(const Node& n, int64_t hidden, AttentionSpec& a) {
  OCCAM_RETURN_IF_ERROR(
      n.CheckKeys({"kind", "heads", "kv_heads", "head_dim", "qkv_bias", "out_bias",
                   "sliding_window", "sliding_fraction", "q_lora_rank", "kv_lora_rank",
                   "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}));
  OCCAM_ASSIGN_OR_RETURN(std::string kind, n.String("kind", "gqa"));
  if (kind != "gqa" && kind != "mla")
    return n.Error("kind", "must be gqa or mla (got " + Echo(kind) + ")");
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, IntAtLeast(n, "heads", 1));
  OCCAM_ASSIGN_OR_RETURN(a.qkv_bias, n.Bool("qkv_bias", false));
  OCCAM_ASSIGN_OR_RETURN(a.out_bias, n.Bool("out_bias", false));
  OCCAM_ASSIGN_OR_RETURN(a.sliding_window, IntAtLeast(n, "sliding_window", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(a.sliding_fraction, n.Number("sliding_fraction", 0.0));
  if (a.sliding_fraction < 0 || a.sliding_fraction > 1) {
    return n.Error("sliding_fraction",
                   "must be in [0, 1] (got " + std::to_string(a.sliding_fraction) + ")");
  }
  if (kind == "mla") {
    a.kind = AttentionKind::kMla;
    a.num_kv_heads = a.num_heads;
    OCCAM_ASSIGN_OR_RETURN(a.mla.q_lora_rank, IntAtLeast(n, "q_lora_rank", 0, 0));
    OCCAM_ASSIGN_OR_RETURN(a.mla.kv_lora_rank, IntAtLeast(n, "kv_lora_rank", 1));
    OCCAM_ASSIGN_OR_RETURN(a.mla.qk_nope_head_dim, IntAtLeast(n, "qk_nope_head_dim", 1));
    OCCAM_ASSIGN_OR_RETURN(a.mla.qk_rope_head_dim, IntAtLeast(n, "qk_rope_head_dim", 1));
    OCCAM_ASSIGN_OR_RETURN(a.mla.v_head_dim, IntAtLeast(n, "v_head_dim", 1));
    a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
    for (std::string_view k : {"kv_heads", "head_dim"}) {
      if (n.Has(k)) return n.Error(k, "does not apply to kind mla (remove it)");
    }
    return Status::Ok();
  }
  for (std::string_view k :
       {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
    if (n.Has(k)) return n.Error(k, "applies only to kind mla (set kind: mla or remove it)");
  }
  OCCAM_ASSIGN_OR_RETURN(a.num_kv_heads, IntAtLeast(n, "kv_heads", 1, a.num_heads));
  if (!n.Has("head_dim") && hidden % a.num_heads != 0) {
    return n.Error("heads",
                   "must divide hidden " + std::to_string(hidden) + " unless head_dim is given");
  }
  OCCAM_ASSIGN_OR_RETURN(a.head_dim, IntAtLeast(n, "head_dim", 1, hidden / a.num_heads));
  return Status::Ok();
}

Result<MoeSpec> ReadMoe(const Node& n) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"experts", "top_k", "shared_experts", "expert_ffn",
                                     "shared_expert_ffn", "first_k_dense", "layer_freq", "groups",
                                     "topk_groups", "router_bias", "expert_bias"}));
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, "top_k", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.num_shared_experts, IntAtLeast(n, "shared_experts", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(moe.expert_ffn, IntAtLeast(n, "expert_ffn", 1));
  OCCAM_ASSIGN_OR_RETURN(
      moe.shared_expert_ffn,
      IntAtLeast(n, "shared_expert_ffn", 1, moe.num_shared_experts > 0 ? moe.expert_ffn : 0));
  OCCAM_ASSIGN_OR_RETURN(moe.first_k_dense, IntAtLeast(n, "first_k_dense", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(moe.layer_freq, IntAtLeast(n, "layer_freq", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.num_groups, IntAtLeast(n, "groups", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.topk_groups, IntAtLeast(n, "topk_groups", 1, moe.num_groups));
  OCCAM_ASSIGN_OR_RETURN(moe.router_bias, n.Bool("router_bias", false));
  OCCAM_ASSIGN_OR_RETURN(moe.expert_bias, n.Bool("expert_bias", false));
  return moe;
}

}  // namespace

Result<ModelSpec> ReadOccamModel(const Node& root) {
  OCCAM_RETURN_IF_ERROR(root.CheckKeys({"model"}));
  OCCAM_ASSIGN_OR_RETURN(Node n, root.Object("model"));
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"name", "layers", "hidden", "vocab", "ffn_hidden", "gated_mlp",
                                     "mlp_bias", "norm", "tied_embeddings", "learned_positions",
                                     "mtp_layers", "attention", "moe"}));
  ModelSpec m;
  m.model_type = "occam";
  OCCAM_ASSIGN_OR_RETURN(m.name, n.String("name", ""));
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, IntAtLeast(n, "layers", 1));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, IntAtLeast(n, "hidden", 1));
  OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab", 1));
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, IntAtLeast(n, "ffn_hidden", 1));
  OCCAM_ASSIGN_OR_RETURN(m.gated_mlp, n.Bool("gated_mlp", true));
  OCCAM_ASSIGN_OR_RETURN(m.mlp_bias, n.Bool("mlp_bias", false));
  OCCAM_ASSIGN_OR_RETURN(std::string norm, n.String("norm", "rmsnorm"));
  if (norm == "rmsnorm") {
    m.norm = NormKind::kRmsNorm;
  } else if (norm == "layernorm") {
    m.norm = NormKind::kLayerNorm;
  } else {
    return n.Error("norm", "must be rmsnorm or layernorm (got " + Echo(norm) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(m.tied_embeddings, n.Bool("tied_embeddings", false));
  OCCAM_ASSIGN_OR_RETURN(m.learned_positions, IntAtLeast(n, "learned_positions", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(m.mtp_layers, IntAtLeast(n, "mtp_layers", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(Node attn, n.Object("attention"));
  OCCAM_RETURN_IF_ERROR(ReadAttention(attn, m.hidden, m.attention));
  if (n.Has("moe")) {
    OCCAM_ASSIGN_OR_RETURN(Node moe_node, n.Object("moe"));
    OCCAM_ASSIGN_OR_RETURN(m.moe, ReadMoe(moe_node));
  }
  return m;
}

}  // namespace occam::spec
