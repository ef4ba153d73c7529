// Pipeline structure of a plan: how layers split into chunks, which device
// runs which chunk, how many micro-batches each device keeps in flight and
// the pipeline bubble. Closed forms; doc/cost-model.md §6 and §7.
//
// Symbols: p pipeline devices (plan.pp), v chunks per device, S = p*v model
// chunks (p for DualPipe), m micro-batches per step, L layers.
#pragma once

#include <cstdint>

#include "occam/spec.h"
#include "occam/units.h"

namespace occam::step_internal {

// Layer split into S chunks, computed in O(1) per chunk without allocation.
// Default rule: the embedding counts as `embed_units` layer-equivalents on
// chunk 0 and LM head + loss (+ MTP) as `head_units` on chunk S-1; layers are
// spread so that chunk loads (layers + extra units) are as even as integers
// allow, every chunk holding at least one layer. plan.first_layers /
// last_layers (uneven ends: per-rank counts, the middle ranks even) or an
// explicit plan.stage_layers list override the rule.
class LayerSplit {
 public:
  LayerSplit() = default;
  LayerSplit(const PlanSpec& plan, int64_t chunks, int64_t layers, double embed_units,
             double head_units);
  int64_t chunks() const { return chunks_; }
  int64_t Begin(int64_t c) const;  // first layer of chunk c
  int64_t Count(int64_t c) const;  // layers in chunk c

 private:
  const PlanSpec* plan_ = nullptr;
  int64_t chunks_ = 1, layers_ = 0;
  int64_t first_ = 0, last_ = 0, middle_q_ = 0, middle_r_ = 0;
  bool uneven_ = false;  // plan.first_layers / last_layers: per-rank counts
};

// Model chunks of the plan (S) and the schedule as run. A global-batch aux
// loss forces all-forward-then-all-backward on MoE pipelines.
int64_t ModelChunks(const PlanSpec& plan);
int64_t ChunksPerDevice(const PlanSpec& plan);
// The simulator's chunks per device on one lane (DualPipe's second copy is a
// second lane, so 1 there).
int64_t SimLaneChunks(const PlanSpec& plan);
// The share of a micro-batch each of a device's chunks carries: DualPipe's
// micro-batches cross one of the device's two stage copies (1/2 each), every
// other schedule's all of its chunks (1).
double ChunkShare(const PlanSpec& plan);
// The k-th chunk of device d (k < ChunksPerDevice).
int64_t ChunkOf(const PlanSpec& plan, int64_t d, int64_t k);

// Micro-batches whose activations device d holds at its peak, in units of
// one micro-batch's activations over all of the device's chunks (DualPipe:
// over one of its two stage copies). `all_forward_first`: GPipe-like.
double InFlight(const PlanSpec& plan, int64_t d, double m, bool all_forward_first);
// The same count in chunk passes (one micro-batch through one chunk):
// InFlight x ChunksPerDevice x ChunkShare.
double InFlightPasses(const PlanSpec& plan, int64_t d, double m, bool all_forward_first);

// Per micro-batch times of one device: forward, input-gradient backward,
// weight-gradient backward (exposed per-micro-batch comm included).
struct DeviceTimes {
  Seconds f, b, w;
  Seconds total() const { return f + b + w; }
};

// Bubble time of the step given every device's per-micro-batch times:
// sum_all = sum over devices, crit = the slowest device (the pipeline's
// period), m micro-batches. Formulas per schedule in doc/cost-model.md §6.
Seconds BubbleTime(const PlanSpec& plan, const DeviceTimes& sum_all, const DeviceTimes& crit,
                   bool all_forward_first, double m);

}  // namespace occam::step_internal
