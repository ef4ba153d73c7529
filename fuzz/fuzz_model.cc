// Fuzzes model configs (ParseModel: Hugging Face config.json, DeepSeek
// inference configs, occam's YAML/JSON model format). Invariants: errors are
// input errors naming the file; an accepted model passes ValidateModel and
// its parameter and FLOP counts are finite, positive and free of overflow
// (UBSan reports signed overflow in the counts).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "occam/cost.h"
#include "occam/spec.h"

namespace {
constexpr std::string_view kOrigin = "fuzz-model.yaml";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const occam::Result<occam::ModelSpec> model = occam::ParseModel(text, kOrigin);
  if (!model.ok()) {
    occam::fuzz::CheckInputError(model.status(), kOrigin);
    return 0;
  }
  occam::fuzz::Check(occam::ValidateModel(*model, kOrigin).ok(), "ParseModel output must validate");
  const occam::ParamCounts params = occam::CountParams(*model);
  occam::fuzz::Check(params.total > 0 && params.active > 0, "parameter counts must be positive");
  occam::fuzz::Check(params.embedding >= 0 && params.lm_head >= 0 && params.mtp >= 0,
                     "parameter parts must be non-negative");
  for (int64_t seq_len : {int64_t{1}, int64_t{4096}, int64_t{1} << 20}) {
    const double flops = occam::ModelFlopsPerToken(*model, seq_len).value();
    occam::fuzz::Check(std::isfinite(flops) && flops > 0, "FLOPs per token must be finite, > 0");
  }
  return 0;
}
