// Model parsers: every bundled config, exact structural values from the
// config files and papers, and error messages with key paths.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "occam/spec.h"

namespace occam {
namespace {

ModelSpec Catalog(const std::string& name) {
  auto m = CatalogModel(name);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : ModelSpec{};
}

std::string ErrorOf(std::string_view text, std::string_view origin = "m.json") {
  auto m = ParseModel(text, origin);
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : m.status().message();
}

TEST(ModelCatalog, EveryBundledConfigParsesAndValidates) {
  ASSERT_GE(CatalogModelNames().size(), 12u);
  for (const auto& name : CatalogModelNames()) {
    auto m = CatalogModel(name);
    ASSERT_TRUE(m.ok()) << name << ": " << m.status().message();
    EXPECT_EQ(m->name, name);
    EXPECT_TRUE(ValidateModel(*m, name).ok());
  }
}

TEST(ModelCatalog, UnknownNameListsTheCatalog) {
  auto m = CatalogModel("deepseek-v9");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("deepseek-v3"), std::string::npos);
}

// DeepSeek-V3 technical report (arXiv:2412.19437 §4.2): 61 layers, hidden
// 7168, MLA with d_c 512, d'_c 1536, d^R_h 64, d_h 128; 1 shared + 256 routed
// experts of 2048, top-8 over 4 of 8 groups; first 3 layers dense; 1 MTP module.
TEST(ModelParse, DeepSeekV3HfConfig) {
  const ModelSpec m = Catalog("deepseek-v3");
  EXPECT_EQ(m.model_type, "deepseek_v3");
  EXPECT_EQ(m.num_layers, 61);
  EXPECT_EQ(m.hidden, 7168);
  EXPECT_EQ(m.vocab, 129280);
  EXPECT_EQ(m.ffn_hidden, 18432);
  EXPECT_EQ(m.attention.kind, AttentionKind::kMla);
  EXPECT_EQ(m.attention.num_heads, 128);
  EXPECT_EQ(m.attention.num_kv_heads, 128);
  EXPECT_EQ(m.attention.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.attention.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.attention.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.attention.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.attention.mla.v_head_dim, 128);
  EXPECT_EQ(m.attention.head_dim, 128 + 64);
  ASSERT_TRUE(m.moe.has_value());
  EXPECT_EQ(m.moe->num_experts, 256);
  EXPECT_EQ(m.moe->top_k, 8);
  EXPECT_EQ(m.moe->num_shared_experts, 1);
  EXPECT_EQ(m.moe->expert_ffn, 2048);
  EXPECT_EQ(m.moe->shared_expert_ffn, 2048);
  EXPECT_EQ(m.moe->first_k_dense, 3);
  EXPECT_EQ(m.moe->layer_freq, 1);
  EXPECT_EQ(m.moe->num_groups, 8);
  EXPECT_EQ(m.moe->topk_groups, 4);
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.norm, NormKind::kRmsNorm);
}

// The inference config of the same model agrees with the HF config on every
// architecture field (it has no MTP field).
TEST(ModelParse, DeepSeekInferenceConfigMatchesHf) {
  const ModelSpec hf = Catalog("deepseek-v3");
  auto inf = CatalogModel("deepseek-v3.1");
  ASSERT_TRUE(inf.ok());
  EXPECT_EQ(inf->model_type, "deepseek_inference");
  EXPECT_EQ(inf->num_layers, hf.num_layers);
  EXPECT_EQ(inf->hidden, hf.hidden);
  EXPECT_EQ(inf->vocab, hf.vocab);
  EXPECT_EQ(inf->ffn_hidden, hf.ffn_hidden);
  EXPECT_EQ(inf->attention.mla.q_lora_rank, hf.attention.mla.q_lora_rank);
  EXPECT_EQ(inf->attention.mla.kv_lora_rank, hf.attention.mla.kv_lora_rank);
  EXPECT_EQ(inf->moe->num_experts, hf.moe->num_experts);
  EXPECT_EQ(inf->moe->top_k, hf.moe->top_k);
  EXPECT_EQ(inf->moe->first_k_dense, hf.moe->first_k_dense);
  EXPECT_EQ(inf->moe->num_groups, hf.moe->num_groups);
  EXPECT_EQ(inf->moe->topk_groups, hf.moe->topk_groups);
  EXPECT_EQ(inf->mtp_layers, 0);
}

// DeepSeek-V2 (arXiv:2405.04434 §3.1.2): 60 layers, 5120 hidden, 128 heads,
// 2 shared + 160 routed experts, 6 activated, device-limited to 3 groups.
// V2-Lite: 27 layers, no query compression, 64 routed experts.
TEST(ModelParse, DeepSeekV2AndLite) {
  const ModelSpec v2 = Catalog("deepseek-v2");
  EXPECT_EQ(v2.num_layers, 60);
  EXPECT_EQ(v2.hidden, 5120);
  EXPECT_EQ(v2.moe->num_experts, 160);
  EXPECT_EQ(v2.moe->num_shared_experts, 2);
  EXPECT_EQ(v2.moe->top_k, 6);
  EXPECT_EQ(v2.moe->num_groups, 8);
  EXPECT_EQ(v2.moe->topk_groups, 3);
  EXPECT_EQ(v2.moe->first_k_dense, 1);
  const ModelSpec lite = Catalog("deepseek-v2-lite");
  EXPECT_EQ(lite.num_layers, 27);
  EXPECT_EQ(lite.attention.mla.q_lora_rank, 0);
  EXPECT_EQ(lite.moe->num_experts, 64);
  EXPECT_EQ(lite.moe->num_groups, 1);
}

// Kimi K2 uses the DeepSeek-V3 schema: 384 experts, 64 heads, 1 dense layer.
TEST(ModelParse, KimiK2) {
  const ModelSpec m = Catalog("kimi-k2");
  EXPECT_EQ(m.attention.kind, AttentionKind::kMla);
  EXPECT_EQ(m.attention.num_heads, 64);
  EXPECT_EQ(m.moe->num_experts, 384);
  EXPECT_EQ(m.moe->top_k, 8);
  EXPECT_EQ(m.moe->first_k_dense, 1);
  EXPECT_EQ(m.moe->num_groups, 1);
  EXPECT_EQ(m.mtp_layers, 0);
}

TEST(ModelParse, LlamaGqa) {
  const ModelSpec m = Catalog("llama-3.1-70b");
  EXPECT_EQ(m.attention.kind, AttentionKind::kGqa);
  EXPECT_EQ(m.num_layers, 80);
  EXPECT_EQ(m.attention.num_heads, 64);
  EXPECT_EQ(m.attention.num_kv_heads, 8);
  EXPECT_EQ(m.attention.head_dim, 8192 / 64);
  EXPECT_EQ(m.ffn_hidden, 28672);
  EXPECT_FALSE(m.moe.has_value());
  EXPECT_TRUE(m.gated_mlp);
  EXPECT_FALSE(m.attention.qkv_bias);
  const ModelSpec small = Catalog("llama-3.1-8b");
  EXPECT_EQ(small.num_layers, 32);
  EXPECT_EQ(small.vocab, 128256);
}

TEST(ModelParse, MixtralEveryLayerMoe) {
  const ModelSpec m = Catalog("mixtral-8x7b");
  ASSERT_TRUE(m.moe.has_value());
  EXPECT_EQ(m.moe->num_experts, 8);
  EXPECT_EQ(m.moe->top_k, 2);
  EXPECT_EQ(m.moe->expert_ffn, 14336);
  EXPECT_EQ(m.moe->first_k_dense, 0);
  EXPECT_EQ(m.moe->num_shared_experts, 0);
  EXPECT_EQ(m.attention.sliding_window, 0);  // "sliding_window": null
}

// gpt-oss-120b: 36 layers, 128 experts top-4, alternating 128-token sliding
// windows, biases on attention, router and experts.
TEST(ModelParse, GptOss) {
  const ModelSpec m = Catalog("gpt-oss-120b");
  EXPECT_EQ(m.num_layers, 36);
  EXPECT_EQ(m.attention.head_dim, 64);
  EXPECT_EQ(m.attention.num_heads, 64);
  EXPECT_EQ(m.attention.num_kv_heads, 8);
  EXPECT_TRUE(m.attention.qkv_bias);
  EXPECT_TRUE(m.attention.out_bias);
  EXPECT_EQ(m.attention.sliding_window, 128);
  EXPECT_DOUBLE_EQ(m.attention.sliding_fraction, 0.5);
  EXPECT_EQ(m.moe->num_experts, 128);
  EXPECT_EQ(m.moe->top_k, 4);
  EXPECT_EQ(m.moe->expert_ffn, 2880);
  EXPECT_TRUE(m.moe->router_bias);
  EXPECT_TRUE(m.moe->expert_bias);
}

TEST(ModelParse, Glm45) {
  const ModelSpec m = Catalog("glm-4.5");
  EXPECT_EQ(m.num_layers, 92);
  EXPECT_EQ(m.attention.num_heads, 96);
  EXPECT_EQ(m.attention.head_dim, 128);
  EXPECT_TRUE(m.attention.qkv_bias);
  EXPECT_FALSE(m.attention.out_bias);
  EXPECT_EQ(m.moe->num_experts, 160);
  EXPECT_EQ(m.moe->num_shared_experts, 1);
  EXPECT_EQ(m.moe->first_k_dense, 3);
  EXPECT_EQ(m.mtp_layers, 1);
}

// Gemma 3 27B: 5 local (1024-token window) : 1 global; 62 layers give
// 62 - floor(62/6) = 52 sliding layers.
TEST(ModelParse, Gemma3NestedTextConfig) {
  const ModelSpec m = Catalog("gemma-3-27b");
  EXPECT_EQ(m.num_layers, 62);
  EXPECT_EQ(m.hidden, 5376);
  EXPECT_EQ(m.attention.head_dim, 128);
  EXPECT_EQ(m.attention.num_kv_heads, 16);
  EXPECT_EQ(m.attention.sliding_window, 1024);
  EXPECT_DOUBLE_EQ(m.attention.sliding_fraction, (62.0 - 62 / 6) / 62.0);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_TRUE(m.gated_mlp);
}

// Without layer_types the Gemma 3 pattern rule gives the same fraction.
TEST(ModelParse, Gemma3PatternWithoutLayerTypes) {
  auto m = ParseModel(R"({"model_type": "gemma3_text", "num_hidden_layers": 62,
      "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16,
      "head_dim": 128, "intermediate_size": 21504, "sliding_window": 1024,
      "sliding_window_pattern": 6})",
                      "g.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_DOUBLE_EQ(m->attention.sliding_fraction, 52.0 / 62.0);
  EXPECT_EQ(m->vocab, 262208);
}

// GPT-2 XL (1.5B): 48 layers, 1600 hidden, 25 heads, GeLU MLP 4h, learned
// positions, LayerNorm, biases, tied embeddings.
TEST(ModelParse, Gpt2) {
  const ModelSpec m = Catalog("gpt2-xl");
  EXPECT_EQ(m.num_layers, 48);
  EXPECT_EQ(m.hidden, 1600);
  EXPECT_EQ(m.attention.num_heads, 25);
  EXPECT_EQ(m.attention.head_dim, 64);
  EXPECT_EQ(m.ffn_hidden, 4 * 1600);
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_TRUE(m.mlp_bias);
  EXPECT_TRUE(m.attention.qkv_bias);
  EXPECT_EQ(m.learned_positions, 1024);
  EXPECT_EQ(m.norm, NormKind::kLayerNorm);
  EXPECT_TRUE(m.tied_embeddings);
}

TEST(ModelParse, OccamYamlFormat) {
  auto m = ParseModel(R"(
model:
  name: tiny-moe
  layers: 4
  hidden: 512
  vocab: 1000
  ffn_hidden: 2048
  attention:
    heads: 8
    kv_heads: 2
  moe:
    experts: 16
    top_k: 2
    expert_ffn: 256
    shared_experts: 1
    first_k_dense: 1
)",
                      "tiny.yaml");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name, "tiny-moe");
  EXPECT_EQ(m->attention.head_dim, 64);
  EXPECT_EQ(m->moe->shared_expert_ffn, 256);
  EXPECT_EQ(m->moe->topk_groups, 1);
}

TEST(ModelParse, OccamFormatIsStrict) {
  const std::string msg = ErrorOf(
      "model: {layers: 2, hidden: 64, vocab: 10, ffn_hidden: 128, attention: {heads: 4, "
      "kv_head: 2}}",
      "t.yaml");
  EXPECT_NE(msg.find("t.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'model.attention.kv_head'"), std::string::npos) << msg;
}

TEST(ModelParse, WrongTypeNamesFileAndKey) {
  const std::string msg =
      ErrorOf(R"({"model_type": "llama", "num_hidden_layers": "61"})", "deepseek-v3.json");
  EXPECT_NE(msg.find("deepseek-v3.json: key 'num_hidden_layers' must be an integer (got string"),
            std::string::npos)
      << msg;
}

TEST(ModelParse, MissingKeyNamesIt) {
  const std::string msg = ErrorOf(R"({"model_type": "llama", "num_hidden_layers": 2})");
  EXPECT_NE(msg.find("'hidden_size' is required"), std::string::npos) << msg;
}

TEST(ModelParse, UnknownModelTypeListsSupported) {
  const std::string msg = ErrorOf(R"({"model_type": "falcon"})");
  EXPECT_NE(msg.find("'falcon' is not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("deepseek_v3"), std::string::npos) << msg;
}

TEST(ModelParse, ImpossibleValues) {
  EXPECT_NE(ErrorOf(R"({"model_type": "llama", "num_hidden_layers": 0})").find(">= 1"),
            std::string::npos);
  const std::string topk = ErrorOf(R"({"model_type": "mixtral", "num_hidden_layers": 2,
      "hidden_size": 64, "vocab_size": 10, "num_attention_heads": 4, "intermediate_size": 128,
      "num_local_experts": 4, "num_experts_per_tok": 5})");
  EXPECT_NE(topk.find("moe.top_k"), std::string::npos) << topk;
  const std::string gqa = ErrorOf(R"({"model_type": "llama", "num_hidden_layers": 2,
      "hidden_size": 64, "vocab_size": 10, "num_attention_heads": 4, "num_key_value_heads": 3,
      "intermediate_size": 128})");
  EXPECT_NE(gqa.find("multiple of num_kv_heads"), std::string::npos) << gqa;
}

TEST(ModelParse, BadJsonReportsLineAndColumn) {
  const std::string msg = ErrorOf("{\n  \"model_type\": \"llama\",\n  \"x\": ]\n}");
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(ModelParse, BadYamlReportsLine) {
  const std::string msg = ErrorOf("model:\n  layers: [1, 2\n  hidden: 3\n", "b.yaml");
  EXPECT_NE(msg.find("b.yaml: not valid YAML at line"), std::string::npos) << msg;
}

TEST(ModelParse, DeepNestingIsRejectedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(ErrorOf(deep).find("nesting is deeper than 64"), std::string::npos);
  std::string yaml;
  for (int i = 0; i < 200; ++i) yaml += std::string(i, ' ') + "k:\n";
  EXPECT_NE(ErrorOf(yaml, "d.yaml").find("nesting is deeper"), std::string::npos);
}

TEST(ModelParse, HugeInputIsRejected) {
  const std::string big((16u << 20) + 1, ' ');
  EXPECT_NE(ErrorOf(big).find("larger than 16 MiB"), std::string::npos);
  // YAML is bounded lower: yaml-cpp's nodes take ~140 bytes per byte of text.
  std::string yaml;
  while (yaml.size() <= (1u << 20)) yaml += "- 1\n";
  EXPECT_NE(ErrorOf(yaml, "l.yaml").find("occam reads YAML up to 1 MiB"), std::string::npos);
}

TEST(ModelParse, DuplicateKeyCheckIsLinear) {
  // 200,000 keys: the check was quadratic (80,000 keys took 10 s).
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) text += "\"k" + std::to_string(i) + "\": 1, ";
  text += "\"k7\": 2}";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(ErrorOf(text).find("key 'k7' appears twice"), std::string::npos);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 10.0);  // ~0.2 s in a release build; quadratic took minutes
}

TEST(ModelParse, EchoedValuesAreShort) {
  const std::string key(1u << 20, 'k');
  const std::string msg = ErrorOf("{\"model\": {\"" + key + "\": 1}}");
  EXPECT_LT(msg.size(), 1024u);
  EXPECT_NE(msg.find("(1048576 bytes)"), std::string::npos) << msg.substr(0, 300);
}

TEST(ModelParse, DuplicateKeysAreRejected) {
  EXPECT_NE(
      ErrorOf(R"({"model_type": "llama", "a": {"x": 1}, "b": {"x": 2}, "model_type": "gpt2"})")
          .find("key 'model_type' appears twice"),
      std::string::npos);
  EXPECT_NE(ErrorOf("model:\n  layers: 1\n  layers: 2\n", "d.yaml").find("appears twice"),
            std::string::npos);
}

TEST(ModelParse, NotAnObject) {
  EXPECT_NE(ErrorOf("[1, 2]").find("must be a JSON/YAML object"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"foo\": 1}").find("not a recognized model config"), std::string::npos);
}

}  // namespace
}  // namespace occam
