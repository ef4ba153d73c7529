// Bytes per element of the number formats in mixed-precision training, and the
// per-parameter byte counts of the training state derived from them. Every
// layer that counts bytes of weights, gradients, optimizer state or
// activations reads them from here. Sources: doc/cost-model.md §3.
#pragma once

#include "occam/kinds.h"

namespace occam {

// ------------------------------------------------------- number formats ---

inline constexpr double kFp32Bytes = 4.0;
inline constexpr double kBf16Bytes = 2.0;  // BF16 or FP16
inline constexpr double kFp8Bytes = 1.0;

// One stored or exchanged activation element: 16-bit in mixed-precision
// training (Micikevicius et al. 2018 arXiv:1710.03740 §3).
inline constexpr double kActivationBytes = kBf16Bytes;

// Bytes of one weight a GEMM reads: the 16-bit copy, or the FP8 cast under
// FP8 training (DeepSeek-V3 arXiv:2412.19437 §3.3).
constexpr double WeightReadBytes(Precision p) {
  return p == Precision::kFp8 ? kFp8Bytes : kBf16Bytes;
}

// --------------------------------------------------- training state ---

// Megatron distributed-optimizer convention (Megatron-LM docs,
// distrib_optimizer.md): a 16-bit weight, an fp32 gradient, and fp32 master
// weight + Adam m + v per parameter.
inline constexpr double kWeightBytesPerParam = kBf16Bytes;
inline constexpr double kGradBytesPerParam = kFp32Bytes;
inline constexpr double kAdamStateBytesPerParam = 3 * kFp32Bytes;
// The fp32 master weight inside kAdamStateBytesPerParam.
inline constexpr double kMasterWeightBytesPerParam = kFp32Bytes;

// BF16 training state (torchtitan training.dtype "bfloat16": parameters,
// gradients and Adam moments all BF16, no fp32 master; job keys
// master_weights, gradients, optimizer_moments): 2 + 2 + 2 x 2 = 8 bytes
// per parameter. BF16 Adam moments beside an fp32 master: DeepSeek-V3
// arXiv:2412.19437 §3.3.2.
inline constexpr double kBf16GradBytesPerParam = kBf16Bytes;
inline constexpr double kBf16AdamMomentsBytesPerParam = 2 * kBf16Bytes;
inline constexpr double kFp32AdamMomentsBytesPerParam = 2 * kFp32Bytes;

// HBM traffic of the Adam update per owned parameter: read the gradient and
// master, m, v; write master, m, v and the 16-bit weight (4 + 12 + 12 + 2).
inline constexpr double kAdamUpdateTrafficBytesPerParam =
    kGradBytesPerParam + 2 * kAdamStateBytesPerParam + kWeightBytesPerParam;

// The least optimizer state per parameter any supported recipe keeps: two
// Adam moments in BF16 (DeepSeek-V3 arXiv:2412.19437 §3.3.2 "Low-Precision
// Optimizer States"). The planner's memory lower bound uses it, so the bound
// stays below the modelled state (kAdamStateBytesPerParam).
inline constexpr double kOptimizerStateFloorBytesPerParam = 2 * kBf16Bytes;
static_assert(kOptimizerStateFloorBytesPerParam <= kAdamStateBytesPerParam,
              "the pruning bound must not exceed the modelled optimizer state");

}  // namespace occam
