// Test fixtures: ModelSpecs written out by hand from the config files in
// data/models/ (so cost tests do not depend on the parsers).
#pragma once

#include "occam/spec.h"

namespace occam::testing {

inline ModelSpec Llama(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn) {
  ModelSpec m;
  m.name = "llama";
  m.num_layers = layers;
  m.hidden = hidden;
  m.vocab = 128256;
  m.attention.num_heads = heads;
  m.attention.num_kv_heads = 8;
  m.attention.head_dim = hidden / heads;
  m.ffn_hidden = ffn;
  return m;
}
// llama-3.1-8b-instruct.json, llama-3.1-70b-instruct.json
inline ModelSpec Llama8B() { return Llama(32, 4096, 32, 14336); }
inline ModelSpec Llama70B() { return Llama(80, 8192, 64, 28672); }

// mixtral-8x7b-instruct-v0.1.json
inline ModelSpec Mixtral8x7B() {
  ModelSpec m = Llama(32, 4096, 32, 14336);
  m.name = "mixtral";
  m.vocab = 32000;
  m.moe = MoeSpec{};
  m.moe->num_experts = 8;
  m.moe->top_k = 2;
  m.moe->expert_ffn = 14336;
  return m;
}

// deepseek-v3.json (kimi-k2-instruct.json differs in heads, experts, vocab, dense layers, MTP)
inline ModelSpec DeepSeekV3() {
  ModelSpec m;
  m.name = "deepseek-v3";
  m.num_layers = 61;
  m.hidden = 7168;
  m.vocab = 129280;
  m.attention.kind = AttentionKind::kMla;
  m.attention.num_heads = 128;
  m.attention.num_kv_heads = 128;
  m.attention.head_dim = 128 + 64;  // qk_nope + qk_rope (unused by MLA costs)
  m.attention.mla = MlaDims{1536, 512, 128, 64, 128};
  m.ffn_hidden = 18432;
  m.moe = MoeSpec{};
  m.moe->num_experts = 256;
  m.moe->top_k = 8;
  m.moe->num_shared_experts = 1;
  m.moe->expert_ffn = 2048;
  m.moe->shared_expert_ffn = 2048;
  m.moe->first_k_dense = 3;
  m.moe->num_groups = 8;
  m.moe->topk_groups = 4;
  m.mtp_layers = 1;
  return m;
}
inline ModelSpec KimiK2() {
  ModelSpec m = DeepSeekV3();
  m.name = "kimi-k2";
  m.vocab = 163840;
  m.attention.num_heads = 64;
  m.attention.num_kv_heads = 64;
  m.moe->num_experts = 384;
  m.moe->first_k_dense = 1;
  m.moe->num_groups = 1;
  m.moe->topk_groups = 1;
  m.mtp_layers = 0;
  return m;
}

// gpt-oss-120b.json
inline ModelSpec GptOss120B() {
  ModelSpec m;
  m.name = "gpt-oss-120b";
  m.num_layers = 36;
  m.hidden = 2880;
  m.vocab = 201088;
  m.attention.num_heads = 64;
  m.attention.num_kv_heads = 8;
  m.attention.head_dim = 64;
  m.attention.qkv_bias = true;
  m.attention.out_bias = true;
  m.attention.sliding_window = 128;
  m.attention.sliding_fraction = 0.5;
  m.ffn_hidden = 2880;
  m.moe = MoeSpec{};
  m.moe->num_experts = 128;
  m.moe->top_k = 4;
  m.moe->expert_ffn = 2880;
  m.moe->router_bias = true;
  m.moe->expert_bias = true;
  return m;
}

// gpt2-xl.json style GPT (LayerNorm, learned positions, biases, GeLU MLP, tied).
inline ModelSpec Gpt(int64_t layers, int64_t hidden, int64_t heads, int64_t vocab) {
  ModelSpec m;
  m.name = "gpt";
  m.num_layers = layers;
  m.hidden = hidden;
  m.vocab = vocab;
  m.attention.num_heads = heads;
  m.attention.num_kv_heads = heads;
  m.attention.head_dim = hidden / heads;
  m.attention.qkv_bias = true;
  m.attention.out_bias = true;
  m.ffn_hidden = 4 * hidden;
  m.gated_mlp = false;
  m.mlp_bias = true;
  m.tied_embeddings = true;
  m.learned_positions = 1024;
  m.norm = NormKind::kLayerNorm;
  return m;
}

}  // namespace occam::testing
