// Metric conversions (doc/validation.md, "Metrics and FLOP conventions").
// Symbol legend in metrics.h.
#include "validate/metrics.h"

#include <algorithm>
#include <cctype>

#include "validate/run_text.h"

namespace occam::validate {
namespace {

// Matmul weights touched by one token in one transformer layer `layer`.
double LayerMatmulParams(const ModelSpec& m, int64_t layer) {
  const AttentionSpec& at = m.attention;
  double attn = 0;
  if (at.kind == AttentionKind::kMla) {
    const MlaDims& d = at.mla;
    const double qk = static_cast<double>(d.qk_nope_head_dim + d.qk_rope_head_dim);
    const double q = d.q_lora_rank > 0 ? static_cast<double>(m.hidden) * d.q_lora_rank +
                                             static_cast<double>(d.q_lora_rank) * at.num_heads * qk
                                       : static_cast<double>(m.hidden) * at.num_heads * qk;
    const double kv =
        static_cast<double>(m.hidden) * (d.kv_lora_rank + d.qk_rope_head_dim) +
        static_cast<double>(d.kv_lora_rank) * at.num_heads * (d.qk_nope_head_dim + d.v_head_dim);
    attn = q + kv + static_cast<double>(at.num_heads) * d.v_head_dim * m.hidden;
  } else {
    const double qo = 2.0 * m.hidden * at.num_heads * at.head_dim;
    const double kv = 2.0 * m.hidden * at.num_kv_heads * at.head_dim;
    attn = qo + kv;
  }
  const double mats = m.gated_mlp ? 3.0 : 2.0;
  double mlp = mats * m.hidden * m.ffn_hidden;
  if (m.moe && layer >= m.moe->first_k_dense &&
      (layer - m.moe->first_k_dense) % std::max<int64_t>(1, m.moe->layer_freq) == 0) {
    const MoeSpec& e = *m.moe;
    mlp = mats * m.hidden *
              (static_cast<double>(e.top_k) * e.expert_ffn +
               static_cast<double>(e.num_shared_experts) * e.shared_expert_ffn) +
          static_cast<double>(m.hidden) * e.num_experts;  // router
  }
  return attn + mlp;
}

// Attention score + context width per layer: a·(d_qk + d_v)/2·2 -> a·d for GQA.
double AttentionWidth(const ModelSpec& m) {
  const AttentionSpec& at = m.attention;
  if (at.kind == AttentionKind::kMla) {
    return at.num_heads * (at.mla.qk_nope_head_dim + at.mla.qk_rope_head_dim + at.mla.v_head_dim) /
           2.0;
  }
  return static_cast<double>(at.num_heads) * at.head_dim;
}

}  // namespace

FlopsConvention ConventionFor(const PublishedRun& run, Recompute recompute, Precision precision) {
  FlopsConvention c;
  const std::string def = Lower(run.measured.definition);
  const std::string basis = run.measured.flops_basis.value_or("unspecified");
  // Causal halving only where the definition says so; Megatron-LM, NeMo,
  // PaLM (6N + 12·L·H·Q·T, Appendix B) and MaxText before PR #1988 count the
  // full s x s score matrix.
  c.causal = Has(def, "causal") && !Has(def, "non-causal") && !Has(def, "noncausal");
  // Narayanan et al. 2021 Eq. 3 (96·B·s·l·h²·(...)) always counts the
  // recompute forward, whatever the run did; other hardware counts follow the
  // run's recompute policy.
  const bool eq3 = Has(def, "96*b*s*l*h^2") || Has(def, "eq. 3");
  if (basis == "hardware") {
    if (recompute == Recompute::kFull || eq3) c.layer_passes = 4;
    if (recompute == Recompute::kSelective && !eq3) c.attention_extra_passes = 1;
  }
  c.fp8_peak = precision == Precision::kFp8 && Has(def, "fp8") &&
               (Has(def, "fp8 peak") || Has(def, "against the fp8") || Has(def, "1979"));
  c.description = std::string(basis == "hardware" ? "hardware" : "model") + " FLOPs, " +
                  (c.layer_passes == 4 ? "4 passes (recompute forward counted)" : "3 passes") +
                  (c.attention_extra_passes > 0 ? " + attention recompute" : "") +
                  (c.causal ? ", causal attention halved" : ", full attention") +
                  (c.fp8_peak ? ", MFU vs FP8 peak" : "");
  return c;
}

double SourceFlopsPerToken(const ModelSpec& model, int64_t seq_len, const FlopsConvention& conv) {
  double matmul = 0;
  for (int64_t l = 0; l < model.num_layers; ++l) matmul += 2.0 * LayerMatmulParams(model, l);
  const double attn_per_layer =
      4.0 * static_cast<double>(seq_len) * AttentionWidth(model) * (conv.causal ? 0.5 : 1.0);
  const double attn = attn_per_layer * static_cast<double>(model.num_layers);
  const double head = 2.0 * static_cast<double>(model.hidden) * static_cast<double>(model.vocab);
  return conv.layer_passes * (matmul + attn) + conv.attention_extra_passes * attn +
         conv.head_passes * head;
}

double ReportedTokensPerSecondPerChip(const PublishedRun& run) {
  if (run.measured.kind != MetricKind::kTflopsPerChip && run.measured.kind != MetricKind::kMfuPct) {
    return 0;
  }
  for (const auto& [key, value] : run.measured.extra) {
    if ((key == "tokens_per_s_per_gpu" || key == "tokens_per_s_per_device" ||
         key == "tokens_per_s_per_chip") &&
        value > 0) {
      return value;
    }
  }
  return 0;
}

double MetricFromStepTime(MetricKind kind, double step_time_s, double tokens_per_step,
                          double flops_per_token, int64_t chips, double peak_flops_per_s) {
  const double n = static_cast<double>(chips);
  switch (kind) {
    case MetricKind::kStepTimeS:
      return step_time_s;
    case MetricKind::kTflopsPerChip:
      return flops_per_token * tokens_per_step / (step_time_s * n) / 1e12;
    case MetricKind::kMfuPct:
      return 100.0 * flops_per_token * tokens_per_step / (step_time_s * n * peak_flops_per_s);
    case MetricKind::kTokensPerSPerChip:
      return tokens_per_step / (step_time_s * n);
    case MetricKind::kChipHoursPerTrillionTokens:
      return n * step_time_s / 3600.0 * 1e12 / tokens_per_step;
    case MetricKind::kMemoryPerChipBytes:
      return 0;  // not a throughput metric (validate/memory_score.cc)
  }
  return 0;
}

}  // namespace occam::validate
