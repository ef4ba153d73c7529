// Converting a predicted step time into a source's own metric (doc/validation.md,
// "Metrics and FLOP conventions").
//
// Symbols: B global batch (sequences), s sequence length, L layers, h hidden,
// V vocabulary, a attention heads, d head dim, N chips, T step time.
#pragma once

#include <cstdint>
#include <string>

#include "occam/kinds.h"
#include "occam/spec.h"
#include "occam/validate.h"

namespace occam::validate {

// How a source counts FLOPs: forward passes per step over the transformer
// layers (3 = forward + backward; 4 = plus a recompute forward, Narayanan et
// al. 2021 Eq. 3), over the LM head (never recomputed), and whether attention
// scores are halved for causal masking.
struct FlopsConvention {
  double layer_passes = 3;
  double attention_extra_passes = 0;  // selective recompute re-runs the attention core
  double head_passes = 3;
  bool causal = false;
  bool fp8_peak = false;  // MFU against the FP8 peak (sources that say so, FP8 runs)
  std::string description;
};

// Reads `measured.flops_basis` and `measured.definition` (keyword rules in
// doc/validation.md); `recompute` is the run's (stated or filled) policy.
FlopsConvention ConventionFor(const PublishedRun& run, Recompute recompute, Precision precision);

// The source's FLOPs per token under `conv`: matmul FLOPs from the model's
// shapes (active experts only) plus attention scores/context 4·s·a·d per
// layer (halved when causal) and the LM head 2·h·V.
double SourceFlopsPerToken(const ModelSpec& model, int64_t seq_len, const FlopsConvention& conv);

// The metric value for a step time T: step_time_s = T; tflops_per_chip =
// F/(T·N)/1e12; mfu_pct = 100·F/(T·N·peak); tokens_per_s_per_chip =
// tokens/(T·N); chip_hours_per_trillion_tokens = N·T/3600·1e12/tokens, with F
// = flops_per_token · tokens.
double MetricFromStepTime(MetricKind kind, double step_time_s, double tokens_per_step,
                          double flops_per_token, int64_t chips, double peak_flops_per_s);

// Tokens/s per chip the source reports beside a FLOP-based metric
// (measured.extra tokens_per_s_per_gpu / _per_device / _per_chip), or 0. The
// ratio of the two is the source's own FLOP count per token (its MFU peak
// included), so the prediction converts through it, and no FLOP convention
// has to be assumed: predicted = measured x predicted tokens/s / reported tokens/s.
double ReportedTokensPerSecondPerChip(const PublishedRun& run);

}  // namespace occam::validate
