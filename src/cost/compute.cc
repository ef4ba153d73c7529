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
  // ones reach the measured plateau (doc/hardware.md §4.1: 0.73-0.87 of peak on
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

double Fp8CastBytes(const BlockWork& block, double tokens, int64_t tp, int64_t etp, double lambda,
                    double per_element) {
  // FP8 GEMMs read FP8 operands (Micikevicius et al. 2022 arXiv:2209.05433
  // §2; NVIDIA Transformer Engine FP8 primer): the cast is a separate
  // memory-bound pass, 2 B read + 1 B FP8 copy + 1 B transposed copy (Hopper
  // FP8 GEMMs: cuBLASLt takes FP8 only in the TN layout) per element
  // (`per_element` = 4; 5 where an amax read comes first).
  const double t = static_cast<double>(tp > 0 ? tp : 1);
  const double e = static_cast<double>(etp > 0 ? etp : 1);
  double elems = tokens * (block.attn_proj.io + block.mlp.io) / t;
  elems += tokens * block.top_k / t * lambda * block.expert.io / e;
  return per_element * elems;
}

}  // namespace occam
