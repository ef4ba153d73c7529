// Hugging Face config.json readers (transformers configuration_*.py field
// names) and DeepSeek's inference-config reader (deepseek-ai/DeepSeek-V3,
// inference/model.py ModelArgs). Keys occam does not need are ignored.
#include <string>

#include "spec/model_formats.h"

namespace occam::spec {
namespace {

using nlohmann::json;

constexpr std::string_view kHfTypes[] = {"llama",       "mixtral", "deepseek_v2", "deepseek_v3",
                                         "kimi_k2",     "gpt_oss", "glm4_moe",    "gemma3",
                                         "gemma3_text", "gpt2",    "qwen2_moe",   "qwen3_moe"};

// Per-type default of tie_word_embeddings when the key is absent
// (transformers: LlamaConfig/MixtralConfig/DeepseekV3Config/GptOssConfig/
// Glm4MoeConfig default False; GPT2Config inherits PretrainedConfig's True;
// Gemma3TextConfig defaults True).
bool DefaultTied(std::string_view type) {
  return type == "gpt2" || type == "gemma3" || type == "gemma3_text";
}

// Fraction of layers using sliding-window attention. `layer_types` (newer
// transformers) is exact; otherwise Gemma 3's `sliding_window_pattern` (every
// n-th layer global, Gemma3TextConfig default 6); otherwise a non-null
// `sliding_window` applies to every layer (Mistral/Mixtral semantics).
Status ReadSliding(const Node& n, int64_t layers, std::string_view type, AttentionSpec& attn) {
  if (type == "gemma3_text" && !n.Has("sliding_window")) {
    // Gemma 3 always mixes local and global layers; do not guess the window.
    return n.Error("sliding_window", "is required for Gemma 3 (local attention window)");
  }
  OCCAM_ASSIGN_OR_RETURN(attn.sliding_window, IntAtLeast(n, "sliding_window", 0, 0));
  if (attn.sliding_window == 0) return Status::Ok();
  if (n.Has("layer_types")) {
    OCCAM_ASSIGN_OR_RETURN(const json* types, n.Array("layer_types"));
    if (static_cast<int64_t>(types->size()) != layers) {
      return n.Error("layer_types", "has " + std::to_string(types->size()) +
                                        " entries but num_hidden_layers is " +
                                        std::to_string(layers));
    }
    int64_t sliding = 0;
    for (const auto& t : *types) sliding += t.is_string() && t == "sliding_attention";
    attn.sliding_fraction = static_cast<double>(sliding) / static_cast<double>(layers);
    return Status::Ok();
  }
  if (type == "gemma3_text" || type == "gemma3") {
    const std::string key =
        n.Has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
    OCCAM_ASSIGN_OR_RETURN(int64_t pattern, IntAtLeast(n, key, 1, 6));
    attn.sliding_fraction =
        static_cast<double>(layers - layers / pattern) / static_cast<double>(layers);
    return Status::Ok();
  }
  if (type == "gpt_oss") {
    attn.sliding_fraction = static_cast<double>(layers / 2 + layers % 2) / layers;  // even layers
    return Status::Ok();
  }
  attn.sliding_fraction = 1.0;
  return Status::Ok();
}

// Fields shared by Llama-style decoders (llama, mixtral, gpt_oss, glm4_moe,
// gemma3_text, qwen*_moe).
Status ReadLlamaLike(const Node& n, std::string_view type, ModelSpec& m) {
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, IntAtLeast(n, "num_hidden_layers", 1));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, IntAtLeast(n, "hidden_size", 1));
  const int64_t gemma_vocab = 262208;  // Gemma3TextConfig default vocab_size
  if (type == "gemma3_text") {
    OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab_size", 1, gemma_vocab));
  } else {
    OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab_size", 1));
  }
  auto& a = m.attention;
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, IntAtLeast(n, "num_attention_heads", 1));
  OCCAM_ASSIGN_OR_RETURN(a.num_kv_heads, IntAtLeast(n, "num_key_value_heads", 1, a.num_heads));
  if (n.Has("head_dim")) {
    OCCAM_ASSIGN_OR_RETURN(a.head_dim, IntAtLeast(n, "head_dim", 1));
  } else if (m.hidden % a.num_heads != 0) {
    return n.Error("num_attention_heads", "must divide hidden_size " + std::to_string(m.hidden) +
                                              " when head_dim is not given");
  } else {
    a.head_dim = m.hidden / a.num_heads;
  }
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, IntAtLeast(n, "intermediate_size", 1));
  OCCAM_ASSIGN_OR_RETURN(bool attn_bias, n.Bool("attention_bias", false));
  a.qkv_bias = attn_bias;
  a.out_bias = attn_bias;
  OCCAM_ASSIGN_OR_RETURN(m.mlp_bias, n.Bool("mlp_bias", false));
  OCCAM_ASSIGN_OR_RETURN(m.tied_embeddings, n.Bool("tie_word_embeddings", DefaultTied(type)));
  return ReadSliding(n, m.num_layers, type, a);
}

// The routed-expert fields DeepseekV3Config and Glm4MoeConfig share
// (transformers configuration_deepseek_v3.py, configuration_glm4_moe.py):
// the shared experts have the routed experts' width; a missing
// moe_layer_freq means every layer past first_k_dense_replace is MoE.
Result<MoeSpec> ReadRoutedMoe(const Node& n) {
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "n_routed_experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, "num_experts_per_tok", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.num_shared_experts, IntAtLeast(n, "n_shared_experts", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(moe.expert_ffn, IntAtLeast(n, "moe_intermediate_size", 1));
  moe.shared_expert_ffn = moe.num_shared_experts > 0 ? moe.expert_ffn : 0;
  OCCAM_ASSIGN_OR_RETURN(moe.first_k_dense, IntAtLeast(n, "first_k_dense_replace", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(moe.layer_freq, IntAtLeast(n, "moe_layer_freq", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.num_groups, IntAtLeast(n, "n_group", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.topk_groups, IntAtLeast(n, "topk_group", 1, 1));
  return moe;
}

// DeepSeek-V2/V3 and Kimi K2 (DeepseekV3Config field names).
Status ReadDeepSeekHf(const Node& n, ModelSpec& m) {
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, IntAtLeast(n, "num_hidden_layers", 1));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, IntAtLeast(n, "hidden_size", 1));
  OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab_size", 1));
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, IntAtLeast(n, "intermediate_size", 1));
  auto& a = m.attention;
  a.kind = AttentionKind::kMla;
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, IntAtLeast(n, "num_attention_heads", 1));
  a.num_kv_heads = a.num_heads;  // MLA expands the latent to per-head K and V
  OCCAM_ASSIGN_OR_RETURN(a.mla.q_lora_rank, IntAtLeast(n, "q_lora_rank", 0, 0));  // null: V2-Lite
  OCCAM_ASSIGN_OR_RETURN(a.mla.kv_lora_rank, IntAtLeast(n, "kv_lora_rank", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.qk_nope_head_dim, IntAtLeast(n, "qk_nope_head_dim", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.qk_rope_head_dim, IntAtLeast(n, "qk_rope_head_dim", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.v_head_dim, IntAtLeast(n, "v_head_dim", 1));
  a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
  OCCAM_ASSIGN_OR_RETURN(bool attn_bias, n.Bool("attention_bias", false));
  a.qkv_bias = attn_bias;
  a.out_bias = attn_bias;
  OCCAM_ASSIGN_OR_RETURN(m.tied_embeddings, n.Bool("tie_word_embeddings", false));
  OCCAM_ASSIGN_OR_RETURN(m.mtp_layers, IntAtLeast(n, "num_nextn_predict_layers", 0, 0));
  if (!n.Has("n_routed_experts")) return Status::Ok();  // a dense DeepSeek variant
  OCCAM_ASSIGN_OR_RETURN(m.moe, ReadRoutedMoe(n));
  return Status::Ok();
}

Status ReadMixtral(const Node& n, ModelSpec& m) {
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "num_local_experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, "num_experts_per_tok", 1));
  moe.expert_ffn = m.ffn_hidden;  // every layer is MoE; intermediate_size is the expert's
  m.moe = moe;
  return Status::Ok();
}

// gpt-oss: biased attention (q/k/v/o), router with bias, experts with
// biases and the clamped SwiGLU (swiglu_limit; transformers
// modeling_gpt_oss.py).
Status ReadGptOss(const Node& n, ModelSpec& m) {
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "num_local_experts", 1));
  const std::string topk_key =
      n.Has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, topk_key, 1));
  moe.expert_ffn = m.ffn_hidden;
  moe.router_bias = true;
  moe.expert_bias = true;
  m.moe = moe;
  m.clamped_swiglu = true;
  return Status::Ok();
}

// GLM-4.5: q/k/v bias from attention_bias, no o_proj bias (modeling_glm4_moe.py).
Status ReadGlm4Moe(const Node& n, ModelSpec& m) {
  m.attention.out_bias = false;
  OCCAM_ASSIGN_OR_RETURN(m.moe, ReadRoutedMoe(n));
  OCCAM_ASSIGN_OR_RETURN(m.mtp_layers, IntAtLeast(n, "num_nextn_predict_layers", 0, 0));
  return Status::Ok();
}

// Qwen2-MoE / Qwen3-MoE: every `decoder_sparse_step`-th layer is MoE; Qwen2
// adds one shared expert of `shared_expert_intermediate_size`.
Status ReadQwenMoe(const Node& n, std::string_view type, ModelSpec& m) {
  OCCAM_ASSIGN_OR_RETURN(bool qkv_bias, n.Bool("attention_bias", type == "qwen2_moe"));
  m.attention.qkv_bias = qkv_bias;
  m.attention.out_bias = false;
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "num_experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, "num_experts_per_tok", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.expert_ffn, IntAtLeast(n, "moe_intermediate_size", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.layer_freq, IntAtLeast(n, "decoder_sparse_step", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.shared_expert_ffn,
                         IntAtLeast(n, "shared_expert_intermediate_size", 0, 0));
  moe.num_shared_experts = moe.shared_expert_ffn > 0 ? 1 : 0;
  if (n.Has("mlp_only_layers")) {
    OCCAM_ASSIGN_OR_RETURN(const json* dense, n.Array("mlp_only_layers"));
    if (!dense->empty()) {
      return n.Error("mlp_only_layers",
                     "lists dense layers; occam models only leading dense "
                     "layers (write an occam model file instead)");
    }
  }
  m.moe = moe;
  return Status::Ok();
}

// GPT-2: LayerNorm, learned positions, GeLU MLP of n_inner (default 4h),
// biases everywhere, tied LM head (transformers GPT2Config).
Status ReadGpt2(const Node& n, ModelSpec& m) {
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, IntAtLeast(n, "n_layer", 1));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, IntAtLeast(n, "n_embd", 1));
  OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab_size", 1));
  OCCAM_ASSIGN_OR_RETURN(m.learned_positions, IntAtLeast(n, "n_positions", 1));
  auto& a = m.attention;
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, IntAtLeast(n, "n_head", 1));
  if (m.hidden % a.num_heads != 0) {
    return n.Error("n_head", "must divide n_embd " + std::to_string(m.hidden));
  }
  a.num_kv_heads = a.num_heads;
  a.head_dim = m.hidden / a.num_heads;
  a.qkv_bias = a.out_bias = true;
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, IntAtLeast(n, "n_inner", 1, 4 * m.hidden));
  m.gated_mlp = false;
  m.mlp_bias = true;
  m.norm = NormKind::kLayerNorm;
  OCCAM_ASSIGN_OR_RETURN(m.tied_embeddings, n.Bool("tie_word_embeddings", true));
  return Status::Ok();
}

}  // namespace

std::string SupportedModelTypes() {
  std::string s;
  for (std::string_view t : kHfTypes) s += (s.empty() ? "" : ", ") + std::string(t);
  return s;
}

Result<int64_t> IntAtLeast(const Node& node, std::string_view key, int64_t min) {
  OCCAM_ASSIGN_OR_RETURN(int64_t v, node.Int(key));
  if (v < min) {
    return node.Error(key,
                      "must be >= " + std::to_string(min) + " (got " + std::to_string(v) + ")");
  }
  return v;
}

Result<int64_t> IntAtLeast(const Node& node, std::string_view key, int64_t min, int64_t fallback) {
  if (!node.Has(key)) return fallback;
  return IntAtLeast(node, key, min);
}

Result<ModelSpec> ReadHfModel(const Node& root) {
  OCCAM_ASSIGN_OR_RETURN(std::string type, root.String("model_type"));
  ModelSpec m;
  m.model_type = type;
  Node n = root;
  if (type == "gemma3") {  // multimodal wrapper: the decoder is in text_config
    OCCAM_ASSIGN_OR_RETURN(n, root.Object("text_config"));
  }
  if (type == "deepseek_v2" || type == "deepseek_v3" || type == "kimi_k2") {
    OCCAM_RETURN_IF_ERROR(ReadDeepSeekHf(n, m));
    return m;
  }
  if (type == "gpt2") {
    OCCAM_RETURN_IF_ERROR(ReadGpt2(n, m));
    return m;
  }
  bool known = false;
  for (std::string_view t : kHfTypes) known = known || t == type;
  if (!known) {
    return root.Error("model_type", "'" + type +
                                        "' is not supported (supported: " + SupportedModelTypes() +
                                        "); describe other models in occam's model format");
  }
  OCCAM_RETURN_IF_ERROR(ReadLlamaLike(n, type == "gemma3" ? "gemma3_text" : type, m));
  if (type == "mixtral") OCCAM_RETURN_IF_ERROR(ReadMixtral(n, m));
  if (type == "gpt_oss") OCCAM_RETURN_IF_ERROR(ReadGptOss(n, m));
  if (type == "glm4_moe") OCCAM_RETURN_IF_ERROR(ReadGlm4Moe(n, m));
  if (type == "qwen2_moe" || type == "qwen3_moe") OCCAM_RETURN_IF_ERROR(ReadQwenMoe(n, type, m));
  return m;
}

// DeepSeek inference/model.py ModelArgs: groups default to 1 and q_lora_rank
// to 0 there; the format has no multi-token-prediction field (the reference
// inference code carries no MTP module), so mtp_layers stays 0.
Result<ModelSpec> ReadDeepSeekInferenceModel(const Node& n) {
  ModelSpec m;
  m.model_type = "deepseek_inference";
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, IntAtLeast(n, "n_layers", 1));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, IntAtLeast(n, "dim", 1));
  OCCAM_ASSIGN_OR_RETURN(m.vocab, IntAtLeast(n, "vocab_size", 1));
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, IntAtLeast(n, "inter_dim", 1));
  auto& a = m.attention;
  a.kind = AttentionKind::kMla;
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, IntAtLeast(n, "n_heads", 1));
  a.num_kv_heads = a.num_heads;
  OCCAM_ASSIGN_OR_RETURN(a.mla.q_lora_rank, IntAtLeast(n, "q_lora_rank", 0, 0));
  OCCAM_ASSIGN_OR_RETURN(a.mla.kv_lora_rank, IntAtLeast(n, "kv_lora_rank", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.qk_nope_head_dim, IntAtLeast(n, "qk_nope_head_dim", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.qk_rope_head_dim, IntAtLeast(n, "qk_rope_head_dim", 1));
  OCCAM_ASSIGN_OR_RETURN(a.mla.v_head_dim, IntAtLeast(n, "v_head_dim", 1));
  a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
  MoeSpec moe;
  OCCAM_ASSIGN_OR_RETURN(moe.num_experts, IntAtLeast(n, "n_routed_experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.top_k, IntAtLeast(n, "n_activated_experts", 1));
  OCCAM_ASSIGN_OR_RETURN(moe.num_shared_experts, IntAtLeast(n, "n_shared_experts", 0));
  OCCAM_ASSIGN_OR_RETURN(moe.expert_ffn, IntAtLeast(n, "moe_inter_dim", 1));
  moe.shared_expert_ffn = moe.num_shared_experts > 0 ? moe.expert_ffn : 0;
  OCCAM_ASSIGN_OR_RETURN(moe.first_k_dense, IntAtLeast(n, "n_dense_layers", 0));
  OCCAM_ASSIGN_OR_RETURN(moe.num_groups, IntAtLeast(n, "n_expert_groups", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(moe.topk_groups, IntAtLeast(n, "n_limited_groups", 1, 1));
  m.moe = moe;
  return m;
}

}  // namespace occam::spec
