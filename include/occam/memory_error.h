// The validated error of occam's memory per chip, and what a fit verdict
// means in its light. Value and derivation: doc/validation.md, "Memory per
// chip" (the median absolute error on the bundled measured-memory runs out
// of sample, leave one document out; src/validate/validate_cv_test.cc ties
// the two).
#pragma once

#include <string_view>

#include "occam/units.h"

namespace occam {

// Half of the bundled measured-memory runs err by less than this fraction out
// of sample (6.10%, rounded up to a whole percent).
inline constexpr double kMemoryErrorBand = 0.07;

// How a predicted peak compares with the usable capacity once the validated
// error is allowed for either way.
enum class MemoryFit {
  kFits,             // total * (1 + band) <= capacity
  kFitsWithinError,  // total <= capacity < total * (1 + band)
  kOverWithinError,  // total * (1 - band) <= capacity < total
  kDoesNotFit,       // capacity < total * (1 - band)
};

constexpr MemoryFit ClassifyMemoryFit(Bytes total, Bytes capacity, double band = kMemoryErrorBand) {
  const double t = total.value(), c = capacity.value();
  if (t * (1.0 + band) <= c) return MemoryFit::kFits;
  if (t <= c) return MemoryFit::kFitsWithinError;
  if (t * (1.0 - band) <= c) return MemoryFit::kOverWithinError;
  return MemoryFit::kDoesNotFit;
}

constexpr std::string_view MemoryFitName(MemoryFit f) {
  switch (f) {
    case MemoryFit::kFits:
      return "fits";
    case MemoryFit::kFitsWithinError:
      return "fits only within occam's memory error";
    case MemoryFit::kOverWithinError:
      return "does not fit, but within occam's memory error";
    case MemoryFit::kDoesNotFit:
      return "does not fit";
  }
  return "?";
}

}  // namespace occam
