// From plan to launch: occam layouts as Megatron-LM, torchtitan and MaxText
// configurations, and those configurations read back as occam layouts.
//
// Emit: CheckFramework lists what a framework cannot express of a plan (its
// own divisibility rules, schedules and options; doc/frameworks.md with the
// sources); WriteFrameworkConfig writes the configuration of an expressible
// plan; EmitForFramework does both and, when the plan is not expressible,
// names the nearest plan the framework can express with its estimate. A
// plan is never silently replaced by another.
//
// Read: ParseFrameworkFile reads the file (strict about keys that change the
// layout, warning about the others); ModelFromFile and FileChips give what
// the file says of the model and the world size; ResolveFrameworkFile turns
// it into a PlanSpec and a JobSpec once the model and cluster are known.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "occam/spec.h"
#include "occam/status.h"
#include "occam/step.h"

namespace occam {

enum class Framework { kMegatron, kTorchtitan, kMaxText };

// "megatron", "torchtitan", "maxtext".
std::string_view FrameworkName(Framework f);
std::optional<Framework> ParseFrameworkName(std::string_view name);

// ------------------------------------------------------------------ emit ---

// What the framework cannot express of `plan` (empty: expressible). Each
// entry is one sentence naming the framework's rule. REQUIRES: ValidatePlan ok.
std::vector<std::string> CheckFramework(Framework f, const ModelSpec& model,
                                        const ClusterSpec& cluster, const JobSpec& job,
                                        const PlanSpec& plan);

struct FrameworkConfig {
  std::string text;                // the configuration file (arguments, TOML, YAML)
  std::string flags;               // torchtitan: the same as --section.key flags; else ""
  std::vector<std::string> notes;  // what the reader should know (platform, versions)
};

// REQUIRES: ValidatePlan ok and CheckFramework empty; otherwise InvalidInput.
Result<FrameworkConfig> WriteFrameworkConfig(Framework f, const ModelSpec& model,
                                             const ClusterSpec& cluster, const JobSpec& job,
                                             const PlanSpec& plan);

struct EmitOutcome {
  Framework framework = Framework::kMegatron;
  PlanSpec plan;
  std::vector<std::string> problems;  // empty: `config` expresses `plan`
  FrameworkConfig config;             // of `plan`, or of `nearest`
  std::optional<PlanSpec> nearest;    // set when problems is not empty and one exists
  std::optional<Estimate> nearest_estimate;
  // The first plan of `ranked` (a search's ranking) the framework can
  // express, when it is not `plan` or `nearest`.
  std::optional<PlanSpec> best_expressible;
  std::optional<Estimate> best_expressible_estimate;
};

// Checks `plan` (validated by the step model) and writes its configuration,
// or the nearest expressible plan's: a plan that fits in memory first, then
// the fewest changed plan fields, then the shortest step time. `ranked`
// (fastest first, may be empty) adds the fastest expressible plan of a search.
Result<EmitOutcome> EmitForFramework(Framework f, const StepModel& step, const PlanSpec& plan,
                                     const std::vector<PlanSpec>& ranked = {});

// Text for the terminal: the configuration, or why the plan is not
// expressible and the nearest plan with its step time and MFU.
std::string EmitText(const EmitOutcome& outcome);

// ------------------------------------------------------------------ read ---

// A configuration file as read: recognised keys (normalised names, values
// as text) and warnings about keys occam ignores.
struct FrameworkFile {
  Framework framework = Framework::kMegatron;
  std::string origin;  // file name, for messages
  std::map<std::string, std::string> values;
  std::vector<std::string> warnings;
};

// Megatron-LM: an argument file or a command line (launcher words before the
// training script are skipped; torchrun --nnodes/--nproc-per-node are read).
// torchtitan: a job TOML. MaxText: a YAML of overrides. Unknown keys that
// could change the layout are InvalidInput naming the key and the file.
Result<FrameworkFile> ParseFrameworkFile(Framework f, std::string_view text,
                                         std::string_view origin);

// The world size when the file fixes it (torchrun sizes, explicit degrees
// of every axis, MaxText mesh without -1), else nullopt.
Result<std::optional<int64_t>> FileChips(const FrameworkFile& file);

// The model the file describes: a catalog model named by it (torchtitan
// name/flavor, MaxText model_name) or, for Megatron-LM, the model built from
// its architecture arguments. InvalidInput naming what is missing otherwise.
Result<ModelSpec> ModelFromFile(const FrameworkFile& file);

struct ImportedLayout {
  PlanSpec plan;
  JobSpec job;                     // `base` with the file's sequence, batch, precision
  std::vector<std::string> notes;  // defaults the framework applied
};

// The file's layout on `cluster` for `model`. `base` gives what the file
// does not (MoE balancing, headroom). Errors name the file and key.
Result<ImportedLayout> ResolveFrameworkFile(const FrameworkFile& file, const ModelSpec& model,
                                            const ClusterSpec& cluster, const JobSpec& base);

}  // namespace occam
