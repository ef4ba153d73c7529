// Schedule generators. Symbols as in schedules.h (p, v, m, n); d = device.
// Each generator writes, per device, the order in which its compute runs;
// the timing comes from playing the list on the event engine.
#include "sim/schedules.h"

#include <algorithm>
#include <deque>
#include <string>

#include "occam/schedule_traits.h"

namespace occam::sim {
namespace {

std::string Str(int64_t x) { return std::to_string(x); }

// One lane through positions 0..n-1; device of position pos given by `dev`.
template <class DeviceOf>
Lane MakeLane(int32_t n, DeviceOf dev) {
  Lane lane;
  for (int32_t pos = 0; pos < n; ++pos) {
    lane.device.push_back(dev(pos));
    lane.chunk.push_back(pos);
  }
  return lane;
}

Program SingleLane(int64_t p, int64_t m, Lane lane) {
  Program prog;
  prog.devices = static_cast<int32_t>(p);
  prog.positions = static_cast<int32_t>(lane.device.size());
  prog.lanes.push_back(std::move(lane));
  prog.lane_of.assign(m, 0);
  prog.ops.resize(p);
  return prog;
}

Op F(int64_t mb, int64_t pos) { return Op{OpKind::kForward, int32_t(mb), int32_t(pos)}; }
Op B(int64_t mb, int64_t pos) { return Op{OpKind::kBackward, int32_t(mb), int32_t(pos)}; }
Op Bi(int64_t mb, int64_t pos) { return Op{OpKind::kBackwardInput, int32_t(mb), int32_t(pos)}; }
Op W(int64_t mb, int64_t pos) { return Op{OpKind::kWeight, int32_t(mb), int32_t(pos)}; }

// GPipe (Huang et al. arXiv:1811.06965): all forwards, then all backwards.
// With v > 1 chunks per device this is breadth-first "looped BFS" (PyTorch
// ScheduleLoopedBFS): chunk by chunk forward, reverse chunk order backward.
Program BuildGpipe(int64_t p, int64_t v, int64_t m) {
  Program prog =
      SingleLane(p, m, MakeLane(int32_t(p * v), [p](int32_t pos) { return int32_t(pos % p); }));
  for (int64_t d = 0; d < p; ++d) {
    auto& ops = prog.ops[d];
    for (int64_t c = 0; c < v; ++c) {
      for (int64_t mb = 0; mb < m; ++mb) ops.push_back(F(mb, c * p + d));
    }
    for (int64_t c = v - 1; c >= 0; --c) {
      for (int64_t mb = 0; mb < m; ++mb) ops.push_back(B(mb, c * p + d));
    }
  }
  return prog;
}

// 1F1B / PipeDream-Flush (Narayanan et al. arXiv:2104.04473 §2.2): device d
// runs min(p-d-1, m) warm-up forwards, then alternates F and B, then drains.
Program Build1F1B(int64_t p, int64_t m) {
  Program prog = SingleLane(p, m, MakeLane(int32_t(p), [](int32_t pos) { return pos; }));
  for (int64_t d = 0; d < p; ++d) {
    auto& ops = prog.ops[d];
    const int64_t warmup = std::min(p - d - 1, m);
    int64_t f = 0, b = 0;
    while (f < warmup) ops.push_back(F(f++, d));
    while (f < m) {
      ops.push_back(F(f++, d));
      ops.push_back(B(b++, d));
    }
    while (b < m) ops.push_back(B(b++, d));
  }
  return prog;
}

// Interleaved 1F1B (arXiv:2104.04473 §2.2; order as Megatron-Core
// schedules.py: groups of p micro-batches per chunk). The k-th forward on a
// device is chunk (k / p) % v of micro-batch (k / (p v)) p + k % p; the k-th
// backward is the mirror chunk v-1-(k / p) % v. Warm-up on device d:
// min(2 (p-d-1) + (v-1) p, m v) forwards.
Program BuildInterleaved(int64_t p, int64_t v, int64_t m) {
  Program prog =
      SingleLane(p, m, MakeLane(int32_t(p * v), [p](int32_t pos) { return int32_t(pos % p); }));
  const int64_t total = m * v;
  for (int64_t d = 0; d < p; ++d) {
    auto& ops = prog.ops[d];
    auto mb_of = [p, v](int64_t k) { return (k / (p * v)) * p + k % p; };
    auto fwd = [&](int64_t k) { return F(mb_of(k), ((k / p) % v) * p + d); };
    auto bwd = [&](int64_t k) { return B(mb_of(k), (v - 1 - (k / p) % v) * p + d); };
    const int64_t warmup = std::min(2 * (p - d - 1) + (v - 1) * p, total);
    int64_t f = 0, b = 0;
    while (f < warmup) ops.push_back(fwd(f++));
    while (f < total) {
      ops.push_back(fwd(f++));
      ops.push_back(bwd(b++));
    }
    while (b < total) ops.push_back(bwd(b++));
  }
  return prog;
}

// ZB-H1 (Qi et al. arXiv:2401.10241 §3.1, Fig. 3): 1F1B order with the
// backward split into B and W; device d keeps up to d weight-gradient passes
// pending, so every device holds at most p micro-batches (1F1B's peak) and
// the deferred W fill the drain phase.
Program BuildZbH1(int64_t p, int64_t m) {
  Program prog = SingleLane(p, m, MakeLane(int32_t(p), [](int32_t pos) { return pos; }));
  for (int64_t d = 0; d < p; ++d) {
    auto& ops = prog.ops[d];
    int64_t f = 0, b = 0, w = 0;
    while (f < std::min(p - d, m)) ops.push_back(F(f++, d));
    while (b < m) {
      ops.push_back(Bi(b++, d));
      if (b - w > d) ops.push_back(W(w++, d));
      if (f < m) ops.push_back(F(f++, d));
    }
    while (w < m) ops.push_back(W(w++, d));
  }
  return prog;
}

// ZB-V (Qi et al. arXiv:2405.15362; order as PyTorch ScheduleZBVZeroBubble):
// device d holds chunk d (down the V) and chunk 2p-1-d (back up).
Program BuildZbV(int64_t p, int64_t m) {
  Program prog = SingleLane(p, m, MakeLane(int32_t(2 * p), [p](int32_t pos) {
                              return int32_t(pos < p ? pos : 2 * p - 1 - pos);
                            }));
  for (int64_t d = 0; d < p; ++d) {
    auto& ops = prog.ops[d];
    const int64_t c0 = d, c1 = 2 * p - 1 - d;
    int64_t f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    for (int64_t i = 0; i < 2 * (p - d) - 1; ++i) ops.push_back(F(f0++, c0));
    for (int64_t i = 0; i < d; ++i) {
      ops.push_back(F(f1++, c1));
      ops.push_back(F(f0++, c0));
    }
    for (int64_t i = 0; i < p - d; ++i) {
      ops.push_back(F(f1, c1));
      ops.push_back(Bi(b1, c1));
      ops.push_back(W(b1, c1));
      ++f1, ++b1;
    }
    while (f1 < f0 || f0 < m) {
      if (f0 < m) ops.push_back(F(f0++, c0));
      ops.push_back(Bi(b0, c0));
      ops.push_back(W(b0++, c0));
      ops.push_back(F(f1++, c1));
      ops.push_back(Bi(b1, c1));
      ops.push_back(W(b1++, c1));
    }
    int64_t w0 = b0, w1 = b1;
    for (int64_t i = 0; i < d; ++i) {
      ops.push_back(Bi(b0++, c0));
      ops.push_back(Bi(b1++, c1));
    }
    for (int64_t i = 0; i < p - d; ++i) {
      ops.push_back(Bi(b0++, c0));
      ops.push_back(W(w0++, c0));
    }
    while (w1 < b1) ops.push_back(W(w1++, c1));
    while (w0 < b0) ops.push_back(W(w0++, c0));
  }
  return prog;
}

}  // namespace

int64_t ModelChunks(Schedule schedule, int64_t p, int64_t v) {
  return ModelChunkCount(schedule, p, v);
}

Status CheckShape(Schedule s, int64_t p, int64_t v, int64_t m) {
  const std::string name(ScheduleName(s));
  if (p < 1) return InvalidInput("plan.pp (stages) must be >= 1 (got " + Str(p) + ")");
  if (m < 1) return InvalidInput("microbatches must be >= 1 (got " + Str(m) + ")");
  if (v < 1) return InvalidInput("plan.vpp must be >= 1 (got " + Str(v) + ")");
  const ScheduleTraits& t = TraitsOf(s);
  const int64_t v_needed = t.lane_chunks;
  if (v_needed > 0 && v != v_needed) {
    return InvalidInput("schedule " + name + " runs " + Str(v_needed) +
                        " chunk(s) per device; vpp must be " + Str(v_needed) + " (got " + Str(v) +
                        "); use --schedule interleaved or gpipe for other vpp");
  }
  if (v_needed == 0 && v < t.min_vpp) {
    return InvalidInput("schedule " + name + " needs vpp >= " + Str(t.min_vpp) +
                        " chunks per device (got " + Str(v) +
                        "); use --schedule 1f1b for one chunk per device");
  }
  if (s == Schedule::kNone && p != 1) {
    return InvalidInput("schedule none needs pp = 1 (got " + Str(p) + "); pick a schedule");
  }
  if (MicrobatchesFit(s, p, m)) return Status::Ok();
  if (s == Schedule::kInterleaved) {
    return InvalidInput(
        "schedule interleaved needs microbatches divisible by pp (got m = " + Str(m) +
        ", pp = " + Str(p) + "), as Megatron-LM requires; round m to a multiple of pp");
  }
  if (s == Schedule::kZbV) {
    return InvalidInput("schedule zbv needs microbatches >= 2*pp-1 = " + Str(2 * p - 1) + " (got " +
                        Str(m) + ") to fill the V; raise microbatches");
  }
  if (s == Schedule::kDualPipe) {
    return InvalidInput(
        "schedule dualpipe needs an even pp, an even microbatch count and "
        "microbatches >= 2*pp (got pp = " +
        Str(p) + ", m = " + Str(m) + "), as DeepSeek's DualPipe requires");
  }
  if (s == Schedule::kDualPipeV) {
    return InvalidInput("schedule dualpipev needs microbatches >= 2*pp = " + Str(2 * p) + " (got " +
                        Str(m) + "), as DeepSeek's DualPipeV requires");
  }
  return InvalidInput("schedule " + name + " needs " + MicrobatchNeeds(s, p, m) +
                      " (got m = " + Str(m) + ", pp = " + Str(p) + ")");
}

Program CombinedPairs(Program prog) {
  std::vector<Op> out;
  for (std::vector<Op>& ops : prog.ops) {
    out.clear();
    out.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      const bool pair = i + 1 < ops.size() && ops[i].kind == OpKind::kBackward &&
                        ops[i + 1].kind == OpKind::kForward;
      if (!pair) {
        out.push_back(ops[i]);
        continue;
      }
      out.push_back(Op{OpKind::kForwardBackward, ops[i + 1].microbatch, ops[i + 1].pos,
                       ops[i].microbatch, ops[i].pos});
      ++i;
    }
    ops.swap(out);
  }
  return prog;
}

Program BuildProgram(Schedule s, int64_t p, int64_t v, int64_t m) {
  switch (s) {
    case Schedule::kGpipe:
      return BuildGpipe(p, v, m);
    case Schedule::kInterleaved:
      return BuildInterleaved(p, v, m);
    case Schedule::kZbH1:
      return BuildZbH1(p, m);
    case Schedule::kZbV:
      return BuildZbV(p, m);
    case Schedule::kDualPipe:
      return BuildDualPipe(p, m);
    case Schedule::kDualPipeV:
      return BuildDualPipeV(p, m);
    case Schedule::kNone:
    case Schedule::k1F1B:
      return Build1F1B(p, m);
  }
  return Build1F1B(p, m);
}

}  // namespace occam::sim
