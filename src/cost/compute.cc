// Compute time of one op on one chip: a roofline with a shape-dependent GEMM
// efficiency. Calibration values live in data (ChipSpec.gemm_efficiency,
// ChipSpec.gemm_half_tokens, ChipSpec.gemm_fp8_ratio); doc/cost-model.md §2 gives their sources.
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
  // FP8 GEMMs reach a lower fraction of their (2x) peak than BF16 ones: H100
  // MAMF 70.9% FP8 vs 80.3% BF16 (ML Engineering (Bekman),
  // compute/accelerator/README.md); chip.gemm_fp8_ratio is that quotient.
  const double eta =
      GemmEfficiency(chip, tokens) * (precision == Precision::kFp8 ? chip.gemm_fp8_ratio : 1.0);
  const double compute = eta > 0 ? flops / (peak.value() * eta) : 0;
  const double memory = bytes / chip.hbm_bandwidth.value();
  return Seconds(std::max(compute, memory));
}

Seconds MemoryBoundTime(const ChipSpec& chip, double bytes) {
  return Seconds(bytes / chip.hbm_bandwidth.value());
}

}  // namespace occam
