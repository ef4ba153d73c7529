// The simulation layer: knows nothing of models. A deterministic
// discrete-event engine plays pipeline schedules on per-device compute and
// communication streams; a routing simulation plays MoE balancing methods
// over training steps. Inputs are plain numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "occam/kinds.h"
#include "occam/status.h"
#include "occam/units.h"

namespace occam {

// ------------------------------------------------------------- pipeline ---

// Work of one micro-batch on one pipeline chunk (a stage, or a virtual stage
// when vpp > 1).
struct ChunkCost {
  Seconds forward;
  Seconds backward_input;   // input-gradient part of the backward (B)
  Seconds backward_weight;  // weight-gradient part (W); full backward = B + W
  Bytes activation;         // activations kept from forward until backward
};

struct PipelineConfig {
  Schedule schedule = Schedule::k1F1B;
  int64_t stages = 1;        // pipeline ranks (devices)
  int64_t vpp = 1;           // chunks per device
  int64_t microbatches = 1;  // per step
  // One entry per chunk in model order (stages * vpp entries; chunk c of the
  // model runs on the device the schedule assigns). A single entry means
  // "all chunks equal".
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
};

Result<PipelineResult> SimulatePipeline(const PipelineConfig& config);

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
