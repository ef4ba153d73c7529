// Compute time of one op on one chip: a roofline with a shape-dependent GEMM
// efficiency. Calibration values live in data (ChipSpec.gemm_efficiency,
// ChipSpec.gemm_half_tokens); doc/cost-model.md §2 gives their sources.
//
// Symbols: t tokens (rows) of a GEMM, eta GEMM efficiency, P peak FLOP/s,
// W HBM bandwidth.
#include <algorithm>

#include "occam/cost.h"

namespace occam {

double GemmEfficiency(const ChipSpec& chip, double tokens) {
  if (tokens <= 0) return 0;
  // Saturating curve: small-row GEMMs cannot fill the chip's tiles; large
  // ones reach the measured plateau (hardware.md §4.1: 0.73-0.87 of peak on
  // NVIDIA, 0.51-0.68 on AMD).
  return chip.gemm_efficiency * tokens / (tokens + chip.gemm_half_tokens);
}

Seconds GemmTime(const ChipSpec& chip, Precision precision, double flops, double tokens,
                 double bytes) {
  if (flops <= 0 && bytes <= 0) return Seconds(0);
  const FlopsPerSecond peak = precision == Precision::kFp8 ? chip.peak_fp8 : chip.peak_bf16;
  const double eta = GemmEfficiency(chip, tokens);
  const double compute = eta > 0 ? flops / (peak.value() * eta) : 0;
  const double memory = bytes / chip.hbm_bandwidth.value();
  return Seconds(std::max(compute, memory));
}

Seconds MemoryBoundTime(const ChipSpec& chip, double bytes) {
  return Seconds(bytes / chip.hbm_bandwidth.value());
}

}  // namespace occam
