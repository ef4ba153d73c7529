// A choice source over libFuzzer's bytes for the random-spec generator
// (src/step/random_specs_test_util.h): Range(lo, hi) consumes bytes.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>

namespace occam::fuzz {

class FdpSource {
 public:
  explicit FdpSource(FuzzedDataProvider& fdp) : fdp_(&fdp) {}
  int64_t Range(int64_t lo, int64_t hi) { return fdp_->ConsumeIntegralInRange(lo, hi); }

 private:
  FuzzedDataProvider* fdp_;
};

}  // namespace occam::fuzz
