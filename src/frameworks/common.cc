// Shared pieces of the framework mappings; see internal.h.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "frameworks/internal.h"
#include "step/stages.h"

namespace occam {

std::string_view FrameworkName(Framework f) {
  switch (f) {
    case Framework::kMegatron:
      return "megatron";
    case Framework::kTorchtitan:
      return "torchtitan";
    case Framework::kMaxText:
      return "maxtext";
  }
  return "?";
}

std::optional<Framework> ParseFrameworkName(std::string_view name) {
  if (name == "megatron" || name == "megatron-lm") return Framework::kMegatron;
  if (name == "torchtitan") return Framework::kTorchtitan;
  if (name == "maxtext") return Framework::kMaxText;
  return std::nullopt;
}

namespace frameworks_internal {

std::string S(int64_t v) { return std::to_string(v); }

std::vector<int64_t> DefaultChunkLayers(const ModelSpec& model, const PlanSpec& plan) {
  PlanSpec p = plan;
  p.stage_layers.clear();
  const int64_t chunks = step_internal::ModelChunks(p);
  // The weights the step layer gives the ends (src/step/step_core.cc
  // BuildSegs): embedding 1 layer-equivalent, head + loss 1, each MTP module 2.
  const double head_units = 1.0 + 2.0 * static_cast<double>(model.mtp_layers);
  const step_internal::LayerSplit split(p, chunks, model.num_layers, 1.0, head_units);
  std::vector<int64_t> out;
  for (int64_t c = 0; c < chunks; ++c) out.push_back(split.Count(c));
  return out;
}

std::vector<int64_t> ChunkLayers(const ModelSpec& model, const PlanSpec& plan) {
  if (!plan.stage_layers.empty()) return plan.stage_layers;
  return DefaultChunkLayers(model, plan);
}

void NormaliseStages(const ModelSpec& model, PlanSpec& plan) {
  if (!plan.stage_layers.empty() && plan.stage_layers == DefaultChunkLayers(model, plan)) {
    plan.stage_layers.clear();
  }
}

int64_t MicroBatches(const JobSpec& job, const PlanSpec& plan) {
  return job.global_batch_seqs / std::max<int64_t>(plan.dp * plan.mbs, 1);
}

bool IsBlackwell(const ChipSpec& chip) {
  for (std::string_view k : {"b200", "gb200", "b300", "gb300"}) {
    if (chip.key == k) return true;
  }
  return false;
}

const std::vector<ModelName>& ModelNames() {
  // torchtitan: torchtitan/models/<name> flavors (T0 train_configs);
  // MaxText: src/maxtext/configs/models/<name>.yml (doc/frameworks.md).
  static const std::vector<ModelName> kNames = {
      {"llama-3.1-8b", "llama3", "8B", "llama3.1-8b"},
      {"llama-3.1-70b", "llama3", "70B", "llama3.1-70b"},
      {"deepseek-v3", "deepseek_v3", "671B", "deepseek3-671b"},
      {"deepseek-v2-lite", "deepseek_v3", "16B", "deepseek2-16b"},
      {"mixtral-8x7b", "", "", "mixtral-8x7b"},
  };
  return kNames;
}

const ModelName* FindByCatalog(std::string_view catalog) {
  for (const auto& n : ModelNames()) {
    if (n.catalog == catalog) return &n;
  }
  return nullptr;
}

Status FileError(const FrameworkFile& f, const std::string& key, const std::string& what) {
  return InvalidInput(f.origin + ": " + key + ": " + what);
}

std::optional<std::string> Value(const FrameworkFile& f, const std::string& key) {
  auto it = f.values.find(key);
  if (it == f.values.end()) return std::nullopt;
  return it->second;
}

bool Has(const FrameworkFile& f, const std::string& key) { return f.values.count(key) > 0; }

Result<int64_t> IntValue(const FrameworkFile& f, const std::string& key) {
  const std::string v = f.values.at(key);
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) {
    return FileError(f, key, "'" + v + "' is not an integer");
  }
  if (out > (int64_t{1} << 40) || out < -(int64_t{1} << 40)) {
    return FileError(f, key, "'" + v + "' is implausibly large");
  }
  return out;
}

Result<double> NumberValue(const FrameworkFile& f, const std::string& key) {
  const std::string v = f.values.at(key);
  char* end = nullptr;
  const double out = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(out)) {
    return FileError(f, key, "'" + v + "' is not a number");
  }
  return out;
}

Result<bool> BoolValue(const FrameworkFile& f, const std::string& key) {
  const std::string v = f.values.at(key);
  if (v == "true" || v == "True" || v == "1") return true;
  if (v == "false" || v == "False" || v == "0") return false;
  return FileError(f, key, "'" + v + "' is not true or false");
}

bool NameMayChangeLayout(std::string_view key) {
  static constexpr std::array<std::string_view, 16> kWords = {
      "parallel", "pipeline", "batch",   "seq",   "recompute", "remat",   "shard", "fsdp",
      "zero",     "expert",   "offload", "stage", "virtual",   "context", "ici_",  "dcn_"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](std::string_view w) { return key.find(w) != std::string_view::npos; });
}

}  // namespace frameworks_internal
}  // namespace occam
