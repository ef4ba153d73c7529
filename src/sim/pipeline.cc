// SimulatePipeline: plays a schedule's operation list on the event engine.
//
// Per device three streams: compute (program order: the schedule's list),
// send and recv (ready order). A transfer between neighbouring chunks on
// different devices takes `p2p`, holding the sender's send stream and the
// receiver's recv stream; chunks on the same device hand over for free (as
// does everything when p2p = 0: no transfer is recorded then).
// Communication is asynchronous: compute never waits for its own sends.
//
// Dependencies, for micro-batch j at lane position q (n positions):
//   F(j,q)  after F(j,q-1) (+ transfer)
//   B(j,q)  after F(j,q), and B(j,q+1) (+ transfer), or F(j,n-1) at q = n-1
//   W(j,q)  after B(j,q)
// Activations of (j,q) are held from the start of F(j,q) until its last
// backward pass ends (B when not split, W when split): conservative, since
// B frees most of them (Qi et al. arXiv:2401.10241 §2 count W's memory as
// small). Releases at an instant count before acquisitions at that instant.
#include <algorithm>
#include <string>
#include <vector>

#include "occam/simulate.h"
#include "sim/engine.h"
#include "sim/pipeline_internal.h"
#include "sim/schedules.h"

namespace occam {
namespace {

using sim::Op;
using sim::OpKind;
using sim::Program;
using sim::StreamEngine;

constexpr int64_t kMaxOperations = 20'000'000;

std::string Str(int64_t x) { return std::to_string(x); }

Status CheckCosts(const PipelineConfig& c, int64_t chunks) {
  const auto n = int64_t(c.chunks.size());
  if (n != 1 && n != chunks) {
    return InvalidInput("pipeline chunk costs: expected 1 or " + Str(chunks) + " entries for " +
                        std::string(ScheduleName(c.schedule)) + " with pp = " + Str(c.stages) +
                        " (got " + Str(n) + ")");
  }
  for (int64_t i = 0; i < n; ++i) {
    const ChunkCost& k = c.chunks[i];
    const std::string at = "pipeline chunk " + Str(i) + ": ";
    const double vals[] = {k.forward.value(),         k.backward_input.value(),
                           k.backward_weight.value(), k.activation.value(),
                           k.forward_comm.value(),    k.backward_comm.value()};
    for (double x : vals) {
      if (!(x >= 0) || x > 1e30) {
        return InvalidInput(at + "times and sizes must be finite and >= 0");
      }
    }
    if (k.forward_comm > k.forward || k.backward_comm > k.backward_input + k.backward_weight) {
      return InvalidInput(at + "communication parts cannot exceed the forward / backward times");
    }
  }
  if (!(c.p2p.value() >= 0) || c.p2p.value() > 1e30) {
    return InvalidInput("pipeline p2p time must be finite and >= 0");
  }
  return Status::Ok();
}

const ChunkCost& CostOf(const PipelineConfig& c, int32_t chunk) {
  return c.chunks.size() == 1 ? c.chunks[0] : c.chunks[chunk];
}

Seconds FullBackward(const ChunkCost& k) { return k.backward_input + k.backward_weight; }

// DualPipe's F&B pair: each side's communication hides behind the other's
// compute (DeepSeek-V3 §3.2.1, Figure 4).
Seconds PairTime(const ChunkCost& f, const ChunkCost& b) {
  const Seconds comm = f.forward_comm + b.backward_comm;
  const Seconds compute = f.forward + FullBackward(b) - comm;
  return Max(compute, comm);
}

}  // namespace

namespace sim {

Seconds OpDuration(const PipelineConfig& c, const Program& prog, const Op& op) {
  const auto& lane = prog.lanes[prog.lane_of[op.microbatch]];
  const ChunkCost& k = CostOf(c, lane.chunk[op.pos]);
  switch (op.kind) {
    case OpKind::kForward:
      return k.forward;
    case OpKind::kBackward:
      return FullBackward(k);
    case OpKind::kBackwardInput:
      return k.backward_input;
    case OpKind::kWeight:
      return k.backward_weight;
    case OpKind::kForwardBackward: {
      const auto& lane2 = prog.lanes[prog.lane_of[op.microbatch2]];
      return PairTime(k, CostOf(c, lane2.chunk[op.pos2]));
    }
  }
  return Seconds(0);
}

Result<PipelineResult> SimulateProgram(const PipelineConfig& c, const Program& prog) {
  const std::string name(ScheduleName(c.schedule));
  OCCAM_RETURN_IF_ERROR(ValidateProgram(prog, name));
  std::string where;
  if (c.require_all_forward_first && BackwardBeforeLastForward(prog, &where)) {
    return InvalidInput(
        "schedule " + name + " starts a backward pass (" + where +
        ") before every micro-batch has finished its forward pass, but a global-batch "
        "auxiliary loss needs the whole batch's expert loads before any backward; use "
        "--schedule gpipe (alias afab), or aux-loss-free (bias) balancing, which allows every "
        "schedule");
  }
  PlayedProgram played;
  OCCAM_RETURN_IF_ERROR(Play(c, prog, played));
  return Measure(c, prog, played);
}

}  // namespace sim

Result<PipelineResult> SimulatePipeline(const PipelineConfig& c) {
  OCCAM_RETURN_IF_ERROR(sim::CheckShape(c.schedule, c.stages, c.vpp, c.microbatches));
  const int64_t chunks = sim::ModelChunks(c.schedule, c.stages, c.vpp);
  if (c.chunks.empty()) {
    return InvalidInput("pipeline config has no chunk costs (give at least one)");
  }
  OCCAM_RETURN_IF_ERROR(CheckCosts(c, chunks));
  const int64_t ops = 3 * c.microbatches * std::max<int64_t>(chunks, c.stages * c.vpp);
  if (ops > kMaxOperations) {
    return InvalidInput("pipeline too large to simulate: " + Str(c.microbatches) +
                        " micro-batches x " + Str(chunks) + " chunks exceeds " +
                        Str(kMaxOperations / 3) + " (micro-batch, chunk) pairs; use fewer");
  }
  Program prog = sim::BuildProgram(c.schedule, c.stages, c.vpp, c.microbatches);
  if (c.combined_1f1b) prog = sim::CombinedPairs(std::move(prog));
  return sim::SimulateProgram(c, prog);
}

}  // namespace occam
