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

struct RunSetup {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  PlanSpec plan;  // stated fields; open ones hold a placeholder
  OpenKnobs open;
  // Per-chip micro-batch convention (MaxText per_device_batch_size): the
  // micro-batch per data-parallel rank is then global_batch / dp.
  bool per_chip_batch = false;
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

// Records a value chosen by interpretation or convention (null: ignored).
void Fill(std::vector<std::pair<std::string, std::string>>* filled, std::string field,
          std::string how);

// Framework settings (src/validate/run_framework.cc, doc/validation.md): the
// first year 2000-2099 named in `text` as a whole word, or 0; the defaults
// of pre-2023 frameworks for sources dated up to 2022 (attention kernel,
// dropout, gradient-reduction overlap), recorded in `filled`; the settings a
// run states in its notes, parallel.other or metric definition (TP comm
// overlap, capacity factor, forced balance); and whether it states that the
// experts are split over the tp group.
int SourceYear(const std::string& text);
void SetDatedDefaults(const PublishedRun& run, JobSpec* job,
                      std::vector<std::pair<std::string, std::string>>* filled);
void SetStatedJobSettings(const PublishedRun& run, JobSpec* job);
bool StatesExpertTpEqualsTp(const PublishedRun& run);

// Everything above. An error's message is the run's skip reason.
Result<RunSetup> BuildRunSetup(const PublishedRun& run);

}  // namespace occam::validate
