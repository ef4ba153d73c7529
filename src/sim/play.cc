// Playing an operation list on the event engine, and measuring the result.
// Dependencies and memory accounting: see pipeline.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/pipeline_internal.h"

namespace occam::sim {
namespace {

struct Streams {
  std::vector<int32_t> compute, send, recv;
};

// Builds the engine's tasks. Task ids follow the schedule's rough time
// order (operation i of every device, then i + 1, each pass followed by the
// transfers of its outputs), so the engine walks its arrays almost in order.
class Builder {
 public:
  Builder(const PipelineConfig& c, const Program& prog, PlayedProgram& out)
      : c_(c), prog_(prog), out_(out), n_(prog.positions) {}

  void AddTasks() {
    StreamEngine& e = out_.engine;
    for (int32_t d = 0; d < prog_.devices; ++d) {
      s_.compute.push_back(e.AddStream(StreamEngine::Order::kProgram));
      s_.send.push_back(e.AddStream(StreamEngine::Order::kReady));
      s_.recv.push_back(e.AddStream(StreamEngine::Order::kReady));
    }
    const size_t pairs = prog_.lane_of.size() * size_t(n_);
    size_t ops = 0, longest = 0;
    out_.first_compute.resize(prog_.devices);
    for (int32_t d = 0; d < prog_.devices; ++d) {
      out_.first_compute[d] = static_cast<int32_t>(ops);
      ops += prog_.ops[d].size();
      longest = std::max(longest, prog_.ops[d].size());
    }
    e.Reserve(ops + 2 * pairs, 6 * pairs);  // <= 2 transfers, 6 edges per pair
    out_.compute.assign(ops, -1);
    for (auto* v : {&out_.f_task, &out_.b_task, &out_.w_task, &fx_, &bx_}) v->assign(pairs, -1);
    if (c_.record_timeline) out_.transfers.reserve(2 * pairs);
    for (size_t i = 0; i < longest; ++i) {
      for (int32_t d = 0; d < prog_.devices; ++d) {
        if (i < prog_.ops[d].size()) AddOp(d, i);
      }
    }
  }

  void AddDependencies() {
    StreamEngine& e = out_.engine;
    for (int32_t mb = 0; mb < int32_t(prog_.lane_of.size()); ++mb) {
      for (int32_t pos = 0; pos < n_; ++pos) {
        const size_t i = Index(mb, pos);
        if (pos > 0) Link(out_.f_task[i - 1], fx_[i - 1], out_.f_task[i]);
        if (out_.f_task[i] != out_.b_task[i]) e.AddDependency(out_.f_task[i], out_.b_task[i]);
        if (pos + 1 < n_) Link(out_.b_task[i + 1], bx_[i + 1], out_.b_task[i]);
        if (out_.w_task[i] >= 0) e.AddDependency(out_.b_task[i], out_.w_task[i]);
      }
    }
  }

 private:
  size_t Index(int32_t mb, int32_t pos) const { return size_t(mb) * n_ + pos; }

  void AddOp(int32_t d, size_t i) {
    const Op& op = prog_.ops[d][i];
    const int32_t t = out_.engine.AddTask(OpDuration(c_, prog_, op), s_.compute[d]);
    out_.compute[out_.first_compute[d] + i] = t;
    const size_t at = Index(op.microbatch, op.pos);
    switch (op.kind) {
      case OpKind::kForward:
        out_.f_task[at] = t;
        AddTransfer(op.microbatch, op.pos, false, fx_[at]);
        break;
      case OpKind::kBackward:
      case OpKind::kBackwardInput:
        out_.b_task[at] = t;
        AddTransfer(op.microbatch, op.pos, true, bx_[at]);
        break;
      case OpKind::kWeight:
        out_.w_task[at] = t;
        break;
      case OpKind::kForwardBackward: {
        out_.f_task[at] = t;
        AddTransfer(op.microbatch, op.pos, false, fx_[at]);
        const size_t at2 = Index(op.microbatch2, op.pos2);
        out_.b_task[at2] = t;
        AddTransfer(op.microbatch2, op.pos2, true, bx_[at2]);
        break;
      }
    }
  }

  // The transfer carrying the output of (mb, pos) to the next position
  // (forward) or the previous one (backward), when the two sit on different
  // devices and p2p > 0; a free hand-over occupies no stream.
  void AddTransfer(int32_t mb, int32_t pos, bool backward, int32_t& task) {
    const int32_t to = backward ? pos - 1 : pos + 1;
    if (to < 0 || to >= n_ || c_.p2p.value() == 0) return;
    const Lane& lane = prog_.lanes[prog_.lane_of[mb]];
    const int32_t src = lane.device[pos], dst = lane.device[to];
    if (src == dst) return;
    task = out_.engine.AddTask(c_.p2p, s_.send[src], s_.recv[dst]);
    if (c_.record_timeline) out_.transfers.push_back(Transfer{task, src, dst, mb, pos, backward});
  }

  // `from`'s output feeds `to`, through its transfer when there is one.
  void Link(int32_t from, int32_t transfer, int32_t to) {
    StreamEngine& e = out_.engine;
    if (transfer < 0) {
      e.AddDependency(from, to);
      return;
    }
    e.AddDependency(from, transfer);
    e.AddDependency(transfer, to);
  }

  const PipelineConfig& c_;
  const Program& prog_;
  PlayedProgram& out_;
  const int32_t n_;
  Streams s_;
  std::vector<int32_t> fx_, bx_;  // per pair: transfer of the F / B output, or -1
};

}  // namespace

Status Play(const PipelineConfig& c, const Program& prog, PlayedProgram& out) {
  Builder b(c, prog, out);
  b.AddTasks();
  b.AddDependencies();
  const Status st = out.engine.Run();
  if (st.ok()) return st;
  const int32_t stuck = out.engine.FirstStuckTask();
  for (int32_t d = 0; d < prog.devices; ++d) {
    for (size_t i = 0; i < prog.ops[d].size(); ++i) {
      if (out.ComputeTask(d, i) != stuck) continue;
      return Internal("schedule " + std::string(ScheduleName(c.schedule)) +
                      ": the operation lists wait on each other; device " + std::to_string(d) +
                      " never runs " + OpName(prog, prog.ops[d][i]) +
                      " (a bug in the schedule generator)");
    }
  }
  return Internal("schedule " + std::string(ScheduleName(c.schedule)) + ": " + st.message());
}

}  // namespace occam::sim
