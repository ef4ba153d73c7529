// Internals of SimulatePipeline shared by pipeline.cc, play.cc and tests.
#pragma once

#include <cstdint>
#include <vector>

#include "occam/simulate.h"
#include "sim/engine.h"
#include "sim/schedules.h"

namespace occam::sim {

// A transfer of one activation (forward) or gradient (backward) between
// devices: the (micro-batch, position) whose output it carries.
struct Transfer {
  int32_t task = 0;
  int32_t src = 0;
  int32_t dst = 0;
  int32_t microbatch = 0;
  int32_t pos = 0;
  bool backward = false;
};

// The engine after Run() and the task ids of every pass, indexed by
// micro-batch * positions + position (-1 when absent). Device d's i-th
// operation is task compute[first_compute[d] + i].
struct PlayedProgram {
  StreamEngine engine;
  std::vector<int32_t> first_compute;  // per device: offset into `compute`
  std::vector<int32_t> compute;        // task of every operation, device by device
  std::vector<int32_t> f_task, b_task, w_task;
  std::vector<Transfer> transfers;  // only when the config records a timeline
  int32_t ComputeTask(int32_t device, size_t op) const {
    return compute[static_cast<size_t>(first_compute[device]) + op];
  }
};

Seconds OpDuration(const PipelineConfig& c, const Program& prog, const Op& op);
// Builds the engine's tasks for `prog` and runs them. Internal error naming
// the stuck operation when the lists wait on each other.
Status Play(const PipelineConfig& c, const Program& prog, PlayedProgram& out);
PipelineResult Measure(const PipelineConfig& c, const Program& prog, const PlayedProgram& played);
// SimulatePipeline on a given operation list (validated first).
Result<PipelineResult> SimulateProgram(const PipelineConfig& c, const Program& prog);

}  // namespace occam::sim
