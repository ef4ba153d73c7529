// Validation against published, measured training runs (`occam validate`).
//
// A run file is a JSON array in exactly the schema of data/runs/published.json
// (documented in doc/validation.md). For each run occam builds the model,
// cluster, job and layout, fills the knobs the source does not state with one
// documented policy (its framework's defaults, then the first layout in a
// fixed order of preference that fits in memory; doc/validation.md), predicts
// the step time, converts it into the source's
// own metric and definition, and compares. Runs occam cannot model are kept
// with the reason they were skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "occam/spec.h"
#include "occam/status.h"
#include "occam/step.h"

namespace occam {

// ------------------------------------------------------------ run file ---

// `arch.moe` of a run. Null fields are std::nullopt ("not stated").
struct RunMoe {
  int64_t experts = 0;
  int64_t active_experts = 0;
  std::optional<int64_t> shared_experts;
  int64_t expert_ffn = 0;
  std::optional<int64_t> dense_layers;
  std::optional<std::string> note;
};

// `arch.mla` of a run (DeepSeek config names).
struct RunMla {
  std::optional<int64_t> q_lora_rank;
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

struct RunArch {
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  std::optional<int64_t> kv_heads;
  std::optional<int64_t> head_dim;
  std::optional<int64_t> ffn;
  std::optional<std::string> ffn_activation;  // free text: "SwiGLU", "GeLU (standard GPT)", ...
  std::optional<int64_t> vocab;
  std::optional<RunMoe> moe;
  std::optional<RunMla> mla;
  std::optional<std::string> other;  // free text (tied embeddings, sliding windows, ...)
  std::string arch_source;
};

// `parallel` of a run. Integer degrees, or free text where the sources
// describe a setting in words (zero, recompute, schedule, other).
struct RunParallel {
  std::optional<int64_t> tp, pp, vpp, cp, ep, dp;
  std::optional<std::string> zero;
  std::optional<bool> sp;
  std::optional<std::string> recompute;
  std::optional<std::string> schedule;
  std::optional<std::string> other;
};

enum class MetricKind {
  kStepTimeS,                   // seconds per optimizer step
  kTflopsPerChip,               // achieved TFLOP/s per chip (model or hardware FLOPs)
  kMfuPct,                      // model FLOPs utilization in percent
  kTokensPerSPerChip,           // training tokens per second per chip
  kChipHoursPerTrillionTokens,  // chip-hours to train on 1e12 tokens
  kMemoryPerChipBytes,          // peak device memory per chip, bytes (measured.definition says
                                // which counter: PyTorch max allocated / max reserved, ...)
};
std::string_view MetricKindName(MetricKind kind);  // the run-file spelling
std::optional<MetricKind> ParseMetricKind(std::string_view name);

struct RunMeasured {
  std::string metric;  // the source's own words
  MetricKind kind = MetricKind::kStepTimeS;
  std::optional<std::string> flops_basis;  // "model", "hardware", "unspecified"
  double value = 0;
  std::string unit;
  std::string definition;  // how the source computes it (read by the conversion)
  std::string quote;
  std::vector<std::pair<std::string, double>> extra;  // other figures for the same run
};

struct PublishedRun {
  std::string id, source, url, model;
  // The software the source says it ran (one of RunFrameworkNames(); null
  // when it does not say) and the source's date ("2021" or "2021-04"). Both
  // keys may be omitted (read as null). They select the framework's
  // defaults for what the source leaves unstated (doc/validation.md).
  std::optional<std::string> framework;
  std::optional<std::string> date;
  RunArch arch;
  double params_total = 0;
  std::optional<double> params_active;
  std::optional<int64_t> seq_len;
  std::optional<int64_t> global_batch_seqs;
  std::optional<int64_t> global_batch_tokens;
  std::optional<int64_t> micro_batch;
  std::optional<std::string> precision;  // free text: "BF16", "FP8 (Transformer Engine...)", ...
  std::string chip;                      // as the source says it
  std::string chip_key;                  // nearest catalog chip
  int64_t n_chips = 0;
  RunParallel parallel;
  RunMeasured measured;
  std::string notes, verification;
  std::vector<std::string> inferred_fields, derived_fields;
  // Non-empty when the run object's fields could not be read (a missing key,
  // a wrong type, a duplicate id): the first such error, which becomes the
  // run's skip reason. Only `id` (or "[index]") and `chip_key` are then set.
  std::string unreadable;
};

// The accepted `framework` values: megatron-lm, nemo, megatron-bridge,
// deepspeed, torchtitan, maxtext, paxml.
const std::vector<std::string_view>& RunFrameworkNames();

// Strict parser: every key of the schema must be present with its type (or
// null where the schema allows), unknown keys are errors. Messages name the
// origin and key path: "runs.json: [12].parallel.tp must be an integer or null".
// A run object with such an error is kept with the message in `unreadable`
// (validation skips it with that reason); the file as a whole fails only when
// it is not valid JSON or not an array of objects.
Result<std::vector<PublishedRun>> ParseRuns(std::string_view text, std::string_view origin);
// The runs bundled with occam (data/runs/published.json, compiled in).
Result<std::vector<PublishedRun>> BundledRuns();
// The bundled measured-memory runs (data/runs/memory.json, compiled in).
Result<std::vector<PublishedRun>> BundledMemoryRuns();

// ---------------------------------------------------------- validation ---

// One run's outcome. Exactly one of `predicted` and `skipped_reason` is set.
struct RunValidation {
  std::string id;
  MetricKind kind = MetricKind::kStepTimeS;
  std::string metric;  // measured.metric
  double measured = 0;
  std::optional<double> predicted;
  std::optional<double> rel_error;  // (predicted - measured) / measured
  std::string skipped_reason;
  // Values occam chose for fields the source does not state: field -> "value (how)".
  std::vector<std::pair<std::string, std::string>> filled;
  std::string plan;    // the evaluated layout (FormatPlan), "" when skipped
  std::string chip;    // chip_key
  std::string family;  // "a100", "h100", "tpu-v5e", ... (chip generation)
  bool is_moe = false;
  bool is_tpu = false;
  double predicted_step_time_s = 0;
  std::string bottleneck;
  // Memory runs (kind memory_per_chip_bytes): occam's breakdown on the device
  // the measurement refers to (term -> bytes, before the conversion to the
  // measured counter), that device's HBM, and whether occam judges the
  // stated layout to fit it (predicted in-use bytes <= HBM).
  std::vector<std::pair<std::string, double>> memory_terms;
  double memory_capacity_bytes = 0;
  bool memory_fits = true;        // throughput runs too: their chosen layout fits
  std::string memory_definition;  // "max reserved", "max allocated"
  std::string source_document;    // the run's url (the memory folds' key)
};

// Absolute relative error statistics over a set of runs.
struct ErrorStats {
  std::string group;  // "all", "chip a100", "dense", "moe", "gpu", "tpu", ...
  int64_t runs = 0;
  double median = 0;  // median |rel_error|
  double p90 = 0;     // 90th percentile |rel_error| (nearest rank)
  double mean = 0;
  std::string worst_id;
  double worst = 0;
};

struct ValidationReport {
  std::vector<RunValidation> runs;  // in input order
  ErrorStats all;
  std::vector<ErrorStats> families;
  // Mean |step-time error| over the Korthikanti et al. 2022 runs (ids starting
  // "korthikanti2022_"), when present.
  std::optional<ErrorStats> korthikanti;
  int64_t skipped = 0;
  // Memory runs (kind memory_per_chip_bytes), scored apart from the
  // throughput runs above (whose statistics leave them out): "memory all",
  // then by chip family, dense/moe and counter. `memory_not_fit` lists the
  // memory runs occam judges not to fit though their source ran them.
  std::vector<ErrorStats> memory;
  std::vector<std::string> memory_not_fit;
  // Throughput runs whose layout (stated, or filled where nothing fits)
  // occam's memory model judges not to fit though their source ran them:
  // each is an error of that model, reported (doc/validation.md, "Memory per
  // chip").
  std::vector<std::string> layout_not_fit;
};

// One calibration value tried instead of the catalog's, for calibration
// studies (occam validate --set) and the fit's folds: "<family>.gemm_efficiency",
// "<family>.gemm_half_tokens", "<family>.gemm_half_width" or
// "<family>.<tier>.efficiency", where family
// is the chip family of the run (RunValidation::family: a100, h100, tpu-v5e,
// ...) and tier a tier name of its cluster (nvlink, ib, ici, dcn, ...).
struct CalibrationOverride {
  std::string family;
  std::string tier;   // empty for the chip's GEMM parameters
  std::string param;  // gemm_efficiency, gemm_half_tokens, gemm_half_width or efficiency
  double value = 0;
};
// Parses "h100.gemm_efficiency=0.72" / "tpu-v5e.dcn.efficiency=0.6".
Result<CalibrationOverride> ParseCalibrationOverride(std::string_view text);

// The caching allocator's reserved bytes above the bytes in use, a fraction
// of the latter: one global calibration parameter, the value of
// FitReservedOverhead on the bundled measured-memory runs (data/runs/
// memory.json; src/validate/memory_score_test.cc checks the two agree).
// doc/validation.md, "Memory per chip".
inline constexpr double kMemoryReservedOverhead = 0.125;

struct ValidateOptions {
  // Choose unstated knobs (micro-batch, recompute, vpp, ...) by memory. Off:
  // take the first valid candidate in the order of preference, unchecked for
  // memory (fast, for tests of the plumbing).
  bool search_unstated = true;
  std::vector<CalibrationOverride> overrides;
  int threads = 0;  // cross-validation workers; 0 = one per hardware thread
  // Memory runs measured as PyTorch max reserved: the caching allocator's
  // reserved bytes above those in use, as a fraction of the bytes in use
  // (doc/validation.md, "Memory per chip"). The cross-validation fits it
  // per fold on the other documents' runs.
  double memory_reserved_overhead = kMemoryReservedOverhead;
};

// Validates every run; never fails as a whole (a run that cannot be modelled
// is reported as skipped with the reason).
ValidationReport ValidateRuns(const std::vector<PublishedRun>& runs,
                              const ValidateOptions& options = {});

// One run with what occam predicted it from (occam validate --explain): its
// validation row and the estimate of the layout and job it was predicted on,
// with the catalog calibration and `options.overrides` (the --cv folds'
// refits are printed by --cv; pass them with --set to explain a run out of
// sample). `estimate` is absent when the run is skipped (row.skipped_reason).
struct RunExplanation {
  RunValidation row;
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  std::optional<Estimate> estimate;
  // Which calibration predicted it, as the report names it.
  std::string calibration = "in-sample calibration";
};
RunExplanation ExplainRun(const PublishedRun& run, const ValidateOptions& options = {});

// Summary statistics of |rel_error| over the runs with a prediction.
ErrorStats SummarizeErrors(std::string group, const std::vector<const RunValidation*>& runs);

// The report of already validated runs (`runs[i]` of `published[i]`): the
// statistics of ValidateRuns.
ValidationReport SummarizeRuns(std::vector<RunValidation> runs,
                               const std::vector<PublishedRun>& published);

// ------------------------------------------------- out of sample (--cv) ---

// The source family of a run's `source` (leave-one-source-out folds): the
// repository name for "owner/repo ..." sources (lower case; a project that
// moved owners stays one), else the text up to the first year ("Narayanan
// et al. 2021"), lower case.
std::string SourceFamily(std::string_view source);

// A chip family's GEMM calibration (data/calibration.yaml's fitted values).
struct CalibrationPoint {
  double efficiency = 0;
  double half_tokens = 0;
  double half_width = 0;
  double host_ms = 0;  // moe_dispatch_host_ms
};

// One chip family's calibration fit: fitted on `runs` training runs (median
// |error| `median` over them), or the prior when fewer than three remain.
// held_out_source names the fold's held-out source family ("" for the
// catalog's fit on all runs).
struct FamilyFit {
  std::string family;
  std::string held_out_source;
  CalibrationPoint point;
  int64_t runs = 0;
  double median = 0;
  bool host_fitted = false;  // the family has MoE runs: point.host_ms was fitted
};

struct CrossValidationReport {
  // Out-of-fold: each run predicted with the calibration fitted without its
  // source family. Same order and statistics as ValidateRuns.
  ValidationReport summary;
  std::vector<std::string> source;  // SourceFamily per run
  std::vector<FamilyFit> fits;      // the refits of the families each fold touches
  // Per held-out source family: the calibration its runs are predicted with
  // (each refitted or transferred chip family's values, after the options'
  // own overrides). ExplainRun with these added explains a run out of sample.
  std::map<std::string, std::vector<CalibrationOverride>> fold_overrides;
};

// Leave-one-source-out: for each source family, refits the calibration of
// every chip family fitted in the catalog (>= 3 runs) on the other sources'
// runs by FitCalibration's procedure, and predicts the family's runs with it
// (doc/validation.md, "Out of sample").
CrossValidationReport CrossValidateBySource(const std::vector<PublishedRun>& runs,
                                            const ValidateOptions& options = {});

// The catalog's calibration fit on all of `runs` (occam validate --fit;
// doc/validation.md, "Calibration fit"): per chip family with at least three
// predicted throughput runs, the GEMM values (efficiency at most the chip's
// measured plateau, half_tokens, half_width) and, where the family has MoE
// runs, the dispatcher host time, each run's unstated layout chosen under
// the prior calibration. `transfers`: the families whose values are taken
// from the h100 fit (efficiency scaled by the ratio of measured plateaus).
struct FitReport {
  std::vector<FamilyFit> fits;
  std::vector<FamilyFit> transfers;
};
FitReport FitCalibration(const std::vector<PublishedRun>& runs,
                         const ValidateOptions& options = {});

}  // namespace occam
