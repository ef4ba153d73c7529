// DualPipe and DualPipeV (DeepSeek-V3 report §3.2.1; deepseek-ai/DualPipe
// README and the eight-phase order of dualpipe.py / dualpipev.py, rewritten
// here as an operation-list generator).
//
// Symbols: p = devices, m = micro-batches, r = this device, h = its
// distance from the nearer end (DualPipe) or r (DualPipeV), nh = p/2
// (DualPipe) or p (DualPipeV), half = micro-batches per phase. A device runs
// two "phases": phase 0 is the chunk that micro-batches reach first from its
// nearer end, phase 1 the other one. An F&B pair overlaps one chunk's forward
// with another chunk's full backward; B with zero-bubble enabled computes
// the input gradient only and queues its W (run first-in first-out).
#include <algorithm>
#include <deque>
#include <utility>

#include "sim/schedules.h"

namespace occam::sim {
namespace {

struct PhaseWalker {
  int32_t pos[2] = {0, 0};
  int64_t mb_base[2] = {0, 0};
  int64_t f[2] = {0, 0};
  int64_t b[2] = {0, 0};
  std::deque<std::pair<int32_t, int32_t>> w_queue;  // (micro-batch, pos)
  std::vector<Op>* ops = nullptr;

  void Fwd(int ph) {
    ops->push_back(Op{OpKind::kForward, int32_t(mb_base[ph] + f[ph]++), pos[ph]});
  }
  void Bwd(int ph, bool zero_bubble) {
    const auto mb = int32_t(mb_base[ph] + b[ph]++);
    if (!zero_bubble) {
      ops->push_back(Op{OpKind::kBackward, mb, pos[ph]});
      return;
    }
    ops->push_back(Op{OpKind::kBackwardInput, mb, pos[ph]});
    w_queue.emplace_back(mb, pos[ph]);
  }
  void Wgt() {
    const auto [mb, pos_w] = w_queue.front();
    w_queue.pop_front();
    ops->push_back(Op{OpKind::kWeight, mb, pos_w});
  }
  void FwdBwd(int ph0, int ph1) {
    Op op{OpKind::kForwardBackward, int32_t(mb_base[ph0] + f[ph0]++), pos[ph0]};
    op.microbatch2 = int32_t(mb_base[ph1] + b[ph1]++);
    op.pos2 = pos[ph1];
    ops->push_back(op);
  }
};

// The eight phases. `middle`: the device where the two directions meet
// first (its first main-step pair is not overlapped, as in the reference).
void DualSteps(PhaseWalker& w, int64_t nh, int64_t h, int64_t half, bool middle) {
  for (int64_t i = 0; i < 2 * (nh - h - 1); ++i) w.Fwd(0);  // 1: nF0
  for (int64_t i = 0; i < h + 1; ++i) {                     // 2: nF0F1
    w.Fwd(0);
    w.Fwd(1);
  }
  for (int64_t i = 0; i < nh - h - 1; ++i) {  // 3: nB1W1F1, zero bubble
    w.Bwd(1, true);
    w.Wgt();
    w.Fwd(1);
  }
  for (int64_t i = 0; i < half - 2 * nh + h + 1; ++i) {  // 4: nF0B1F1B0
    if (i == 0 && middle) {
      w.Fwd(0);
      w.Bwd(1, false);
    } else {
      w.FwdBwd(0, 1);
    }
    w.FwdBwd(1, 0);
  }
  for (int64_t i = 0; i < nh - h - 1; ++i) {  // 5: nB1F1B0
    w.Bwd(1, false);
    w.FwdBwd(1, 0);
  }
  bool zb = false;  // 6: nB1B0, the second half with zero bubble
  for (int64_t i = 0; i < h + 1; ++i) {
    if (i == (h + 1) / 2 && h % 2 == 1) zb = true;
    w.Bwd(1, zb);
    if (i == (h + 1) / 2 && h % 2 == 0) zb = true;
    w.Bwd(0, zb);
  }
  for (int64_t i = 0; i < nh - h - 1; ++i) {  // 7: nWB0, zero bubble
    w.Wgt();
    w.Bwd(0, true);
  }
  while (!w.w_queue.empty()) w.Wgt();  // 8: nW (h + 1 of them)
}

}  // namespace

// Two lanes over the same p stages: lane 0 enters at device 0, lane 1 at
// device p-1 (the second parameter copy). Micro-batches 0..m/2-1 take lane
// 0, the rest lane 1.
Program BuildDualPipe(int64_t p, int64_t m) {
  Program prog;
  prog.devices = int32_t(p);
  prog.positions = int32_t(p);
  prog.parameter_copies = 2;
  prog.lanes.resize(2);
  for (int32_t pos = 0; pos < p; ++pos) {
    prog.lanes[0].device.push_back(pos);
    prog.lanes[0].chunk.push_back(pos);
    prog.lanes[1].device.push_back(int32_t(p - 1 - pos));
    prog.lanes[1].chunk.push_back(pos);
  }
  const int64_t half = m / 2;
  for (int64_t mb = 0; mb < m; ++mb) prog.lane_of.push_back(mb < half ? 0 : 1);
  prog.ops.resize(p);
  for (int64_t r = 0; r < p; ++r) {
    const bool second_half = r >= p / 2;
    PhaseWalker w;
    w.ops = &prog.ops[r];
    for (int ph = 0; ph < 2; ++ph) {
      const int lane = ph ^ int(second_half);
      w.pos[ph] = int32_t(lane == 0 ? r : p - 1 - r);
      w.mb_base[ph] = lane == 0 ? 0 : half;
    }
    const int64_t h = std::min(r, p - 1 - r);
    DualSteps(w, p / 2, h, half, h == p / 2 - 1);
  }
  return prog;
}

// One lane of 2p chunks in a V: device r holds chunks r and 2p-1-r; the
// turn at device p-1 needs no transfer. One parameter copy in total.
Program BuildDualPipeV(int64_t p, int64_t m) {
  Program prog;
  prog.devices = int32_t(p);
  prog.positions = int32_t(2 * p);
  prog.lanes.resize(1);
  for (int32_t pos = 0; pos < 2 * p; ++pos) {
    prog.lanes[0].device.push_back(int32_t(pos < p ? pos : 2 * p - 1 - pos));
    prog.lanes[0].chunk.push_back(pos);
  }
  prog.lane_of.assign(m, 0);
  prog.ops.resize(p);
  for (int64_t r = 0; r < p; ++r) {
    PhaseWalker w;
    w.ops = &prog.ops[r];
    w.pos[0] = int32_t(r);
    w.pos[1] = int32_t(2 * p - 1 - r);
    DualSteps(w, p, r, m, r == p - 1);
  }
  return prog;
}

}  // namespace occam::sim

namespace occam {

// Mirrors the counts of DualSteps: of the device's 2 half forwards, phase 4
// pairs 2 per iteration (one fewer on the meeting device) and phase 5 one
// per iteration; every other pass runs alone. Devices h and p-1-h (DualPipe)
// count alike, so the mean over h < nh is the mean over all devices.
double UnpairedPassFraction(Schedule schedule, int64_t p, int64_t m) {
  if (schedule != Schedule::kDualPipe && schedule != Schedule::kDualPipeV) return 1.0;
  const bool v = schedule == Schedule::kDualPipeV;
  const int64_t nh = v ? p : p / 2, half = v ? m : m / 2;
  if (nh < 1 || half < 1) return 1.0;
  double alone = 0;
  for (int64_t h = 0; h < nh; ++h) {
    const int64_t main = std::max<int64_t>(0, half - 2 * nh + h + 1);
    const bool middle = h == nh - 1;
    const int64_t pairs =
        2 * main - (middle && main > 0 ? 1 : 0) + std::max<int64_t>(0, nh - h - 1);
    alone += 1.0 - static_cast<double>(pairs) / static_cast<double>(2 * half);
  }
  return std::clamp(alone / static_cast<double>(nh), 0.0, 1.0);
}

}  // namespace occam
