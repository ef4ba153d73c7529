// occam list models|chips|clusters [--json]: the built-in catalog.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {
namespace {

using nlohmann::json;

std::string Experts(const ModelSpec& m) {
  if (!m.moe) return "dense";
  std::string s = fmt::format("{}/top-{}", m.moe->num_experts, m.moe->top_k);
  if (m.moe->num_shared_experts > 0) s += fmt::format("+{}", m.moe->num_shared_experts);
  return s;
}

json ModelJson(const ModelSpec& m) {
  json j = {{"name", m.name},
            {"model_type", m.model_type},
            {"layers", m.num_layers},
            {"hidden", m.hidden},
            {"vocab", m.vocab},
            {"heads", m.attention.num_heads},
            {"kv_heads", m.attention.num_kv_heads},
            {"attention", m.attention.kind == AttentionKind::kMla ? "mla" : "gqa"},
            {"ffn_hidden", m.ffn_hidden},
            {"mtp_layers", m.mtp_layers}};
  if (m.moe) {
    j["moe"] = {{"experts", m.moe->num_experts},
                {"top_k", m.moe->top_k},
                {"shared_experts", m.moe->num_shared_experts},
                {"expert_ffn", m.moe->expert_ffn},
                {"first_k_dense", m.moe->first_k_dense}};
  } else {
    j["moe"] = nullptr;
  }
  return j;
}

Result<std::string> ListModels(bool as_json) {
  json arr = json::array();
  std::string text = fmt::format("{:<18} {:<18} {:>6} {:>6} {:>7} {:<4} {:<14} {:>7}\n", "name",
                                 "type", "layers", "hidden", "heads", "attn", "experts", "vocab");
  for (const auto& name : CatalogModelNames()) {
    OCCAM_ASSIGN_OR_RETURN(ModelSpec m, CatalogModel(name));
    arr.push_back(ModelJson(m));
    text += fmt::format(
        "{:<18} {:<18} {:>6} {:>6} {:>7} {:<4} {:<14} {:>7}\n", m.name, m.model_type, m.num_layers,
        m.hidden, fmt::format("{}/{}", m.attention.num_heads, m.attention.num_kv_heads),
        m.attention.kind == AttentionKind::kMla ? "mla" : "gqa", Experts(m), m.vocab);
  }
  return as_json ? json{{"models", arr}}.dump(2) + "\n" : text;
}

Result<std::string> ListChips(bool as_json) {
  json arr = json::array();
  std::string text = fmt::format("{:<10} {:>10} {:>10} {:>8} {:>8} {:>8}  {}\n", "key", "bf16 TF/s",
                                 "fp8 TF/s", "HBM GB", "HBM TB/s", "GEMM eff", "name");
  for (const auto& key : CatalogChipKeys()) {
    OCCAM_ASSIGN_OR_RETURN(ChipSpec c, CatalogChip(key));
    arr.push_back({{"key", c.key},
                   {"name", c.name},
                   {"is_tpu", c.is_tpu},
                   {"peak_bf16_tflops", c.peak_bf16.value() / 1e12},
                   {"peak_fp8_tflops", c.peak_fp8.value() / 1e12},
                   {"hbm_gb", c.hbm.value() / 1e9},
                   {"hbm_tbps", c.hbm_bandwidth.value() / 1e12},
                   {"gemm_efficiency", c.gemm_efficiency},
                   {"gemm_half_tokens", c.gemm_half_tokens}});
    text += fmt::format("{:<10} {:>10.1f} {:>10.1f} {:>8.1f} {:>8.3f} {:>8.3f}  {}\n", c.key,
                        c.peak_bf16.value() / 1e12, c.peak_fp8.value() / 1e12, c.hbm.value() / 1e9,
                        c.hbm_bandwidth.value() / 1e12, c.gemm_efficiency, c.name);
  }
  return as_json ? json{{"chips", arr}}.dump(2) + "\n" : text;
}

std::string TierSummary(const TierSpec& t) {
  return fmt::format("{} {} {}x{:g}GB/s", t.name, TierKindName(t.kind), t.size,
                     t.bandwidth.value() / 1e9);
}

Result<std::string> ListClusters(bool as_json) {
  json arr = json::array();
  std::string text = fmt::format("{:<8} {:<8} {:>6}  {}\n", "name", "chip", "chips",
                                 "tiers (innermost first: name kind size x per-chip bandwidth)");
  for (const auto& name : CatalogClusterNames()) {
    OCCAM_ASSIGN_OR_RETURN(ClusterSpec c, CatalogClusterTemplate(name));
    json tiers = json::array();
    std::string summary;
    for (const auto& t : c.tiers) {
      tiers.push_back({{"name", t.name},
                       {"kind", TierKindName(t.kind)},
                       {"size", t.size},
                       {"bandwidth_gbps", t.bandwidth.value() / 1e9},
                       {"latency_us", t.latency.value() * 1e6},
                       {"efficiency", t.efficiency}});
      summary += (summary.empty() ? "" : "; ") + TierSummary(t);
    }
    arr.push_back(
        {{"name", name}, {"chip", c.chip.key}, {"num_chips", c.num_chips}, {"tiers", tiers}});
    text += fmt::format("{:<8} {:<8} {:>6}  {}\n", name, c.chip.key, c.num_chips, summary);
  }
  return as_json ? json{{"clusters", arr}}.dump(2) + "\n" : text;
}

}  // namespace

void RegisterList(CLI::App& app, CommandOutput* output) {
  auto* cmd = app.add_subcommand("list", "List the built-in models, chips or cluster templates");
  struct Flags {
    std::string what;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("what", flags->what, "models, chips or clusters")
      ->required()
      ->check(CLI::IsMember({"models", "chips", "clusters"}));
  cmd->add_flag("--json", flags->json, "Print one JSON object");
  cmd->callback([flags, output] {
    Result<std::string> out = flags->what == "models"  ? ListModels(flags->json)
                              : flags->what == "chips" ? ListChips(flags->json)
                                                       : ListClusters(flags->json);
    if (out.ok()) output->out += *out;
    output->Finish(out.status());
  });
}

}  // namespace occam::cli
