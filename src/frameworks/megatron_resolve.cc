// Megatron-LM arguments -> occam model, job and plan (the inverse of
// megatron.cc; defaults as arguments.py and parallel_state.py set them).
#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

Result<int64_t> Int(const FrameworkFile& f, const std::string& key, int64_t dflt) {
  if (!Value(f, key)) return dflt;
  OCCAM_ASSIGN_OR_RETURN(int64_t v, IntValue(f, key));
  if (v < 0) return FileError(f, "--" + key, "must be >= 0 (got " + S(v) + ")");
  return v;
}

// "([0]*3+[1]*58)" or "[0,0,1,...]" or an integer N (every N-th layer).
Result<std::vector<int>> LayerPattern(const FrameworkFile& f, int64_t layers) {
  std::string v = *Value(f, "moe-layer-freq");
  std::vector<int> out;
  auto bad = [&] {
    return FileError(f, "--moe-layer-freq",
                     "'" + v +
                         "' is not an integer, a [0,1,...] list or "
                         "a ([0]*a+[1]*b) expression");
  };
  if (v.find('[') == std::string::npos) {
    OCCAM_ASSIGN_OR_RETURN(int64_t n, IntValue(f, "moe-layer-freq"));
    if (n < 1) return bad();
    for (int64_t i = 0; i < layers; ++i) out.push_back(i % n == 0);
    return out;
  }
  std::string s;
  for (char ch : v) {
    if (ch != ' ' && ch != '(' && ch != ')') s += ch;
  }
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '+' || s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] != '[') return bad();
    const size_t close = s.find(']', i);
    if (close == std::string::npos) return bad();
    std::vector<int> group;
    for (char ch : s.substr(i + 1, close - i - 1)) {
      if (ch == '0' || ch == '1')
        group.push_back(ch - '0');
      else if (ch != ',')
        return bad();
    }
    i = close + 1;
    int64_t times = 1;
    if (i < s.size() && s[i] == '*') {
      size_t j = i + 1;
      while (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j == i + 1) return bad();
      times = std::stoll(s.substr(i + 1, j - i - 1));
      i = j;
    }
    for (int64_t t = 0; t < times && static_cast<int64_t>(out.size()) <= layers; ++t) {
      out.insert(out.end(), group.begin(), group.end());
    }
  }
  if (static_cast<int64_t>(out.size()) != layers) {
    return FileError(f, "--moe-layer-freq",
                     "lists " + S(static_cast<int64_t>(out.size())) +
                         " layers but --num-layers is " + S(layers));
  }
  return out;
}

Status MoeFromArgs(const FrameworkFile& f, ModelSpec& m) {
  MoeSpec e;
  OCCAM_ASSIGN_OR_RETURN(e.num_experts, Int(f, "num-experts", 0));
  OCCAM_ASSIGN_OR_RETURN(e.top_k, Int(f, "moe-router-topk", 2));
  OCCAM_ASSIGN_OR_RETURN(e.expert_ffn, Int(f, "moe-ffn-hidden-size", m.ffn_hidden));
  OCCAM_ASSIGN_OR_RETURN(int64_t shared, Int(f, "moe-shared-expert-intermediate-size", 0));
  if (shared > 0) {
    e.num_shared_experts = 1;
    e.shared_expert_ffn = shared;
  }
  OCCAM_ASSIGN_OR_RETURN(e.num_groups, Int(f, "moe-router-num-groups", 1));
  OCCAM_ASSIGN_OR_RETURN(e.topk_groups, Int(f, "moe-router-group-topk", 1));
  if (Has(f, "moe-layer-freq")) {
    OCCAM_ASSIGN_OR_RETURN(auto pat, LayerPattern(f, m.num_layers));
    int64_t k = 0;
    while (k < m.num_layers && pat[k] == 0) ++k;
    int64_t freq = 1;
    for (int64_t i = k + 1; i < m.num_layers; ++i) {
      if (pat[i]) {
        freq = i - k;
        break;
      }
    }
    for (int64_t i = 0; i < m.num_layers; ++i) {
      if (pat[i] != (i >= k && i % freq == 0)) {
        return FileError(f, "--moe-layer-freq",
                         "this MoE layer pattern is not 'dense first, "
                         "then every n-th layer'; give --model");
      }
    }
    e.first_k_dense = k;
    e.layer_freq = freq;
  }
  m.moe = e;
  return Status::Ok();
}

Status AttentionFromArgs(const FrameworkFile& f, ModelSpec& m) {
  AttentionSpec& a = m.attention;
  OCCAM_ASSIGN_OR_RETURN(a.num_heads, Int(f, "num-attention-heads", 0));
  if (a.num_heads < 1) return FileError(f, "--num-attention-heads", "must be >= 1");
  if (Has(f, "multi-latent-attention")) {
    a.kind = AttentionKind::kMla;
    a.num_kv_heads = a.num_heads;
    OCCAM_ASSIGN_OR_RETURN(a.mla.q_lora_rank, Int(f, "q-lora-rank", 0));
    OCCAM_ASSIGN_OR_RETURN(a.mla.kv_lora_rank, Int(f, "kv-lora-rank", 512));
    OCCAM_ASSIGN_OR_RETURN(a.mla.qk_nope_head_dim, Int(f, "qk-head-dim", 128));
    OCCAM_ASSIGN_OR_RETURN(a.mla.qk_rope_head_dim, Int(f, "qk-pos-emb-head-dim", 64));
    OCCAM_ASSIGN_OR_RETURN(a.mla.v_head_dim, Int(f, "v-head-dim", 128));
    a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
  } else {
    OCCAM_ASSIGN_OR_RETURN(a.head_dim, Int(f, "kv-channels", m.hidden / a.num_heads));
    a.num_kv_heads = a.num_heads;
    if (Has(f, "group-query-attention")) {
      OCCAM_ASSIGN_OR_RETURN(a.num_kv_heads, Int(f, "num-query-groups", 1));
    }
  }
  a.qkv_bias = Has(f, "add-qkv-bias") || !Has(f, "disable-bias-linear");
  a.out_bias = !Has(f, "disable-bias-linear");
  return Status::Ok();
}

}  // namespace

Result<ModelSpec> MegatronModel(const FrameworkFile& f) {
  std::string missing;
  for (const char* k : {"num-layers", "hidden-size", "num-attention-heads", "vocab-size"}) {
    if (!Has(f, k)) missing += std::string(missing.empty() ? "" : ", ") + "--" + k;
  }
  if (!missing.empty()) {
    return InvalidInput(f.origin + ": the model is not described (missing " + missing +
                        "); give --model (a catalog name or a config.json)");
  }
  ModelSpec m;
  m.name = f.origin;
  m.model_type = "megatron";
  OCCAM_ASSIGN_OR_RETURN(m.num_layers, Int(f, "num-layers", 0));
  OCCAM_ASSIGN_OR_RETURN(m.hidden, Int(f, "hidden-size", 0));
  OCCAM_ASSIGN_OR_RETURN(m.vocab, Int(f, "vocab-size", 0));
  OCCAM_ASSIGN_OR_RETURN(m.ffn_hidden, Int(f, "ffn-hidden-size", 4 * m.hidden));
  OCCAM_RETURN_IF_ERROR(AttentionFromArgs(f, m));
  m.gated_mlp = Has(f, "swiglu");
  m.mlp_bias = !Has(f, "disable-bias-linear");
  m.tied_embeddings = !Has(f, "untie-embeddings-and-output-weights");
  m.norm = Value(f, "normalization") == std::string("RMSNorm") ? NormKind::kRmsNorm
                                                               : NormKind::kLayerNorm;
  if (Value(f, "position-embedding-type") == std::string("learned_absolute")) {
    OCCAM_ASSIGN_OR_RETURN(m.learned_positions, Int(f, "max-position-embeddings", 0));
  }
  OCCAM_ASSIGN_OR_RETURN(m.mtp_layers, Int(f, "mtp-num-layers", 0));
  if (Has(f, "num-experts")) {
    OCCAM_RETURN_IF_ERROR(MoeFromArgs(f, m));
  }
  OCCAM_RETURN_IF_ERROR(ValidateModel(m, f.origin));
  return m;
}

}  // namespace occam::frameworks_internal
