// Metrics of a played schedule: makespan, bubble, peaks, timeline.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/pipeline_internal.h"

namespace occam::sim {
namespace {

// One activation set: acquired when its F starts, released when its last
// backward pass ends.
struct MemEvent {
  Seconds time;
  int32_t microbatch = 0;
  Bytes bytes;
};

struct Peaks {
  int64_t microbatches = 0;
  int64_t chunks = 0;
  Bytes bytes;
};

// Compute runs one pass at a time in list order, so both lists are already
// sorted by time; merging them (releases first at equal times) replaces a sort.
Peaks Sweep(const std::vector<MemEvent>& acquire, const std::vector<MemEvent>& release,
            std::vector<int32_t>& per_mb) {
  Peaks peak;
  int64_t mbs = 0, chunks = 0;
  Bytes bytes;
  size_t a = 0, r = 0;
  while (a < acquire.size()) {
    if (r < release.size() && release[r].time <= acquire[a].time) {
      const MemEvent& e = release[r++];
      if (--per_mb[e.microbatch] == 0) --mbs;
      --chunks;
      bytes -= e.bytes;
      continue;
    }
    const MemEvent& e = acquire[a++];
    if (per_mb[e.microbatch]++ == 0) ++mbs;
    ++chunks;
    bytes += e.bytes;
    peak.microbatches = std::max(peak.microbatches, mbs);
    peak.chunks = std::max(peak.chunks, chunks);
    peak.bytes = Max(peak.bytes, bytes);
  }
  for (; r < release.size(); ++r) --per_mb[release[r].microbatch];
  return peak;
}

// Start and end of every operation, device by device (as played.compute).
struct Span {
  Seconds start, end;
};

// Read in task-id order, which is the schedule's rough time order (play.cc),
// so the engine's arrays are walked almost sequentially.
std::vector<Span> Spans(const Program& prog, const PlayedProgram& played) {
  const StreamEngine& e = played.engine;
  std::vector<Span> spans(played.compute.size());
  size_t longest = 0;
  for (const auto& ops : prog.ops) longest = std::max(longest, ops.size());
  for (size_t i = 0; i < longest; ++i) {
    for (int32_t d = 0; d < prog.devices; ++d) {
      if (i >= prog.ops[d].size()) continue;
      const size_t at = static_cast<size_t>(played.first_compute[d]) + i;
      spans[at] = Span{e.start(played.compute[at]), e.end(played.compute[at])};
    }
  }
  return spans;
}

void MemoryPeaks(const PipelineConfig& c, const Program& prog, const PlayedProgram& played,
                 const std::vector<Span>& spans, PipelineResult& r) {
  auto bytes_of = [&](int32_t mb, int32_t pos) {
    const int32_t chunk = prog.lanes[prog.lane_of[mb]].chunk[pos];
    return (c.chunks.size() == 1 ? c.chunks[0] : c.chunks[chunk]).activation;
  };
  std::vector<int32_t> per_mb(prog.lane_of.size(), 0);
  std::vector<MemEvent> acquire, release;
  size_t longest = 0;
  for (const auto& ops : prog.ops) longest = std::max(longest, ops.size());
  acquire.reserve(longest);
  release.reserve(longest);
  for (int32_t d = 0; d < prog.devices; ++d) {
    acquire.clear();
    release.clear();
    const Span* span = spans.data() + played.first_compute[d];
    for (size_t i = 0; i < prog.ops[d].size(); ++i) {
      const Op& op = prog.ops[d][i];
      switch (op.kind) {
        case OpKind::kForward:
          acquire.push_back({span[i].start, op.microbatch, bytes_of(op.microbatch, op.pos)});
          break;
        case OpKind::kBackward:
        case OpKind::kWeight:
          release.push_back({span[i].end, op.microbatch, bytes_of(op.microbatch, op.pos)});
          break;
        case OpKind::kBackwardInput:
          break;  // held until its W
        case OpKind::kForwardBackward:
          acquire.push_back({span[i].start, op.microbatch, bytes_of(op.microbatch, op.pos)});
          release.push_back({span[i].end, op.microbatch2, bytes_of(op.microbatch2, op.pos2)});
          break;
      }
    }
    const Peaks p = Sweep(acquire, release, per_mb);
    r.peak_inflight_microbatches.push_back(p.microbatches);
    r.peak_inflight_chunks.push_back(p.chunks);
    r.peak_activation.push_back(p.bytes);
  }
}

std::string TransferName(const Program& prog, const Transfer& t) {
  const Lane& lane = prog.lanes[prog.lane_of[t.microbatch]];
  return std::string(t.backward ? "B" : "F") + std::to_string(t.microbatch) + "." +
         std::to_string(lane.chunk[t.pos]);
}

void Timeline(const Program& prog, const PlayedProgram& played, PipelineResult& r) {
  const StreamEngine& e = played.engine;
  for (int32_t d = 0; d < prog.devices; ++d) {
    for (size_t i = 0; i < prog.ops[d].size(); ++i) {
      const int32_t t = played.ComputeTask(d, i);
      r.timeline.push_back(TimelineEvent{d, 0, OpName(prog, prog.ops[d][i]), e.start(t), e.end(t)});
    }
  }
  for (const Transfer& x : played.transfers) {
    const std::string what = TransferName(prog, x);
    r.timeline.push_back(TimelineEvent{x.src, 1, "send " + what + " to " + std::to_string(x.dst),
                                       e.start(x.task), e.end(x.task)});
    r.timeline.push_back(TimelineEvent{x.dst, 2, "recv " + what + " from " + std::to_string(x.src),
                                       e.start(x.task), e.end(x.task)});
  }
}

}  // namespace

PipelineResult Measure(const PipelineConfig& c, const Program& prog, const PlayedProgram& played) {
  const StreamEngine& e = played.engine;
  PipelineResult r;
  r.makespan = e.makespan();
  r.parameter_copies = prog.parameter_copies;
  const std::vector<Span> spans = Spans(prog, played);
  Seconds busiest;
  for (int32_t d = 0; d < prog.devices; ++d) {
    Seconds busy;
    const Span* span = spans.data() + played.first_compute[d];
    for (size_t i = 0; i < prog.ops[d].size(); ++i) busy += span[i].end - span[i].start;
    r.busy.push_back(busy);
    busiest = Max(busiest, busy);
  }
  r.bubble_fraction = r.makespan.value() > 0 ? 1.0 - busiest / r.makespan : 0.0;
  MemoryPeaks(c, prog, played, spans, r);
  if (c.record_timeline) Timeline(prog, played, r);
  return r;
}

}  // namespace occam::sim
