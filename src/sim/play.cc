// Playing an operation list on the event engine, and measuring the result.
// Dependencies and memory accounting: see pipeline.cc.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "sim/pipeline_internal.h"

namespace occam::sim {
namespace {

struct Streams {
  std::vector<int32_t> compute, send, recv;
};

class Builder {
 public:
  Builder(const PipelineConfig& c, const Program& prog, PlayedProgram& out)
      : c_(c), prog_(prog), out_(out), n_(prog.positions) {}

  void AddCompute() {
    StreamEngine& e = out_.engine;
    for (int32_t d = 0; d < prog_.devices; ++d) {
      s_.compute.push_back(e.AddStream(StreamEngine::Order::kProgram));
      s_.send.push_back(e.AddStream(StreamEngine::Order::kReady));
      s_.recv.push_back(e.AddStream(StreamEngine::Order::kReady));
    }
    const size_t pairs = prog_.lane_of.size() * size_t(n_);
    e.Reserve(5 * pairs, 7 * pairs);  // <= 3 passes + 2 transfers, 7 edges per pair
    out_.f_task.assign(pairs, -1);
    out_.b_task.assign(pairs, -1);
    out_.w_task.assign(pairs, -1);
    out_.compute.resize(prog_.devices);
    for (int32_t d = 0; d < prog_.devices; ++d) {
      for (const Op& op : prog_.ops[d]) {
        const int32_t t = e.AddTask(OpDuration(c_, prog_, op), s_.compute[d]);
        out_.compute[d].push_back(t);
        const size_t i = Index(op.microbatch, op.pos);
        switch (op.kind) {
          case OpKind::kForward:
            out_.f_task[i] = t;
            break;
          case OpKind::kBackward:
          case OpKind::kBackwardInput:
            out_.b_task[i] = t;
            break;
          case OpKind::kWeight:
            out_.w_task[i] = t;
            break;
          case OpKind::kForwardBackward:
            out_.f_task[i] = t;
            out_.b_task[Index(op.microbatch2, op.pos2)] = t;
            break;
        }
      }
    }
  }

  void AddDependencies() {
    StreamEngine& e = out_.engine;
    for (int32_t mb = 0; mb < int32_t(prog_.lane_of.size()); ++mb) {
      const Lane& lane = prog_.lanes[prog_.lane_of[mb]];
      for (int32_t pos = 0; pos < n_; ++pos) {
        const size_t i = Index(mb, pos);
        if (pos > 0) Link(i - 1, out_.f_task, i, out_.f_task, lane, mb, pos - 1, false);
        if (out_.f_task[i] != out_.b_task[i]) e.AddDependency(out_.f_task[i], out_.b_task[i]);
        if (pos + 1 < n_) Link(i + 1, out_.b_task, i, out_.b_task, lane, mb, pos + 1, true);
        if (out_.w_task[i] >= 0) e.AddDependency(out_.b_task[i], out_.w_task[i]);
      }
    }
  }

 private:
  size_t Index(int32_t mb, int32_t pos) const { return size_t(mb) * n_ + pos; }

  // Output of `from` (position `from_pos`) feeds `to`, through a transfer
  // when the two sit on different devices.
  void Link(size_t from, const std::vector<int32_t>& from_tasks, size_t to,
            const std::vector<int32_t>& to_tasks, const Lane& lane, int32_t mb, int32_t from_pos,
            bool backward) {
    StreamEngine& e = out_.engine;
    const int32_t src = lane.device[from_pos];
    const int32_t dst = lane.device[backward ? from_pos - 1 : from_pos + 1];
    if (src == dst || c_.p2p.value() == 0) {  // a free hand-over occupies no stream
      e.AddDependency(from_tasks[from], to_tasks[to]);
      return;
    }
    const int32_t x = e.AddTask(c_.p2p, s_.send[src], s_.recv[dst]);
    e.AddDependency(from_tasks[from], x);
    e.AddDependency(x, to_tasks[to]);
    out_.transfers.push_back(Transfer{x, src, dst, mb, from_pos, backward});
  }

  const PipelineConfig& c_;
  const Program& prog_;
  PlayedProgram& out_;
  const int32_t n_;
  Streams s_;
};

}  // namespace

Status Play(const PipelineConfig& c, const Program& prog, PlayedProgram& out) {
  Builder b(c, prog, out);
  b.AddCompute();
  b.AddDependencies();
  const Status st = out.engine.Run();
  if (st.ok()) return st;
  const int32_t stuck = out.engine.FirstStuckTask();
  for (int32_t d = 0; d < prog.devices; ++d) {
    for (size_t i = 0; i < out.compute[d].size(); ++i) {
      if (out.compute[d][i] != stuck) continue;
      return Internal("schedule " + std::string(ScheduleName(c.schedule)) +
                      ": the operation lists wait on each other; device " + std::to_string(d) +
                      " never runs " + OpName(prog, prog.ops[d][i]) +
                      " (a bug in the schedule generator)");
    }
  }
  return Internal("schedule " + std::string(ScheduleName(c.schedule)) + ": " + st.message());
}

}  // namespace occam::sim
