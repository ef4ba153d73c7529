// The simulation layer: knows nothing of models. A deterministic
// discrete-event engine plays pipeline schedules on per-device compute and
// communication streams; a routing simulation plays MoE balancing methods
// over training steps. Inputs are plain numbers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "occam/kinds.h"
#include "occam/status.h"
#include "occam/units.h"

namespace occam {

// ------------------------------------------------------------- pipeline ---
//
// Schedules, their sources and the formulas they are checked against:
// doc/cost-model.md section 7. Symbols: p = stages (devices), v = chunks per
// device, m = micro-batches per step.

// Work of one micro-batch on one pipeline chunk (a stage, or a virtual stage
// when vpp > 1).
struct ChunkCost {
  Seconds forward;
  Seconds backward_input;   // input-gradient part of the backward (B)
  Seconds backward_weight;  // weight-gradient part (W); full backward = B + W
  Bytes activation;         // activations kept from forward until backward
  // Communication inside forward / full backward (e.g. MoE all-to-all) that
  // can hide behind another chunk's compute when DualPipe overlaps an F and
  // a B: the pair takes max(F - fc + B - bc, fc + bc) instead of F + B.
  // Included in `forward` / the full backward; zero = nothing to hide.
  Seconds forward_comm;
  Seconds backward_comm;
};

struct PipelineConfig {
  Schedule schedule = Schedule::k1F1B;
  int64_t stages = 1;        // pipeline ranks (devices)
  int64_t vpp = 1;           // chunks per device (2 for zbv and dualpipev)
  int64_t microbatches = 1;  // per step (both directions together for DualPipe)
  // One entry per model chunk in model order, or a single entry meaning "all
  // chunks equal". Model chunks: stages * vpp (stages for DualPipe, whose two
  // directions run the same stages on two parameter copies). Chunk c runs on
  // device c % stages (interleaved, gpipe), c (1f1b, zb-h1), or c and
  // 2*stages-1-c in a V (zbv, dualpipev).
  std::vector<ChunkCost> chunks;
  Seconds p2p;  // send/recv of one activation between neighbouring chunks
  // Global-batch aux loss: backward may not start before all forwards end.
  bool require_all_forward_first = false;
  bool record_timeline = false;
};

struct TimelineEvent {
  int64_t device = 0;
  int stream = 0;  // 0 = compute, 1 = send, 2 = recv
  std::string name;  // "F3.1" (forward, micro-batch 3, chunk 1), "B..", "W..", "send .."
  Seconds start;
  Seconds end;
};

struct PipelineResult {
  Seconds makespan;
  double bubble_fraction = 0;  // idle / makespan on the busiest device
  std::vector<int64_t> peak_inflight_microbatches;  // per device
  std::vector<Bytes> peak_activation;               // per device
  int64_t parameter_copies = 1;                     // 2 for DualPipe
  std::vector<TimelineEvent> timeline;              // only if record_timeline
  std::vector<Seconds> busy;  // per device: compute time (an F&B pair counts once)
  // Peak (micro-batch, chunk) activation sets held at once, per device.
  std::vector<int64_t> peak_inflight_chunks;
};

Result<PipelineResult> SimulatePipeline(const PipelineConfig& config);

// The numbers the planner needs from a simulation.
struct PipelineSummary {
  Seconds makespan;
  double bubble_fraction = 0;
  int64_t peak_inflight_microbatches = 0;  // max over devices
  Bytes peak_activation;                   // max over devices
  int64_t parameter_copies = 1;
};

// Fast path for the planner: memoises SimulatePipeline by shape. Results
// scale exactly with time and with bytes, so the key is (schedule, p, v, m,
// flags, every time relative to the first chunk's forward and every size
// relative to the first chunk's activation, each rounded to 1e-6); a hit is
// rescaled to the caller's units. Safe to share between threads.
class PipelineCache {
 public:
  PipelineCache();
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  Result<PipelineSummary> Get(const PipelineConfig& config);
  size_t size() const;
  int64_t hits() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------ balancing ---

struct BalanceConfig {
  int64_t experts = 256;
  int64_t top_k = 8;
  int64_t groups = 1;       // expert groups (nodes) for group-limited routing
  int64_t topk_groups = 1;  // groups a token may use
  int64_t ep = 1;           // expert-parallel ranks (experts split evenly)
  BalanceMethod method = BalanceMethod::kAuxFree;
  double alpha = 0.001;      // aux-loss coefficient
  double bias_rate = 0.001;  // aux-free update speed u
  int64_t steps = 1000;
  int64_t tokens_per_step = 1 << 20;
  int64_t seq_len = 4096;
  double zipf_s = 1.0;   // popularity skew of the affinity generator
  double drift = 0.01;   // per-step drift of popularity
  uint64_t seed = 1;
};

struct BalanceStep {
  int64_t step = 0;
  double max_vio_batch = 0;
  double rank_load_max_over_mean = 0;
  double bias_abs_max = 0;
};

struct BalanceResult {
  double max_vio_batch = 0;   // mean over the last 10% of steps
  double max_vio_global = 0;  // over all tokens of all steps
  double rank_load_max_over_mean = 0;  // mean over the last 10% of steps
  double straggler_factor = 0;         // expected slowdown of an EP layer
  std::vector<BalanceStep> series;
};

Result<BalanceResult> SimulateBalance(const BalanceConfig& config);

}  // namespace occam
