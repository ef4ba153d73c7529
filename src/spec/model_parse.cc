// ParseModel: recognizes the config format and checks the result
// (ValidateModel). Formats: Hugging Face config.json (has `model_type`),
// DeepSeek inference configs (`dim` + `n_layers`), occam's model format
// (top-level `model`).
#include <cmath>
#include <string>

#include "occam/spec.h"
#include "spec/doc.h"
#include "spec/model_formats.h"

namespace occam {
namespace {

// Dimensions above this are typos, and would overflow FLOP counts.
constexpr int64_t kMaxDim = int64_t{1} << 24;

// "data/models/deepseek-v3.json" -> "deepseek-v3".
std::string StemOf(std::string_view origin) {
  const size_t slash = origin.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? origin : origin.substr(slash + 1);
  for (std::string_view ext : {".json", ".yaml", ".yml"}) {
    if (base.size() > ext.size() && base.substr(base.size() - ext.size()) == ext) {
      base.remove_suffix(ext.size());
      break;
    }
  }
  return std::string(base);
}

class Checker {
 public:
  explicit Checker(std::string_view origin) : origin_(origin) {}
  void Range(std::string_view field, int64_t v, int64_t lo, int64_t hi) {
    if (!status_.ok() || (v >= lo && v <= hi)) return;
    status_ = InvalidInput(origin_ + ": model." + std::string(field) + " must be in [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                           std::to_string(v) + ")");
  }
  void Require(bool ok, const std::string& what) {
    if (status_.ok() && !ok) status_ = InvalidInput(origin_ + ": " + what);
  }
  Status status() const { return status_; }

 private:
  std::string origin_;
  Status status_;
};

void CheckAttention(const AttentionSpec& a, Checker& c) {
  c.Range("attention.num_heads", a.num_heads, 1, kMaxDim);
  c.Range("attention.num_kv_heads", a.num_kv_heads, 1, a.num_heads);
  c.Require(a.num_kv_heads > 0 && a.num_heads % a.num_kv_heads == 0,
            "model.attention.num_heads (" + std::to_string(a.num_heads) +
                ") must be a multiple of num_kv_heads (" + std::to_string(a.num_kv_heads) + ")");
  c.Range("attention.head_dim", a.head_dim, 1, kMaxDim);
  if (a.kind == AttentionKind::kMla) {
    c.Range("attention.mla.q_lora_rank", a.mla.q_lora_rank, 0, kMaxDim);
    c.Range("attention.mla.kv_lora_rank", a.mla.kv_lora_rank, 1, kMaxDim);
    c.Range("attention.mla.qk_nope_head_dim", a.mla.qk_nope_head_dim, 1, kMaxDim);
    c.Range("attention.mla.qk_rope_head_dim", a.mla.qk_rope_head_dim, 1, kMaxDim);
    c.Range("attention.mla.v_head_dim", a.mla.v_head_dim, 1, kMaxDim);
  }
  c.Range("attention.sliding_window", a.sliding_window, 0, int64_t{1} << 40);
  c.Require(std::isfinite(a.sliding_fraction) && a.sliding_fraction >= 0 && a.sliding_fraction <= 1,
            "model.attention.sliding_fraction must be in [0, 1]");
}

void CheckMoe(const MoeSpec& e, int64_t layers, Checker& c) {
  c.Range("moe.num_experts", e.num_experts, 1, kMaxDim);
  c.Range("moe.top_k", e.top_k, 1, e.num_experts);
  c.Range("moe.num_shared_experts", e.num_shared_experts, 0, kMaxDim);
  c.Range("moe.expert_ffn", e.expert_ffn, 1, kMaxDim);
  c.Range("moe.shared_expert_ffn", e.shared_expert_ffn, e.num_shared_experts > 0 ? 1 : 0, kMaxDim);
  c.Range("moe.first_k_dense", e.first_k_dense, 0, layers - 1);
  c.Range("moe.layer_freq", e.layer_freq, 1, layers);
  c.Range("moe.num_groups", e.num_groups, 1, e.num_experts);
  c.Require(e.num_groups > 0 && e.num_experts % e.num_groups == 0,
            "model.moe.num_experts (" + std::to_string(e.num_experts) +
                ") must be divisible by num_groups (" + std::to_string(e.num_groups) + ")");
  c.Range("moe.topk_groups", e.topk_groups, 1, e.num_groups);
}

}  // namespace

Status ValidateModel(const ModelSpec& m, std::string_view origin) {
  Checker c(origin);
  c.Range("num_layers", m.num_layers, 1, int64_t{1} << 16);
  c.Range("hidden", m.hidden, 1, kMaxDim);
  c.Range("vocab", m.vocab, 1, kMaxDim);
  c.Range("ffn_hidden", m.ffn_hidden, 1, kMaxDim);
  c.Range("learned_positions", m.learned_positions, 0, kMaxDim);
  c.Range("mtp_layers", m.mtp_layers, 0, 64);
  CheckAttention(m.attention, c);
  if (m.moe) CheckMoe(*m.moe, m.num_layers, c);
  return c.status();
}

Result<ModelSpec> ParseModel(std::string_view text, std::string_view origin) {
  OCCAM_ASSIGN_OR_RETURN(nlohmann::json doc, spec::ParseDocument(text, origin));
  const spec::Node root(doc, std::string(origin), "");
  if (!doc.is_object()) {
    return InvalidInput(std::string(origin) + ": a model config must be a JSON/YAML object (got " +
                        spec::DescribeValue(doc) + ")");
  }
  Result<ModelSpec> model = Internal("unreachable");
  if (root.Has("model_type")) {
    model = spec::ReadHfModel(root);
  } else if (root.Has("dim") && root.Has("n_layers")) {
    model = spec::ReadDeepSeekInferenceModel(root);
  } else if (root.Has("model")) {
    model = spec::ReadOccamModel(root);
  } else {
    return InvalidInput(std::string(origin) +
                        ": not a recognized model config; expected a Hugging Face config.json "
                        "(with 'model_type'), a DeepSeek inference config ('dim', 'n_layers') or "
                        "an occam model file (top-level 'model:')");
  }
  if (!model.ok()) return model.status();
  if (model->name.empty()) model->name = StemOf(origin);
  OCCAM_RETURN_IF_ERROR(ValidateModel(*model, origin));
  return model;
}

}  // namespace occam
