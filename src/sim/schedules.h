// Pipeline schedules as generated operation lists.
//
// Symbols: p = pipeline devices (ranks), v = chunks per device, m = micro-
// batches per step, n = chunks along one micro-batch's path (p * v, or p for
// each direction of DualPipe).
//
// A micro-batch walks a lane: positions 0..n-1, each a (device, model chunk)
// pair. Forward runs positions 0..n-1, backward n-1..0. One lane for every
// schedule except DualPipe, whose second lane runs the same stages on the
// devices in reverse order (its second parameter copy).
//
// Sources: doc/cost-model.md section 7 (one paragraph per schedule).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "occam/kinds.h"
#include "occam/status.h"

namespace occam::sim {

enum class OpKind : uint8_t {
  kForward,          // F
  kBackward,         // full backward (input and weight gradients)
  kBackwardInput,    // B: input-gradient part only; its W runs later
  kWeight,           // W: weight-gradient part
  kForwardBackward,  // one F and one full backward of another micro-batch,
                     // overlapped (DualPipe's F&B pair)
};

struct Op {
  OpKind kind = OpKind::kForward;
  int32_t microbatch = 0;    // kForwardBackward: the forward's micro-batch
  int32_t pos = 0;           // position along the micro-batch's lane
  int32_t microbatch2 = -1;  // kForwardBackward only: the backward's
  int32_t pos2 = -1;
};

struct Lane {
  std::vector<int32_t> device;  // per position
  std::vector<int32_t> chunk;   // model chunk (index into the chunk costs)
};

struct Program {
  int32_t devices = 0;
  int32_t positions = 0;  // n, equal for every lane
  int64_t parameter_copies = 1;
  std::vector<Lane> lanes;
  std::vector<int32_t> lane_of;      // per micro-batch
  std::vector<std::vector<Op>> ops;  // per device, in execution order
};

// Chunks of model cost the schedule needs: p * v (v = 2 for zbv/dualpipev,
// p for DualPipe's two copies of the same p stages).
int64_t ModelChunks(Schedule schedule, int64_t p, int64_t v);

// Checks (p, v, m) against the schedule's requirements; InvalidInput names
// the plan field and the rule's source.
Status CheckShape(Schedule schedule, int64_t p, int64_t v, int64_t m);

// REQUIRES: CheckShape(...) ok.
Program BuildProgram(Schedule schedule, int64_t p, int64_t v, int64_t m);
// Megatron-Core's combined 1F1B on any list: each full backward followed by
// a forward on the same device becomes one kForwardBackward pair (the
// forward's micro-batch first). On 1F1B (p = 1) and interleaved lists the
// warm-up keeps one forward more than the plain list (Megatron-Core
// combined_1f1b: the first steady-state forward runs alone).
Program CombinedPairs(Program program);
// The DualPipe family (dualpipe.cc). REQUIRES: CheckShape(...) ok.
Program BuildDualPipe(int64_t p, int64_t m);
Program BuildDualPipeV(int64_t p, int64_t m);

// Every (micro-batch, position) has exactly one forward and one backward
// (full or input part plus exactly one W), on the lane's device, in the
// order F before B before W. `name` is the schedule's name for messages.
Status ValidateProgram(const Program& program, std::string_view name);

// True when some device runs a backward before its last forward.
// `where` (optional) receives the first offending operation's name.
bool BackwardBeforeLastForward(const Program& program, std::string* where);

// "F3.1" (forward, micro-batch 3, model chunk 1), "B..", "W..", "F3.1+B0.2".
std::string OpName(const Program& program, const Op& op);

}  // namespace occam::sim
