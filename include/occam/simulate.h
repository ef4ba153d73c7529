// The simulation layer: knows nothing of models. A deterministic
// discrete-event engine plays pipeline schedules on per-device compute and
// communication streams; a routing simulation plays MoE balancing methods
// over training steps. Inputs are plain numbers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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
  // Megatron-Core's combined 1F1B (expert all-to-all overlap, plan field
  // a2a_overlap=1): every full backward that a device's list runs right
  // before a forward is played with that forward as one F&B pair (as
  // DualPipe's, each hiding the other's forward_comm / backward_comm), which
  // adds one warm-up forward. Lists without "B then F" (gpipe, ZB) form none.
  bool combined_1f1b = false;
  bool record_timeline = false;
};

struct TimelineEvent {
  int64_t device = 0;
  int stream = 0;    // 0 = compute, 1 = send, 2 = recv
  std::string name;  // "F3.1" (forward, micro-batch 3, chunk 1), "B..", "W..", "send .."
  Seconds start;
  Seconds end;
};

struct PipelineResult {
  Seconds makespan;
  double bubble_fraction = 0;                       // idle / makespan on the busiest device
  std::vector<int64_t> peak_inflight_microbatches;  // per device
  std::vector<Bytes> peak_activation;               // per device
  int64_t parameter_copies = 1;                     // 2 for DualPipe
  std::vector<TimelineEvent> timeline;              // only if record_timeline
  std::vector<Seconds> busy;  // per device: compute time (an F&B pair counts once)
  // Peak (micro-batch, chunk) activation sets held at once, per device.
  std::vector<int64_t> peak_inflight_chunks;
};

Result<PipelineResult> SimulatePipeline(const PipelineConfig& config);

// DualPipe / DualPipeV pair a forward chunk pass with a backward one so that
// each hides the other's communication (DeepSeek-V3 report §3.2.1); the
// warm-up forwards, the cool-down backwards and the meeting device's first
// main-step pass run alone. Returns the share of all devices' forward
// (equally, backward) chunk passes that run alone, every device running the
// same number: counted from the schedule's operation list (dualpipe.cc), so
// the step layer charges, summed over the devices, the exposed communication
// of the pairs the simulator plays.
// 1 for every other schedule (no F&B pairs). REQUIRES: a valid (p, m) shape.
double UnpairedPassFraction(Schedule schedule, int64_t p, int64_t m);

// The numbers the planner needs from a simulation.
struct PipelineSummary {
  Seconds makespan;
  double bubble_fraction = 0;
  int64_t peak_inflight_microbatches = 0;  // max over devices
  Bytes peak_activation;                   // max over devices
  int64_t parameter_copies = 1;
  std::vector<Bytes> device_peak_activation;  // per device
};

// Fast path for the planner: memoises SimulatePipeline by shape. Results
// scale exactly with time and with bytes, so the key is (schedule, p, v, m,
// flags, every time divided by the first chunk's forward and every size by
// the first chunk's activation, as exact doubles); a hit is rescaled to the
// caller's units. No rounding: a caller that wants nearby costs to share an
// entry rounds them first (the step layer keeps 8 mantissa bits). A miss
// simulates the key's values, so a result depends only on its key (the same
// under any thread count). Safe to share between threads (sharded locks); a
// hit does not allocate when `out` already has room for the per-device peaks.
class PipelineCache {
 public:
  PipelineCache();
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  Result<PipelineSummary> Get(const PipelineConfig& config);
  Status Get(const PipelineConfig& config, PipelineSummary& out);
  size_t size() const;
  int64_t hits() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------ balancing ---
//
// MoE routing balance over training steps (doc/cost-model.md §8). Knows
// nothing of models: experts, top-k, groups and EP degree are plain numbers.
// A seeded generator draws token-to-expert affinities (Zipf-like popularity
// that drifts over steps, a topic vector per sequence, per-token noise),
// tokens pick their top-k experts (optionally group-limited), and each
// balancing method updates its state once per step:
//   aux-free         selection-only bias b_i += u * sign(mean load - load_i)
//                    (Wang et al. arXiv:2408.15664 Alg. 1; DeepSeek-V3 §2.1.2)
//   aux-loss         alpha * sum_i f_i P_i with f over each micro-batch
//   global-aux-loss  the same loss with f over the whole global batch
//   seq-aux          the same loss with f over each sequence (DeepSeek-V3 Eq. 17)
//   none             no balancing
// The aux losses act through their gradient on the router logits, modelled as
// a per-expert logit displacement d that relaxes towards -alpha*dL/dd / kappa
// (kappa = lm_stiffness, how strongly the language-model loss holds the
// router at its preferred, imbalanced logits).
//
// Speed: only `sample_tokens` tokens per step are routed (a subset of
// sequences, a subset of tokens in each); the batch load is rebuilt from the
// sample with the fluctuation rescaled to the real batch's size (between- and
// within-sequence variance, doc/cost-model.md §8.4). 2000 steps of a
// 1M-token batch over 256 experts take a few seconds of one core.

struct BalanceConfig {
  int64_t experts = 256;
  int64_t top_k = 8;
  int64_t groups = 1;       // expert groups (nodes) for group-limited routing
  int64_t topk_groups = 1;  // groups a token may use
  int64_t ep = 1;           // expert-parallel ranks (experts split evenly, contiguous)
  BalanceMethod method = BalanceMethod::kAuxFree;
  double alpha = 0.001;      // aux-loss coefficient
  double bias_rate = 0.001;  // aux-free update speed u
  int64_t steps = 1000;
  int64_t tokens_per_step = 1 << 20;  // global batch
  int64_t seq_len = 4096;
  int64_t microbatch_seqs = 1;  // sequences per micro-batch (scope of aux-loss's f)
  // Tokens one EP rank dispatches per micro-batch: an EP layer's all-to-all
  // group routes ep * tokens_per_rank tokens, and the straggler factor is
  // measured at that granularity.
  int64_t tokens_per_rank = 4096;
  double zipf_s = 1.0;           // popularity skew of the affinity generator (0 = uniform)
  double drift = 0.01;           // per-step drift of popularity (logits, random walk)
  double lm_stiffness = 1e-6;    // kappa, nats per token per logit^2 (see §8.3)
  int64_t sample_tokens = 1024;  // routed tokens per simulated step
  uint64_t seed = 1;
};

struct BalanceStep {
  int64_t step = 0;
  double max_vio_batch = 0;            // (max_i load_i - mean) / mean, this step's batch
  double rank_load_max_over_mean = 0;  // same batch, per EP rank
  double straggler = 0;                // rank max/mean of one all-to-all group
  double bias_abs_max = 0;             // aux-free: max_i |b_i|
  double displacement_abs_max = 0;     // aux losses: max_i |d_i| (logits)
};

struct BalanceResult {
  double max_vio_batch = 0;        // mean over the last 10% of steps
  double max_vio_batch_first = 0;  // mean over the first 10% of steps
  double max_vio_global = 0;       // over all tokens of all steps
  // Over the tokens of the last 10% of steps: the trained router's long-run
  // balance, comparable to Wang et al. Table 2 (measured on validation data).
  double max_vio_global_final = 0;
  double rank_load_max_over_mean = 0;  // mean over the last 10% of steps
  // lambda: expected max/mean rank load of one EP all-to-all group
  // (ep * tokens_per_rank tokens), mean over the last 10% of steps. An EP
  // layer's expert GEMMs and receive volume scale with it.
  double straggler_factor = 0;
  double bias_abs_max = 0;  // max over all steps
  int64_t sample_seqs = 0;  // sequences routed per step
  int64_t sample_tokens_per_seq = 0;
  bool exact = false;  // true when every token of the batch was routed
  std::vector<BalanceStep> series;
};

// InvalidInput (naming the flag) for impossible or too expensive configs.
Status ValidateBalanceConfig(const BalanceConfig& config);
Result<BalanceResult> SimulateBalance(const BalanceConfig& config);

// Default EP rank imbalance lambda (max/mean rank load of one all-to-all
// group) for a job, for the step layer (expert GEMM time and all-to-all
// receive volume on the most loaded rank are multiplied by lambda).
//
// It runs a short SimulateBalance (250 steps, 128 routed tokens per step,
// zipf 1, drift 0.01, seed 1, the method's default alpha: 1e-3 for aux-loss
// and global-aux-loss, 1e-4 for seq-aux) and returns its straggler_factor.
// A miss costs ~0.1 s of one core for 256 experts, so the caller keeps one
// MoeImbalanceCache for the whole search (no globals here); see there for
// what it shares between queries. ep == 1 returns 1 (no all-to-all group to
// wait for). Typical values (256 experts, top-8, 4 of 8 groups, EP 64,
// 4096 tokens per rank): aux-free ~1.14, aux-loss ~1.24, seq-aux ~1.86, none ~2.6.
//
// Memory headroom rule (doc/cost-model.md §8.5): the dispatch receive buffer
// of a rank holds lambda * k * tokens_per_rank token copies when dropless
// (DeepSeek-V3 drops no tokens), or C * k * tokens_per_rank with a
// token-dropping capacity factor C (then the load above C is dropped); see
// MoeReceiveBufferFactor.
struct MoeImbalanceQuery {
  BalanceMethod method = BalanceMethod::kAuxFree;
  int64_t experts = 0;
  int64_t top_k = 0;
  int64_t ep = 1;
  int64_t tokens_per_rank = 4096;  // per micro-batch
  int64_t groups = 1;
  int64_t topk_groups = 1;
  int64_t seq_len = 4096;
  bool operator<(const MoeImbalanceQuery& o) const;
};

// Owned by the caller for a whole search. One simulation per distinct
// (method, experts, top_k, ep, groups, topk_groups, seq_len); a query that
// differs only in tokens_per_rank reuses it (the straggler factor of another
// all-to-all group size is rebuilt from the stored rank-load states, the same
// arithmetic SimulateBalance uses). Not thread-safe: guard it with a mutex.
class MoeImbalanceCache {
 public:
  MoeImbalanceCache();
  ~MoeImbalanceCache();
  MoeImbalanceCache(MoeImbalanceCache&&) noexcept;
  MoeImbalanceCache& operator=(MoeImbalanceCache&&) noexcept;

  Result<double> Get(const MoeImbalanceQuery& query);
  int64_t misses() const { return misses_; }  // simulations run

 private:
  struct Entries;
  std::unique_ptr<Entries> entries_;
  int64_t misses_ = 0;
};

Result<double> DefaultMoeImbalance(const MoeImbalanceQuery& query);

// Receive-buffer size of one rank relative to the balanced k * tokens_per_rank
// token copies: lambda when dropless (capacity_factor == 0), else the
// capacity factor C (tokens beyond C * mean are dropped).
double MoeReceiveBufferFactor(double lambda, double capacity_factor);

}  // namespace occam
