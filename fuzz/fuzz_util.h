// Helpers shared by the libFuzzer targets: invariant checks that abort (so
// libFuzzer records the input as a crash) and the rules every parser error
// must follow.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "occam/status.h"

namespace occam::fuzz {

// Aborts with `what` when `ok` is false. libFuzzer saves the input.
inline void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "occam fuzz invariant violated: %s\n", what);
  std::abort();
}

inline void CheckFiniteNonNegative(double v, const char* what) {
  Check(std::isfinite(v) && v >= 0, what);
}

// Every error of a parser is an input error (never kInternal, which would
// mean "a bug in occam") with a message that names `origin`.
inline void CheckInputError(const Status& status, std::string_view origin) {
  Check(status.code() == StatusCode::kInvalidInput || status.code() == StatusCode::kNotFound,
        "a parser error must be InvalidInput or NotFound");
  Check(!status.message().empty(), "an error message must not be empty");
  if (!origin.empty()) {
    if (status.message().find(origin) == std::string::npos) {
      std::fprintf(stderr, "message: %s\n", status.message().c_str());
    }
    Check(status.message().find(origin) != std::string::npos,
          "an error message must name the input file");
  }
}

}  // namespace occam::fuzz
