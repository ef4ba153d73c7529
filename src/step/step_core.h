// The arithmetic of one layout's step, shared by StepModel::Evaluate and
// EvaluateQuick so that both agree exactly. No allocation, no strings.
// Sources: doc/cost-model.md §6.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "occam/cost.h"
#include "occam/simulate.h"
#include "occam/step.h"
#include "step/comm.h"
#include "step/layer_cost.h"
#include "step/stages.h"
#include "step/write_once_table.h"

namespace occam {

struct StepModel::Impl {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
  ModelWork work;
  double model_flops_per_token = 0;
  double recompute_full_flops_per_token = 0;    // extra forward of every block (x1)
  double recompute_attn_flops_per_token = 0;    // extra attention-core forward
  double recompute_mlp_flops_per_token = 0;     // the dense MLPs' (shared experts') forward
  double recompute_op_flops_per_token = 0;      // what operator-level checkpointing re-runs
  double recompute_expert_flops_per_token = 0;  // extra routed-expert forward (MoE blocks)
  // Default MoE rank imbalance per (ep, tokens per rank), from the balance
  // simulation (DefaultMoeImbalance); filled on first use, shared by threads.
  mutable std::mutex lambda_mu;
  mutable MoeImbalanceCache lambda_cache;
  // Memo of final values: a cache hit above still rebuilds the load
  // statistics (~15 us). Keyed by (ep, tokens per rank) packed in 64 bits,
  // sized for a search (DeepSeek-V3 on 2048 H800 asks ~160 keys); read
  // without lambda_mu (step/write_once_table.h).
  step_internal::WriteOnceTable<uint64_t, double, 1024> lambda_memo;
  // Load of the busiest EP rank over the mean: the routed imbalance, capped
  // by the job's capacity factor (tokens beyond capacity are dropped).
  double Lambda(const PlanSpec& plan) const;
  double RoutedLambda(const PlanSpec& plan) const;
  // Layouts of the rank groups on the cluster (step/comm.h).
  step_internal::GroupCache group_cache;
  // Costs of the collectives already met (step/comm.h).
  step_internal::CollectiveCache collective_cache;
  // Simulated pipelines by shape (step/pipeline_timing.h); thread-safe.
  mutable PipelineCache pipeline_cache;
};

namespace step_internal {

// One DP/optimizer item at the end of the step.
struct TailItem {
  Seconds total, exposed;
  int tier = -1;
};

struct CoreResult {
  double m = 0;         // micro-batches per step
  Seg crit;             // per micro-batch costs of the slowest device
  Seconds crit_period;  // its per micro-batch time
  Seconds bubble;
  TailItem p2p, dp_grad, edp_grad, dp_gather, edp_gather, optimizer;
  Seconds step;
  MemoryBreakdown memory;  // the device with the largest total
  // Closed forms (simulated = false, pp > 1): the largest device memory with
  // the in-flight count of each device's lightest chunk (HeldFloor), below
  // the simulated pipeline's; otherwise memory.total().
  Bytes memory_floor;
  Bytes capacity;
  bool fits = false;
  double mfu = 0, hfu = 0;
  bool all_forward_first = false;
  // Bubble and activation peaks from the pipeline simulator (pp > 1), not
  // the closed forms of stages.h.
  bool simulated = false;
  bool converted = false;  // global-batch aux loss: run as gpipe
  PlanContext ctx;
};

// Per-micro-batch costs of each piece of the model under one plan.
struct PlanSegs {
  Seg dense, moe, embed, head, mtp;
  // The loss on the head's device, per micro-batch (LossBytes): bytes kept
  // between its forward and backward (the logits, or under a chunked loss
  // the hidden states' gradient), and its working set while it runs.
  Bytes logits;
  Bytes loss_peak;
  int64_t chunks = 1;
  LayerSplit split;
};

PlanContext MakeContext(const StepModel::Impl& impl, const PlanSpec& plan);
// MakeContext into an existing (default-constructed) context.
void InitContext(const StepModel::Impl& impl, const PlanSpec& plan, PlanContext& c);
// A global-batch aux loss under PP needs every micro-batch's routing before
// the first backward: all forwards run first (GPipe-like).
bool AllForwardFirst(const StepModel::Impl& impl, const PlanSpec& plan);
PlanSegs BuildSegs(const StepModel::Impl& impl, const PlanContext& ctx);
// Pipelines whose F&B pairs the simulator plays (DualPipe / DualPipeV,
// combined 1F1B; ctx.ep_window == kPaired and pp > 1): the plan's segs with
// the expert all-to-all and host time left on their passes
// (EpWindow::kExposed) into `out`, for BuildPipelinePlan's `paired`; false,
// `out` untouched, for every other plan.
bool PairedSegs(const StepModel::Impl& impl, const PlanContext& ctx, PlanSegs& out);
// Costs of model chunk c (its layers, plus embedding / head / MTP at the ends).
Seg ChunkSeg(const PlanSegs& segs, const ModelWork& work, int64_t c);
// What ChunkSeg depends on: chunk c's dense and MoE layer counts and whether
// it holds the embedding (first) or the head and MTP (last).
struct ChunkKey {
  int64_t dense = 0, moe = 0;
  bool first = false, last = false;
  bool operator==(const ChunkKey&) const = default;
};
ChunkKey KeyOfChunk(const PlanSegs& segs, const ModelWork& work, int64_t c);
Seg ChunkSegOf(const PlanSegs& segs, const ChunkKey& key);

// ChunkSeg of one plan's chunks, each distinct key summed once: a plan's
// chunks repeat a few keys (the interior stages of a split), and the
// bounds and the device sweep visit every chunk. One plan, one thread;
// `segs` must outlive it and stay unchanged.
class ChunkSegMemo {
 public:
  ChunkSegMemo(const PlanSegs& segs, const ModelWork& work) : segs_(segs), work_(work) {}
  // The sum of chunk c; valid until the next call.
  const Seg& Of(int64_t c) { return OfKey(KeyOfChunk(segs_, work_, c)); }
  const Seg& OfKey(const ChunkKey& key);

 private:
  static constexpr size_t kSlots = 6;
  const PlanSegs& segs_;
  const ModelWork& work_;
  std::array<ChunkKey, kSlots> keys_{};
  std::array<Seg, kSlots> sums_;
  size_t size_ = 0;
  Seg spill_;  // a key past the slots
};

// One micro-batch's hidden states between neighbouring chunks on this
// chip: b*s*h*2/(cp*tp) bytes with SP, /cp without (P2pOne's message).
Bytes BoundaryBytes(const PlanContext& c);

// Communication buffers every device holds: TP all-gather and EP
// send/receive buffers (DeviceMemory's "other" besides ZeRO-3's prefetch).
Bytes CommBuffers(const PlanContext& c);

// Unsharded copies ZeRO-3 / FSDP holds beside its shards on a device with
// `params` parameters (step_core.cc: gathered weights and unsharded
// gradients under PP, else two gathered blocks and the root unit).
Bytes FullyShardedBuffers(const PlanContext& c, double params, bool has_embedding, bool has_head);

// Send/recv of one activation (or its gradient) between neighbouring
// chunks: b*s*h*2/(cp*tp) bytes (SP) over the pp group.
CommCost P2pOne(const PlanContext& c);

// How RunCore times a pipeline (pp > 1). kSimulated: the event simulator
// through impl.pipeline_cache (bubble = makespan - m t*, p2p inside it;
// activations at each device's simulated peak); schedules it cannot run
// (a V or DualPipe placement under a global-batch aux loss) keep the closed
// forms. kClosedForm: stages.h BubbleTime and InFlight (the planner's
// ranking pass, doc/cost-model.md §6).
enum class PipelineTimingModel { kSimulated, kClosedForm };

// REQUIRES: the plan is valid for the model, cluster and job.
// `device_memory`, when given, receives the memory of every pipeline device
// in device order (the estimate's per-device chart; the planner passes none).
CoreResult RunCore(const StepModel::Impl& impl, const PlanSpec& plan,
                   PipelineTimingModel model = PipelineTimingModel::kSimulated,
                   std::vector<MemoryBreakdown>* device_memory = nullptr);

// ValidatePlan plus the step's own requirements (stage list, schedule
// shapes); messages name the plan field.
Status CheckPlan(const StepModel::Impl& impl, const PlanSpec& plan);

// Names, breakdown lines, bottleneck sentence and assumptions (estimate.cc).
Estimate BuildEstimate(const StepModel::Impl& impl, const PlanSpec& plan, const CoreResult& r);

}  // namespace step_internal
}  // namespace occam
