// The model of a published run (doc/validation.md, "Model"): a catalog model
// with the architecture the run states, else one built from the run's own
// `arch` (GQA or MLA attention, dense or MoE with shared experts and leading
// dense layers). A fact the model needs and the run does not state is a skip
// reason that names the field; a value chosen by convention is recorded in
// `filled`.
#include <optional>
#include <string>

#include "validate/run_setup.h"
#include "validate/run_text.h"

namespace occam::validate {
namespace {

// A stated value (nullopt: not stated) agrees with the catalog's.
bool Agrees(const std::optional<int64_t>& stated, int64_t catalog) {
  return !stated || *stated == catalog;
}

bool SameMoe(const RunMoe& r, const MoeSpec& m) {
  return r.experts == m.num_experts && r.active_experts == m.top_k &&
         r.expert_ffn == m.expert_ffn && Agrees(r.shared_experts, m.num_shared_experts) &&
         Agrees(r.dense_layers, m.first_k_dense);
}

bool SameMla(const RunMla& r, const MlaDims& m) {
  return r.q_lora_rank.value_or(0) == m.q_lora_rank && r.kv_lora_rank == m.kv_lora_rank &&
         r.qk_nope_head_dim == m.qk_nope_head_dim && r.qk_rope_head_dim == m.qk_rope_head_dim &&
         r.v_head_dim == m.v_head_dim;
}

// Catalog model `m` has the architecture `a` states: the same layers, hidden
// size and heads, the same routed experts and MLA dimensions (or none of
// either), and every stated kv_heads, head_dim, ffn and vocab.
bool SameArchitecture(const RunArch& a, const ModelSpec& m) {
  if (m.num_layers != a.layers || m.hidden != a.hidden || m.attention.num_heads != a.heads) {
    return false;
  }
  if (a.moe.has_value() != m.moe.has_value() || (a.moe && !SameMoe(*a.moe, *m.moe))) return false;
  const bool mla = m.attention.kind == AttentionKind::kMla;
  if (a.mla.has_value() != mla || (a.mla && !SameMla(*a.mla, m.attention.mla))) return false;
  return Agrees(a.kv_heads, m.attention.num_kv_heads) && Agrees(a.head_dim, m.attention.head_dim) &&
         Agrees(a.ffn, m.ffn_hidden) && Agrees(a.vocab, m.vocab);
}

// The catalog model with the run's architecture; among several (deepseek-v3
// and deepseek-v3.1 share one), the one whose name starts the run's model
// name ("Llama 3.1 70B" -> llama-3.1-70b, letters and digits compared), else
// the first in catalog order.
std::optional<ModelSpec> CatalogMatch(const PublishedRun& run) {
  const std::string model = Squash(run.model);
  std::optional<ModelSpec> first;
  for (const std::string& name : CatalogModelNames()) {
    auto m = CatalogModel(name);
    if (!m.ok() || !SameArchitecture(run.arch, *m)) continue;
    if (model.rfind(Squash(name), 0) == 0) return *m;
    if (!first) first = *m;
  }
  return first;
}

// Multi-head latent attention from `arch.mla` (DeepSeek-V2 §2.1): every head
// gets its own K and V from the shared latent, q/k heads of nope + rope dims.
Status SetMla(const RunArch& a, ModelSpec* m,
              std::vector<std::pair<std::string, std::string>>* filled) {
  const RunMla& r = *a.mla;
  AttentionSpec& at = m->attention;
  at.kind = AttentionKind::kMla;
  at.num_kv_heads = a.heads;
  at.mla = MlaDims{r.q_lora_rank.value_or(0), r.kv_lora_rank, r.qk_nope_head_dim,
                   r.qk_rope_head_dim, r.v_head_dim};
  at.head_dim = r.qk_nope_head_dim + r.qk_rope_head_dim;
  if (!r.q_lora_rank) Fill(filled, "arch.mla.q_lora_rank", "0 (queries not compressed)");
  if (a.kv_heads && *a.kv_heads != a.heads) {
    return InvalidInput("arch.kv_heads (" + std::to_string(*a.kv_heads) +
                        ") must equal arch.heads for MLA (each head has its own K and V)");
  }
  if (a.head_dim && *a.head_dim != at.head_dim) {
    return InvalidInput("arch.head_dim (" + std::to_string(*a.head_dim) +
                        ") disagrees with arch.mla qk_nope_head_dim + qk_rope_head_dim (" +
                        std::to_string(at.head_dim) + ")");
  }
  return Status::Ok();
}

Status SetGqa(const RunArch& a, ModelSpec* m,
              std::vector<std::pair<std::string, std::string>>* filled) {
  m->attention.kind = AttentionKind::kGqa;
  m->attention.num_kv_heads = a.kv_heads.value_or(a.heads);
  if (!a.kv_heads) Fill(filled, "arch.kv_heads", std::to_string(a.heads) + " (multi-head)");
  if (!a.head_dim && a.hidden % a.heads != 0) {
    return InvalidInput("arch.head_dim is null and hidden is not divisible by heads");
  }
  m->attention.head_dim = a.head_dim.value_or(a.hidden / a.heads);
  return Status::Ok();
}

// Routed experts; shared experts as wide as a routed one (DeepSeekMoE,
// arXiv:2401.06066 §3: fine-grained experts of one width); the leading dense
// layers' MLP is arch.ffn, which they need.
Status SetMoe(const RunArch& a, ModelSpec* m,
              std::vector<std::pair<std::string, std::string>>* filled) {
  const RunMoe& rm = *a.moe;
  MoeSpec moe;
  moe.num_experts = rm.experts;
  moe.top_k = rm.active_experts;
  moe.expert_ffn = rm.expert_ffn;
  moe.num_shared_experts = rm.shared_experts.value_or(0);
  moe.shared_expert_ffn = moe.num_shared_experts > 0 ? rm.expert_ffn : 0;
  moe.first_k_dense = rm.dense_layers.value_or(0);
  if (!rm.shared_experts) Fill(filled, "arch.moe.shared_experts", "0 (none stated)");
  if (moe.num_shared_experts > 0) {
    Fill(filled, "shared_expert_ffn", std::to_string(rm.expert_ffn) + " (a routed expert's width)");
  }
  if (!rm.dense_layers) Fill(filled, "arch.moe.dense_layers", "0 (every layer MoE)");
  if (moe.first_k_dense >= a.layers) {
    return InvalidInput("arch.moe.dense_layers must be smaller than arch.layers");
  }
  if (moe.first_k_dense > 0 && !a.ffn) {
    return InvalidInput("arch.ffn is null: the MLP width of the " +
                        std::to_string(moe.first_k_dense) +
                        " dense layers (arch.moe.dense_layers) is not stated");
  }
  m->moe = moe;
  if (!a.ffn) m->ffn_hidden = rm.expert_ffn;  // no dense layer uses it
  return Status::Ok();
}

// The MLP of dense layers: gated or not, and its width.
void SetMlp(const RunArch& a, ModelSpec* m,
            std::vector<std::pair<std::string, std::string>>* filled) {
  const std::string act = Lower(a.ffn_activation.value_or(""));
  if (a.ffn_activation) {
    m->gated_mlp = Has(act, "glu");
    m->clamped_swiglu = m->gated_mlp && Has(act, "clamped");
  } else {
    // MoE families in the file all use gated experts; dense GPTs GeLU.
    m->gated_mlp = a.moe.has_value();
    Fill(filled, "arch.ffn_activation",
         m->gated_mlp ? "SwiGLU (gated experts, as every MoE family here)" : "GeLU (GPT)");
  }
  if (a.ffn) {
    m->ffn_hidden = *a.ffn;
  } else if (!a.moe) {
    // GPT: 4h. LLaMA: 2/3 of 4h rounded up to a multiple of 256 (Touvron et al. 2023 §2.2).
    m->ffn_hidden = m->gated_mlp ? (8 * a.hidden / 3 + 255) / 256 * 256 : 4 * a.hidden;
    Fill(filled, "arch.ffn",
         std::to_string(m->ffn_hidden) + (m->gated_mlp ? " (8h/3 rounded to 256)" : " (4h)"));
  }
  if (Has(act, "gelu (standard gpt)") || (!a.ffn_activation && !a.moe)) {
    m->norm = NormKind::kLayerNorm;
    m->mlp_bias = true;
  }
}

Result<ModelSpec> ModelFromArch(const PublishedRun& run,
                                std::vector<std::pair<std::string, std::string>>* filled) {
  const RunArch& a = run.arch;
  ModelSpec m;
  m.name = run.model;
  m.model_type = "occam";
  m.num_layers = a.layers;
  m.hidden = a.hidden;
  m.attention.num_heads = a.heads;
  OCCAM_RETURN_IF_ERROR(a.mla ? SetMla(a, &m, filled) : SetGqa(a, &m, filled));
  if (a.vocab) {
    m.vocab = *a.vocab;
  } else {
    m.vocab = 51200;
    Fill(filled, "arch.vocab", "51200 (Megatron's padded GPT-2 vocabulary; not stated)");
  }
  SetMlp(a, &m, filled);
  m.tied_embeddings = Has(Lower(a.other.value_or("")), "tied");
  if (a.moe) OCCAM_RETURN_IF_ERROR(SetMoe(a, &m, filled));
  OCCAM_RETURN_IF_ERROR(ValidateModel(m, "arch"));
  return m;
}

}  // namespace

Result<ModelSpec> BuildModel(const PublishedRun& run,
                             std::vector<std::pair<std::string, std::string>>* filled) {
  if (auto m = CatalogMatch(run)) {
    Fill(filled, "model", "catalog config '" + m->name + "' (the architecture arch states)");
    if (m->mtp_layers > 0) {
      // The run schema has no multi-token-prediction field: a run states the
      // model it trained, and MTP modules are not part of `arch`.
      Fill(filled, "mtp_layers",
           "0 (the catalog config has " + std::to_string(m->mtp_layers) +
               "; arch states no multi-token-prediction module)");
      m->mtp_layers = 0;
    }
    return *m;
  }
  return ModelFromArch(run, filled);
}

}  // namespace occam::validate
