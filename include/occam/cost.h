// The pieces of a step's cost for one model: exact parameter counts, FLOPs
// per token, per-layer work and activation sizes, compute-time efficiency
// and memory per chip. Symbol legend and sources: doc/cost-model.md.
#pragma once

#include <cstdint>

#include "occam/spec.h"
#include "occam/units.h"

namespace occam {

// Exact parameter counts from the config.
struct ParamCounts {
  int64_t total = 0;   // every weight in the main model (embeddings, head, all experts), no MTP
  int64_t active = 0;  // weights touched by one token (top-k + shared experts), no MTP
  int64_t embedding = 0;  // input embedding (+ learned positions)
  int64_t lm_head = 0;    // 0 when tied
  int64_t mtp = 0;        // DeepSeek MTP modules (not in total; HF checkpoint = total + mtp)
  int64_t mtp_active = 0;
};
ParamCounts CountParams(const ModelSpec& model);

// Model FLOPs per token for one forward + backward pass (3x forward), causal
// attention halved, no recompute. Includes the MTP modules' work when present.
Flops ModelFlopsPerToken(const ModelSpec& model, int64_t seq_len);

}  // namespace occam
