// The plausible ranges of occam's numeric inputs, shared by the file
// validators (ValidateCluster, ValidateJob) and the CLI flags.
#pragma once

#include <string>
#include <string_view>

#include "occam/status.h"

namespace occam {

// The plausible range of one numeric input, named by its file key
// ("job.seq_len", "cluster.tiers[].bandwidth_gbps", in the file's units);
// the ranges and their reasons are in doc/input-formats.md § Ranges.
// `name` is what the message calls the value: a key path with its file, or a
// CLI flag ("--seq-len"), so flags and files share one rule. NaN is outside
// every range.
Status CheckInputRange(std::string_view key, double value, const std::string& name);

}  // namespace occam
