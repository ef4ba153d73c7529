// Turning a published run into occam's inputs: model, cluster, job, the plan
// fields the source states, and the list of knobs it leaves open. Policies for
// every unstated field are in doc/validation.md ("Unstated fields").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "occam/spec.h"
#include "occam/status.h"
#include "occam/validate.h"

namespace occam::validate {

// The software a run states it ran (PublishedRun::framework).
enum class Framework {
  kUnstated,
  kMegatronLm,
  kNemo,
  kMegatronBridge,
  kDeepSpeed,
  kTorchtitan,
  kMaxText,
  kPaxml,
};
Framework FrameworkOf(const PublishedRun& run);
// Megatron-LM and the frameworks that run Megatron-Core (NeMo, Megatron-Bridge).
bool IsMegatronFamily(Framework f);

// What a framework does with a knob its configuration leaves unset (sources
// in run_framework.cc and doc/validation.md). nullopt: no documented default.
struct FrameworkDefaults {
  std::optional<int> zero;                   // ZeRO stage of its data parallelism
  std::optional<Recompute> recompute;        // activation recomputation
  std::optional<Schedule> schedule;          // pp > 1 with no interleaving stated
  bool etp_is_tp = false;                    // experts split over the tp group
  bool fsdp_keeps_weights_under_pp = false;  // FSDP: no reshard after forward when pp > 1
  std::string source;                        // "repo: file" the defaults are read from
};
FrameworkDefaults DefaultsOf(Framework framework);

// Plan knobs the source leaves open; the validation searches them.
struct OpenKnobs {
  bool tp = false;
  bool pp = false;
  bool ep = false;
  bool vpp = false;       // interleaving degree (schedule interleaved or open)
  bool schedule = false;  // 1F1B vs interleaved when pp > 1 (pp open, or not stated)
  bool mbs = false;
  bool recompute = false;
  bool zero = false;
};

// The order in which values of an open knob are tried: the framework's
// default first, then the ones that need less memory (doc/validation.md,
// "Unstated fields"). Fixed knobs hold their one value.
struct KnobOrder {
  std::vector<Recompute> recompute;
  std::vector<int> zero;
  std::vector<int64_t> etp_over_tp;  // 1: etp = tp (Megatron-Core's default), 0: etp = 1
  // torchtitan FSDP2 (reshard_after_forward "default"): the ZeRO stage is 3
  // without pipeline and 2 (weights kept gathered) with it.
  bool zero_follows_pp = false;
  // The schedule for pp > 1 when the source states none: interleaved where
  // its stated flags imply it (every v with a split, fewest virtual stages
  // first), else the framework's default, or nullopt (1F1B, then interleaved
  // with the fewest virtual stages).
  std::optional<Schedule> schedule;
};

struct RunSetup {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  PlanSpec plan;  // stated fields; open ones hold a placeholder
  OpenKnobs open;
  KnobOrder order;
  Framework framework = Framework::kUnstated;
  // Per-chip micro-batch convention (MaxText per_device_batch_size): the
  // micro-batch per data-parallel rank is then global_batch / dp.
  bool per_chip_batch = false;
  // The smallest tensor-parallel size an open tp may take: 2 when the run
  // states sequence parallelism, which splits the sequence over the
  // tensor-parallel group (Korthikanti et al. 2022 §4.2.2) and is nothing
  // without one.
  int64_t min_tp = 1;
  // Values chosen by interpretation or convention: field -> "value (how)".
  std::vector<std::pair<std::string, std::string>> filled;
};

// Free-text interpretation (documented keyword rules; nullopt = not stated).
std::optional<Precision> InterpretPrecision(const std::optional<std::string>& text);
std::optional<Recompute> InterpretRecompute(const std::optional<std::string>& text);
// ZeRO stage (0..3) and, for HSDP, the shard group size (0 = all dp ranks).
struct ZeroSetting {
  int stage = 1;
  int64_t shard_group = 0;
};
std::optional<ZeroSetting> InterpretZero(const std::optional<std::string>& text);
// kNone for "no pipeline", kInterleaved / k1F1B when named; nullopt when the
// source does not say (or says it does not say).
std::optional<Schedule> InterpretSchedule(const std::optional<std::string>& text);
// Number of TPU slices joined over DCN when the source says so ("across 2
// slice(s)"), else 1.
int64_t InterpretSlices(const PublishedRun& run);

// The model: the catalog config with the architecture `arch` states (layers,
// hidden, heads, experts, MLA dimensions and every stated size), else one
// built from `arch` (src/validate/run_model.cc). Errors are skip reasons that
// name the missing or inconsistent field.
Result<ModelSpec> BuildModel(const PublishedRun& run,
                             std::vector<std::pair<std::string, std::string>>* filled);
// The cluster from chip_key and n_chips (a catalog template, with the slice
// structure the source describes; a count that does not fill whole scale-up
// domains spread evenly over the fewest that hold it, recorded in `filled`).
Result<ClusterSpec> BuildCluster(const PublishedRun& run,
                                 std::vector<std::pair<std::string, std::string>>* filled);

// The policies that keep fewer activations than `r`, lightest first:
// selective (core attention) after none, full recomputation after any
// partial one. The order an unstated recompute is tried in after the
// framework's default, and after a closest recipe's policy (run_recipe.cc).
std::vector<Recompute> HeavierRecompute(Recompute r);

// Records a value chosen by interpretation or convention (null: ignored).
void Fill(std::vector<std::pair<std::string, std::string>>* filled, std::string field,
          std::string how);

// Framework settings (src/validate/run_framework.cc, doc/validation.md): the
// year of the run's `date`, or 0 when it states none; the defaults of
// pre-2023 software for runs dated up to 2022 (attention kernel for every
// framework; Megatron-LM's dropout and gradient-reduction timing), recorded
// in `filled`; the settings a run states in its notes, parallel.other or
// metric definition (TP comm overlap, capacity factor, forced balance, a
// chunked loss) and its precision text (BF16 training state), the
// defaults they imply recorded in `filled`.
int RunYear(const PublishedRun& run);
void SetDatedDefaults(const PublishedRun& run, JobSpec* job,
                      std::vector<std::pair<std::string, std::string>>* filled);
void SetStatedJobSettings(const PublishedRun& run, JobSpec* job,
                          std::vector<std::pair<std::string, std::string>>* filled);
// The ZeRO stages (0..3) `framework` offered at the run's `date` (all for
// undated runs; src/validate/run_framework.cc): unstated stages are filled
// only from these.
std::vector<int> ZeroStagesOffered(const PublishedRun& run, Framework framework);
// The ZeRO stage a Megatron-family run's stated flags imply when it states
// none (--overlap-param-gather needs the distributed optimizer), or nullopt.
std::optional<int> ZeroImpliedByFlags(const PublishedRun& run, Framework framework);
// Whether a Megatron-family run's stated pipeline-parallel communication
// overlap implies the interleaved schedule (Megatron-LM overlaps it only
// there).
bool InterleavedImpliedByFlags(const PublishedRun& run, Framework framework);

// What the framework's own training configuration for `model` sets
// (src/validate/run_framework.cc), used where a run states nothing: its
// sequence length and the kind of recomputation its "selective" means.
// nullopt when the framework ships no configuration for the model.
struct FrameworkModelConfig {
  int64_t seq_len = 0;
  Recompute selective = Recompute::kSelective;
  std::string source;
};
std::optional<FrameworkModelConfig> FrameworkConfigFor(Framework framework, const ModelSpec& model);

// The micro-batch of a torchtitan run that states its local batch
// (measured.extra local_batch_size, one data-parallel rank's sequences per
// step), with how it follows from torchtitan's defaults; nullopt otherwise.
struct DerivedMicroBatch {
  int64_t mbs = 0;
  std::string how;
};
std::optional<DerivedMicroBatch> TorchtitanMicroBatch(const PublishedRun& run, Framework framework,
                                                      int64_t pp);

// Everything above. An error's message is the run's skip reason.
Result<RunSetup> BuildRunSetup(const PublishedRun& run);

}  // namespace occam::validate
