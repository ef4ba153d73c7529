// The built-in catalog: models (data/models/), chips (data/hardware/chips.yaml
// + data/calibration.yaml) and cluster templates (data/clusters/*.yaml), all
// compiled in (spec/embedded.h).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "occam/message.h"
#include "occam/spec.h"
#include "spec/cluster_formats.h"
#include "spec/doc.h"
#include "spec/embedded.h"
#include "spec/model_formats.h"

namespace occam {
namespace {

// Catalog names of the bundled model configs (provenance: data/models/SOURCES.md).
struct ModelEntry {
  std::string_view name;
  std::string_view file;
};
constexpr ModelEntry kModels[] = {
    {"deepseek-v3", "data/models/deepseek-v3.json"},
    {"deepseek-v3.1", "data/models/deepseek-v3.1.inference.json"},
    {"deepseek-v2", "data/models/deepseek-v2.inference.json"},
    {"deepseek-v2-lite", "data/models/deepseek-v2-lite.inference.json"},
    {"kimi-k2", "data/models/kimi-k2-instruct.json"},
    {"llama-3.1-8b", "data/models/llama-3.1-8b-instruct.json"},
    {"llama-3.1-70b", "data/models/llama-3.1-70b-instruct.json"},
    {"mixtral-8x7b", "data/models/mixtral-8x7b-instruct-v0.1.json"},
    {"gpt-oss-120b", "data/models/gpt-oss-120b.json"},
    {"glm-4.5", "data/models/glm-4.5.json"},
    {"gemma-3-27b", "data/models/gemma-3-27b-it.resaved.json"},
    {"gpt2-xl", "data/models/gpt2-xl.json"},
};

constexpr std::string_view kChipsFile = "data/hardware/chips.yaml";
constexpr std::string_view kCalibrationFile = "data/calibration.yaml";
constexpr std::string_view kClusterDir = "data/clusters/";

Result<std::string_view> Embedded(std::string_view path) {
  for (const auto& f : EmbeddedFiles()) {
    if (f.path == path) return f.content;
  }
  return Internal("built-in file " + std::string(path) + " is missing from the build");
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

struct ChipCatalog {
  std::vector<std::pair<std::string, ChipSpec>> by_name;  // keys and aliases
  std::vector<std::string> keys;
  Status status;
};

ChipCatalog LoadChips() {
  ChipCatalog cat;
  auto text = Embedded(kChipsFile);
  if (!text.ok()) return {{}, {}, text.status()};
  auto doc = spec::ParseDocument(*text, kChipsFile);
  if (!doc.ok()) return {{}, {}, doc.status()};
  const spec::Node root(*doc, std::string(kChipsFile), "");
  auto list = root.Array("chips");
  if (!list.ok()) return {{}, {}, list.status()};
  for (size_t i = 0; i < (*list)->size(); ++i) {
    const spec::Node n = root.Element((**list)[i], "chips", i);
    auto chip = spec::ReadChip(n);
    if (!chip.ok()) return {{}, {}, chip.status()};
    cat.keys.push_back(chip->key);
    cat.by_name.emplace_back(chip->key, *chip);
    if (n.Has("aliases")) {
      for (const auto& alias : n.value()["aliases"]) {
        if (alias.is_string()) cat.by_name.emplace_back(alias.get<std::string>(), *chip);
      }
    }
  }
  return cat;
}

const ChipCatalog& Chips() {
  static const ChipCatalog kCatalog = LoadChips();
  return kCatalog;
}

}  // namespace

namespace spec {

Result<ChipSpec> ReadChip(const Node& n) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"key", "aliases", "name", "is_tpu", "bf16_tflops",
                                     "fp8_tflops", "hbm_gb", "hbm_gib", "hbm_tbps", "sources",
                                     "gemm_efficiency", "gemm_half_tokens", "host_link_gbps"}));
  ChipSpec c;
  OCCAM_ASSIGN_OR_RETURN(c.key, n.String("key", "custom"));
  OCCAM_ASSIGN_OR_RETURN(c.name, n.String("name", c.key));
  OCCAM_ASSIGN_OR_RETURN(c.is_tpu, n.Bool("is_tpu", false));
  OCCAM_ASSIGN_OR_RETURN(double bf16, n.Number("bf16_tflops"));
  OCCAM_ASSIGN_OR_RETURN(double fp8, n.Number("fp8_tflops", bf16));
  OCCAM_ASSIGN_OR_RETURN(double tbps, n.Number("hbm_tbps"));
  if (n.Has("hbm_gb") == n.Has("hbm_gib")) {
    return n.Error("hbm_gb", "or hbm_gib must be given (exactly one)");
  }
  if (n.Has("hbm_gb")) {
    OCCAM_ASSIGN_OR_RETURN(double gb, n.Number("hbm_gb"));
    c.hbm = GB(gb);
  } else {
    OCCAM_ASSIGN_OR_RETURN(double gib, n.Number("hbm_gib"));
    c.hbm = GiB(gib);
  }
  for (auto [key, v] : {std::pair<std::string_view, double>{"bf16_tflops", bf16},
                        {"fp8_tflops", fp8},
                        {"hbm_tbps", tbps},
                        {n.Has("hbm_gb") ? "hbm_gb" : "hbm_gib", c.hbm.value()}}) {
    if (!(v > 0)) return n.Error(key, "must be > 0 (got " + std::to_string(v) + ")");
  }
  c.peak_bf16 = TFlops(bf16);
  c.peak_fp8 = TFlops(fp8);
  c.hbm_bandwidth = BytesPerSecond(tbps * 1e12);
  // Host link, GB/s per direction (data/hardware/chips.yaml cites each).
  OCCAM_ASSIGN_OR_RETURN(double host, n.Number("host_link_gbps", 0.0));
  if (!(host >= 0)) return n.Error("host_link_gbps", "must be >= 0");
  c.host_link_bandwidth = BytesPerSecond(host * 1e9);
  OCCAM_RETURN_IF_ERROR(ApplyCalibration(c));
  OCCAM_ASSIGN_OR_RETURN(c.gemm_efficiency, n.Number("gemm_efficiency", c.gemm_efficiency));
  OCCAM_ASSIGN_OR_RETURN(c.gemm_half_tokens, n.Number("gemm_half_tokens", c.gemm_half_tokens));
  if (!(c.gemm_efficiency > 0 && c.gemm_efficiency <= 1)) {
    return n.Error("gemm_efficiency", "must be in (0, 1]");
  }
  if (!(c.gemm_half_tokens >= 0)) return n.Error("gemm_half_tokens", "must be >= 0");
  return c;
}

namespace {

// data/calibration.yaml, parsed once: every chip of the catalog reads it.
const Result<nlohmann::json>& CalibrationDoc() {
  static const Result<nlohmann::json> kDoc = []() -> Result<nlohmann::json> {
    OCCAM_ASSIGN_OR_RETURN(std::string_view text, Embedded(kCalibrationFile));
    return ParseDocument(text, kCalibrationFile);
  }();
  return kDoc;
}

}  // namespace

// data/calibration.yaml: gemm.default, then gemm.chips.<key> overrides.
Status ApplyCalibration(ChipSpec& chip, bool own_entry) {
  const Result<nlohmann::json>& doc = CalibrationDoc();
  if (!doc.ok()) return doc.status();
  const Node root(*doc, std::string(kCalibrationFile), "");
  OCCAM_ASSIGN_OR_RETURN(Node gemm, root.Object("gemm"));
  auto apply = [&chip](const Node& entry) -> Status {
    OCCAM_RETURN_IF_ERROR(
        entry.CheckKeys({"efficiency", "efficiency_source", "half_tokens", "half_tokens_source",
                         "fp8_ratio", "fp8_ratio_source", "half_width", "half_width_source",
                         "moe_dispatch_host_ms", "moe_dispatch_host_ms_source", "measured_plateau",
                         "measured_plateau_source", "flash2_ratio", "flash2_ratio_source"}));
    if (entry.Has("efficiency") != entry.Has("efficiency_source") ||
        entry.Has("half_tokens") != entry.Has("half_tokens_source") ||
        entry.Has("fp8_ratio") != entry.Has("fp8_ratio_source") ||
        entry.Has("half_width") != entry.Has("half_width_source") ||
        entry.Has("moe_dispatch_host_ms") != entry.Has("moe_dispatch_host_ms_source") ||
        entry.Has("measured_plateau") != entry.Has("measured_plateau_source") ||
        entry.Has("flash2_ratio") != entry.Has("flash2_ratio_source")) {
      return entry.Error("efficiency",
                         "efficiency, half_tokens, half_width, fp8_ratio, moe_dispatch_host_ms, "
                         "measured_plateau and flash2_ratio each need a *_source");
    }
    OCCAM_ASSIGN_OR_RETURN(chip.gemm_efficiency, entry.Number("efficiency", chip.gemm_efficiency));
    OCCAM_ASSIGN_OR_RETURN(chip.gemm_half_tokens,
                           entry.Number("half_tokens", chip.gemm_half_tokens));
    OCCAM_ASSIGN_OR_RETURN(chip.gemm_half_width, entry.Number("half_width", chip.gemm_half_width));
    if (!(chip.gemm_half_width >= 0)) return entry.Error("half_width", "must be >= 0");
    OCCAM_ASSIGN_OR_RETURN(chip.gemm_fp8_ratio, entry.Number("fp8_ratio", chip.gemm_fp8_ratio));
    if (!(chip.gemm_fp8_ratio > 0 && chip.gemm_fp8_ratio <= 1)) {
      return entry.Error("fp8_ratio", "must be in (0, 1] (FP8 plateau / BF16 plateau)");
    }
    OCCAM_ASSIGN_OR_RETURN(chip.flash2_ratio, entry.Number("flash2_ratio", chip.flash2_ratio));
    if (!(chip.flash2_ratio > 0 && chip.flash2_ratio <= 1)) {
      return entry.Error("flash2_ratio",
                         "must be in (0, 1] (FlashAttention-2 rate / fused attention rate)");
    }
    OCCAM_ASSIGN_OR_RETURN(double host_ms,
                           entry.Number("moe_dispatch_host_ms", chip.moe_dispatch_host_s * 1e3));
    if (!(host_ms >= 0 && host_ms <= 1000)) {
      return entry.Error("moe_dispatch_host_ms", "must be in [0, 1000] milliseconds");
    }
    chip.moe_dispatch_host_s = host_ms / 1e3;
    OCCAM_ASSIGN_OR_RETURN(chip.gemm_measured_plateau,
                           entry.Number("measured_plateau", chip.gemm_measured_plateau));
    if (!(chip.gemm_measured_plateau >= 0 && chip.gemm_measured_plateau <= 1)) {
      return entry.Error("measured_plateau", "must be in [0, 1] (MAMF / peak; 0 = none)");
    }
    return Status::Ok();
  };
  OCCAM_ASSIGN_OR_RETURN(Node def, gemm.Object("default"));
  OCCAM_RETURN_IF_ERROR(apply(def));
  OCCAM_ASSIGN_OR_RETURN(Node chips, gemm.Object("chips"));
  if (own_entry && chips.Has(chip.key)) {
    OCCAM_ASSIGN_OR_RETURN(Node entry, chips.Object(chip.key));
    OCCAM_RETURN_IF_ERROR(apply(entry));
    // An end-to-end plateau cannot sit above the measured one it stands for.
    if (chip.gemm_measured_plateau > 0 && chip.gemm_efficiency > chip.gemm_measured_plateau) {
      return entry.Error("efficiency",
                         fmt::format("{:g} is above measured_plateau {:g} (the measured matmul "
                                     "maximum over peak); refit it with that cap "
                                     "(occam validate --fit)",
                                     chip.gemm_efficiency, chip.gemm_measured_plateau));
    }
  }
  return Status::Ok();
}

}  // namespace spec

Result<ChipSpec> PriorCalibration(const ChipSpec& chip) {
  ChipSpec prior;
  OCCAM_RETURN_IF_ERROR(spec::ApplyCalibration(prior, /*own_entry=*/false));
  ChipSpec out = chip;
  out.gemm_efficiency = prior.gemm_efficiency;
  out.gemm_half_tokens = prior.gemm_half_tokens;
  out.gemm_half_width = prior.gemm_half_width;
  out.moe_dispatch_host_s = prior.moe_dispatch_host_s;
  return out;
}

std::vector<std::string> CatalogModelNames() {
  std::vector<std::string> names;
  for (const auto& m : kModels) names.emplace_back(m.name);
  return names;
}

Result<ModelSpec> CatalogModel(std::string_view name) {
  for (const auto& m : kModels) {
    if (m.name != name) continue;
    OCCAM_ASSIGN_OR_RETURN(std::string_view text, Embedded(m.file));
    OCCAM_ASSIGN_OR_RETURN(ModelSpec model, ParseModel(text, m.file));
    model.name = std::string(name);
    return model;
  }
  return NotFound("no built-in model '" + Echo(name) +
                  "' (built-in: " + JoinNames(CatalogModelNames()) + "; or give a config path)");
}

std::vector<std::string> CatalogChipKeys() { return Chips().keys; }

Result<ChipSpec> CatalogChip(std::string_view key) {
  const ChipCatalog& cat = Chips();
  if (!cat.status.ok()) return cat.status;
  for (const auto& [name, chip] : cat.by_name) {
    if (name == key) return chip;
  }
  return NotFound("no built-in chip '" + Echo(key) + "' (built-in: " + JoinNames(cat.keys) + ")");
}

std::vector<std::string> CatalogClusterNames() {
  std::vector<std::string> names;
  for (const auto& f : EmbeddedFiles()) {
    if (f.path.substr(0, kClusterDir.size()) != kClusterDir) continue;
    std::string_view base = f.path.substr(kClusterDir.size());
    if (base.size() > 5 && base.substr(base.size() - 5) == ".yaml") {
      names.emplace_back(base.substr(0, base.size() - 5));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

Result<spec::ClusterDoc> TemplateDoc(std::string_view name) {
  const std::string path = std::string(kClusterDir) + std::string(name) + ".yaml";
  auto text = Embedded(path);
  if (!text.ok() || name.find('/') != std::string_view::npos) {
    return NotFound("no cluster template '" + Echo(name) + "' (built-in: " +
                    JoinNames(CatalogClusterNames()) + "; or give a cluster file)");
  }
  return spec::ReadClusterDoc(*text, path);
}

}  // namespace

Result<ClusterSpec> CatalogCluster(std::string_view name, int64_t chips) {
  OCCAM_ASSIGN_OR_RETURN(spec::ClusterDoc doc, TemplateDoc(name));
  return spec::SizeCluster(doc, chips);
}

Result<ClusterSpec> CatalogClusterTemplate(std::string_view name) {
  OCCAM_ASSIGN_OR_RETURN(spec::ClusterDoc doc, TemplateDoc(name));
  return spec::SizeCluster(doc, doc.cluster.num_chips);
}

}  // namespace occam
