// Cheap lower bounds the planner uses to skip layouts before costing them:
// static memory per chip (weights + optimizer state, nothing else) and step
// time (model FLOPs at peak, stretched by the pipeline fill/drain of
// schedules with a bubble). Both only undercount, so skipping a layout whose
// bound already fails can never drop a layout the full estimate would keep
// (doc/search.md §Pruning; tested against exhaustive search). The parameter
// and FLOP counts are the cost layer's (BuildModelWork), the ones the step
// model charges.
#pragma once

#include "occam/spec.h"
#include "occam/units.h"

namespace occam::search {

class Bounds {
 public:
  // REQUIRES: ValidateModel ok, job.seq_len > 0.
  Bounds(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job);

  // Usable HBM per chip after the job's headroom.
  Bytes capacity() const { return capacity_; }
  Bytes MemoryLowerBound(const PlanSpec& plan) const;
  Seconds StepTimeLowerBound(const PlanSpec& plan) const;

  // Parameters outside routed experts (embedding, blocks, head, MTP modules)
  // and of all routed experts (MTP modules' included).
  double dense_params() const { return dense_params_; }
  double expert_params() const { return expert_params_; }
  // FLOPs per token of forward + backward (ModelFlopsPerToken's count), and
  // what full recompute adds: one more forward of every block.
  double flops_per_token() const { return flops_per_token_; }
  double recompute_flops_per_token() const { return recompute_flops_per_token_; }

 private:
  double dense_params_ = 0;
  double expert_params_ = 0;
  double flops_per_token_ = 0;
  double recompute_flops_per_token_ = 0;
  double tokens_ = 0;      // per step
  double batch_seqs_ = 0;  // sequences per step
  double weight_bytes_ = 2;
  double chips_ = 1;
  FlopsPerSecond peak_;
  Bytes capacity_;
};

}  // namespace occam::search
