// --emit and --from: framework configurations in the shell (reading the
// file, resolving --model/--cluster against it, printing warnings).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.h"
#include "occam/frameworks.h"
#include "occam/search.h"

namespace occam::cli {

// --emit megatron|torchtitan|maxtext ("" = not given).
Result<std::optional<Framework>> ParseEmitFlag(const std::string& value);

// The inputs of a command that reads --from FMT FILE.
struct FromInputs {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  PlanSpec plan;
  Framework framework = Framework::kMegatron;
};

// Reads the file, takes the model (--model or the file's), the cluster
// (--cluster, sized by --chips or the file's world size) and the job (the
// file's sequence, batch, precision; other job flags) from it. Warnings and
// notes are appended to `notes` (standard error). Errors name what is
// missing.
Result<FromInputs> LoadFrom(const std::vector<std::string>& from, const std::string& model_arg,
                            const std::string& cluster_arg, int64_t chips, const JobFlags& job,
                            std::string& notes);

// Lines comparing `e` with the best layout a search finds and with the
// fastest one the file's framework can express.
Result<std::string> BetterLayoutLine(const FromInputs& in, const Estimate& e);

}  // namespace occam::cli
