// Internal: the model config readers behind ParseModel (model_parse.cc).
// Each takes the parsed document root and fills a ModelSpec; none validates
// cross-field rules (ValidateModel does).
#pragma once

#include "occam/spec.h"
#include "spec/doc.h"

namespace occam::spec {

// Hugging Face config.json; dispatches on `model_type`.
Result<ModelSpec> ReadHfModel(const Node& root);
// DeepSeek's own inference configs (inference/configs/*.json in
// deepseek-ai/DeepSeek-V3: `dim`, `inter_dim`, `n_layers`, ...).
Result<ModelSpec> ReadDeepSeekInferenceModel(const Node& root);
// occam's own model format: a top-level `model:` object (doc/input-formats.md).
Result<ModelSpec> ReadOccamModel(const Node& root);

// The supported HF model_type values, comma separated, for messages.
std::string SupportedModelTypes();

// A required integer that must be >= min; the message names the key path.
Result<int64_t> IntAtLeast(const Node& node, std::string_view key, int64_t min);
Result<int64_t> IntAtLeast(const Node& node, std::string_view key, int64_t min, int64_t fallback);

}  // namespace occam::spec
