// Metrics of a played schedule: makespan, bubble, peaks, timeline.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/pipeline_internal.h"

namespace occam::sim {
namespace {

// +activation at the start of F, - at the end of the last backward pass.
struct MemEvent {
  Seconds time;
  int acquire = 0;  // 0 = release (sorts first at equal time), 1 = acquire
  int32_t microbatch = 0;
  Bytes bytes;
};

struct Peaks {
  int64_t microbatches = 0;
  int64_t chunks = 0;
  Bytes bytes;
};

Peaks Sweep(std::vector<MemEvent>& ev, std::vector<int32_t>& per_mb) {
  std::sort(ev.begin(), ev.end(), [](const MemEvent& a, const MemEvent& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.acquire < b.acquire;
  });
  Peaks peak;
  int64_t mbs = 0, chunks = 0;
  Bytes bytes;
  for (const MemEvent& e : ev) {
    if (e.acquire == 1) {
      if (per_mb[e.microbatch]++ == 0) ++mbs;
      ++chunks;
      bytes += e.bytes;
    } else {
      if (--per_mb[e.microbatch] == 0) --mbs;
      --chunks;
      bytes -= e.bytes;
    }
    peak.microbatches = std::max(peak.microbatches, mbs);
    peak.chunks = std::max(peak.chunks, chunks);
    peak.bytes = Max(peak.bytes, bytes);
  }
  return peak;
}

void MemoryPeaks(const PipelineConfig& c, const Program& prog, const PlayedProgram& played,
                 PipelineResult& r) {
  const StreamEngine& e = played.engine;
  std::vector<std::vector<MemEvent>> ev(prog.devices);
  const int32_t n = prog.positions;
  for (int32_t mb = 0; mb < int32_t(prog.lane_of.size()); ++mb) {
    const Lane& lane = prog.lanes[prog.lane_of[mb]];
    for (int32_t pos = 0; pos < n; ++pos) {
      const size_t i = size_t(mb) * n + pos;
      const int32_t last = played.w_task[i] >= 0 ? played.w_task[i] : played.b_task[i];
      const Bytes a = (c.chunks.size() == 1 ? c.chunks[0] : c.chunks[lane.chunk[pos]]).activation;
      auto& dev = ev[lane.device[pos]];
      dev.push_back(MemEvent{e.start(played.f_task[i]), 1, mb, a});
      dev.push_back(MemEvent{e.end(last), 0, mb, a});
    }
  }
  std::vector<int32_t> per_mb(prog.lane_of.size(), 0);
  for (int32_t d = 0; d < prog.devices; ++d) {
    const Peaks p = Sweep(ev[d], per_mb);
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
      const int32_t t = played.compute[d][i];
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
  Seconds busiest;
  for (int32_t d = 0; d < prog.devices; ++d) {
    Seconds busy;
    for (int32_t t : played.compute[d]) busy += e.end(t) - e.start(t);
    r.busy.push_back(busy);
    busiest = Max(busiest, busy);
  }
  r.bubble_fraction = r.makespan.value() > 0 ? 1.0 - busiest / r.makespan : 0.0;
  MemoryPeaks(c, prog, played, r);
  if (c.record_timeline) Timeline(prog, played, r);
  return r;
}

}  // namespace occam::sim
