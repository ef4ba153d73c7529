// Shared pieces of the framework mappings (private to src/frameworks).
// Symbols: L layers, S = pp*vpp model chunks, m micro-batches per step
// (global_batch_seqs / (dp*mbs)), G global batch in sequences.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "occam/frameworks.h"
#include "occam/spec.h"

namespace occam::frameworks_internal {

struct Ctx {
  const ModelSpec& model;
  const ClusterSpec& cluster;
  const JobSpec& job;
};

std::string S(int64_t v);

// Layers of each model chunk, in model order, as occam's step layer splits
// them (src/step/stages.h LayerSplit, embedding and head + MTP weighting).
std::vector<int64_t> ChunkLayers(const ModelSpec& model, const PlanSpec& plan);
// The same for the default split (plan.stage_layers ignored).
std::vector<int64_t> DefaultChunkLayers(const ModelSpec& model, const PlanSpec& plan);
// Clears plan.stage_layers when it equals the default split.
void NormaliseStages(const ModelSpec& model, PlanSpec& plan);

int64_t MicroBatches(const JobSpec& job, const PlanSpec& plan);
bool IsBlackwell(const ChipSpec& chip);

// Catalog model <-> framework model names (doc/frameworks.md).
struct ModelName {
  std::string_view catalog;
  std::string_view torchtitan_name, torchtitan_flavor;
  std::string_view maxtext;
};
const std::vector<ModelName>& ModelNames();
const ModelName* FindByCatalog(std::string_view catalog);

// Value parsing for the readers; errors name the file and key.
Result<int64_t> IntValue(const FrameworkFile& f, const std::string& key);
Result<double> NumberValue(const FrameworkFile& f, const std::string& key);
Result<bool> BoolValue(const FrameworkFile& f, const std::string& key);
std::optional<std::string> Value(const FrameworkFile& f, const std::string& key);
// Whether the file sets `key`.
bool Has(const FrameworkFile& f, const std::string& key);
Status FileError(const FrameworkFile& f, const std::string& key, const std::string& what);

// Whether an unknown key's name says it may change the layout (parallel
// degrees, pipeline, batch, sequence, recompute, sharding, offload): such
// keys stop the read; others only warn (doc/frameworks.md "Unknown keys").
bool NameMayChangeLayout(std::string_view key);

// Per framework (megatron*.cc, torchtitan*.cc, maxtext*.cc).
std::vector<std::string> MegatronProblems(const Ctx& c, const PlanSpec& p);
FrameworkConfig MegatronWrite(const Ctx& c, const PlanSpec& p);
Result<FrameworkFile> MegatronParse(std::string_view text, std::string_view origin);
Result<std::optional<int64_t>> MegatronChips(const FrameworkFile& f);
Result<ModelSpec> MegatronModel(const FrameworkFile& f);
Result<ImportedLayout> MegatronResolve(const FrameworkFile& f, const Ctx& c);

std::vector<std::string> TorchtitanProblems(const Ctx& c, const PlanSpec& p);
FrameworkConfig TorchtitanWrite(const Ctx& c, const PlanSpec& p);
Result<FrameworkFile> TorchtitanParse(std::string_view text, std::string_view origin);
Result<std::optional<int64_t>> TorchtitanChips(const FrameworkFile& f);
Result<ImportedLayout> TorchtitanResolve(const FrameworkFile& f, const Ctx& c);

std::vector<std::string> MaxTextProblems(const Ctx& c, const PlanSpec& p);
FrameworkConfig MaxTextWrite(const Ctx& c, const PlanSpec& p);
Result<FrameworkFile> MaxTextParse(std::string_view text, std::string_view origin);
Result<std::optional<int64_t>> MaxTextChips(const FrameworkFile& f);
Result<ImportedLayout> MaxTextResolve(const FrameworkFile& f, const Ctx& c);

// MaxText mesh: each axis's degree inside a slice (ICI) and across slices
// (DCN), filled innermost first in occam's default placement (tensor,
// context, expert, fsdp, data, stage). nullopt when the degrees do not split
// at the slice boundary.
struct MaxTextAxis {
  std::string_view name;  // "tensor", "context", "expert", "fsdp", "data", "pipeline"
  int64_t ici = 1, dcn = 1;
};
int64_t MaxTextSliceSize(const ClusterSpec& cluster);
std::optional<std::vector<MaxTextAxis>> MaxTextMesh(const ClusterSpec& cluster, const PlanSpec& p);

}  // namespace occam::frameworks_internal
