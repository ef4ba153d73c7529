// Pieces of one run's validation shared by ValidateRuns and the
// cross-validation (validate_cv.cc): its setup and chosen layout, prepared
// once, and its prediction under another calibration.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "occam/spec.h"
#include "occam/step.h"
#include "occam/validate.h"
#include "validate/run_setup.h"

namespace occam::validate {

// Decoder layers on the first and last of `pp` pipeline ranks of `v` chunks
// each as Megatron-LM splits `layers`: evenly when pp*v divides them, else
// the uneven ends its rules allow with the most layers, no end above a
// middle rank, the ends as close as possible, the last the smaller on a tie.
// nullopt when no split exists (run_layout.cc; doc/validation.md).
std::optional<std::pair<int64_t, int64_t>> MegatronEnds(int64_t layers, int64_t pp, int64_t v);

// Chip family of a chip_key: a100, h100, h800, h200, or the key itself.
std::string FamilyOf(std::string_view chip_key);

// Applies the overrides whose family is `family` to the cluster's chip and tiers.
void ApplyOverrides(const std::vector<CalibrationOverride>& overrides, const std::string& family,
                    ClusterSpec* cluster);

// A run with its setup (calibration overrides of `options` applied) and the
// layout chosen for its unstated knobs. `run` is borrowed.
struct PreparedRun {
  const PublishedRun* run = nullptr;
  RunSetup setup;
  PlanSpec plan;
  std::unique_ptr<StepModel> model;  // of `setup`; recalibrated by PredictedRelError
};

// Errors are skip reasons. `out` (optional) receives the filled values.
Result<PreparedRun> PrepareRun(const PublishedRun& run, const ValidateOptions& options,
                               RunValidation* out);

// (predicted - measured) / measured of the prepared layout, its chip's GEMM
// calibration set to the prepared setup's with `overrides` on top (the
// step model's caches are kept). One thread per PreparedRun at a time.
Result<double> PredictedRelError(PreparedRun& p, const std::vector<CalibrationOverride>& overrides);

// Nearest-rank percentile (q in (0, 1]) of `v`; 0 when empty. The one
// definition behind ErrorStats and the cross-validation's fit objective.
double Percentile(std::vector<double> v, double q);

RunValidation ValidateOne(const PublishedRun& run, const ValidateOptions& options);

// ------------------------------------------- memory (memory_score.cc) ---

// The allocator counter a memory run measured, read off measured.definition
// ("reserved" -> max reserved, "allocated" / "max active" -> max allocated);
// nullopt when it names neither.
enum class MemoryCounter { kMaxAllocated, kMaxReserved };
std::optional<MemoryCounter> CounterOf(std::string_view definition);
std::string_view CounterName(MemoryCounter c);
// Bytes in use at the peak, as the counter reads them: max reserved adds
// the caching allocator's overhead (a fraction of the bytes in use), up to
// the device's capacity, where the allocator frees its cache and retries
// instead of reserving more.
double InCounter(double in_use, MemoryCounter c, double reserved_overhead, double capacity);
// The reserved overhead with the smallest median |error| over the max-reserved
// runs among `runs` (validated memory runs: breakdown, capacity, measured);
// 0 when there are none. Grid 0 to 0.30 in steps of 0.005; ties keep the
// smaller value.
double FitReservedOverhead(const std::vector<const RunValidation*>& runs);
// One memory run: the stated layout's peak memory on its most loaded device,
// in the measured counter.
RunValidation ValidateMemoryOne(const PublishedRun& run, const ValidateOptions& options);
// The fields of a run's result that come from the run itself (id, metric,
// measured value, chip family, MoE/TPU, held out), before any prediction.
RunValidation RunHeader(const PublishedRun& run);
inline bool IsMemoryRun(const PublishedRun& run) {
  return run.measured.kind == MetricKind::kMemoryPerChipBytes;
}
// Leave-one-document-out predictions of the memory runs into (*oof)[i]
// (doc/validation.md, "Memory per chip"); other entries are left alone.
void CrossValidateMemory(const std::vector<PublishedRun>& runs, const ValidateOptions& options,
                         std::vector<RunValidation>* oof);
// Fills report->memory and report->memory_not_fit from report->runs.
void SummarizeMemory(ValidationReport* report);

}  // namespace occam::validate
