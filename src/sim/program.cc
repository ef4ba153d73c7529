// Checks on generated operation lists (see schedules.h).
#include <string>
#include <vector>

#include "sim/schedules.h"

namespace occam::sim {
namespace {

std::string Part(char kind, const Program& prog, int32_t mb, int32_t pos) {
  const int32_t lane = prog.lane_of[mb];
  return kind + std::to_string(mb) + "." + std::to_string(prog.lanes[lane].chunk[pos]);
}

// Per (micro-batch, position): where each pass sits in its device's list.
struct Seen {
  int32_t f = -1, b = -1, w = -1;
  bool split = false;
};

class Checker {
 public:
  Checker(const Program& prog, std::string_view name)
      : prog_(prog), name_(name), seen_(prog.lane_of.size() * size_t(prog.positions)) {}

  Status Visit(int32_t device, int64_t index, char kind, int32_t mb, int32_t pos) {
    if (mb < 0 || mb >= int32_t(prog_.lane_of.size()) || pos < 0 || pos >= prog_.positions) {
      return Fail(device, "refers to a micro-batch or chunk outside the pipeline");
    }
    // Names are built only on failure: this runs once per pass.
    auto what = [&] { return Part(kind == 'b' ? 'B' : kind, prog_, mb, pos); };
    if (prog_.lanes[prog_.lane_of[mb]].device[pos] != device) {
      return Fail(device, "runs " + what() + ", which belongs to another device");
    }
    Seen& s = seen_[size_t(mb) * prog_.positions + pos];
    int32_t& slot = kind == 'F' ? s.f : kind == 'W' ? s.w : s.b;
    if (slot >= 0) return Fail(device, "runs " + what() + " twice");
    slot = static_cast<int32_t>(index);
    if (kind == 'b') s.split = true;
    if (kind != 'F' && s.f < 0) return Fail(device, "runs " + what() + " before its forward");
    if (kind == 'W' && (s.b < 0 || !s.split)) {
      return Fail(device, "runs " + what() + " without an earlier input-gradient pass");
    }
    return Status::Ok();
  }

  Status Complete() const {
    for (size_t i = 0; i < seen_.size(); ++i) {
      const Seen& s = seen_[i];
      const auto mb = int32_t(i / prog_.positions);
      const auto pos = int32_t(i % prog_.positions);
      const int32_t dev = prog_.lanes[prog_.lane_of[mb]].device[pos];
      if (s.f < 0) return Fail(dev, "never runs " + Part('F', prog_, mb, pos));
      if (s.b < 0) return Fail(dev, "never runs " + Part('B', prog_, mb, pos));
      if (s.split && s.w < 0) return Fail(dev, "never runs " + Part('W', prog_, mb, pos));
    }
    return Status::Ok();
  }

 private:
  Status Fail(int32_t device, const std::string& what) const {
    return Internal("schedule " + std::string(name_) + ": device " + std::to_string(device) + " " +
                    what + " (a bug in the schedule generator)");
  }
  const Program& prog_;
  std::string_view name_;
  std::vector<Seen> seen_;
};

}  // namespace

Status ValidateProgram(const Program& prog, std::string_view name) {
  if (prog.ops.size() != size_t(prog.devices)) {
    return Internal("schedule " + std::string(name) + ": one operation list per device expected");
  }
  Checker check(prog, name);
  for (int32_t d = 0; d < prog.devices; ++d) {
    const auto& ops = prog.ops[d];
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const auto idx = int64_t(i);
      switch (op.kind) {
        case OpKind::kForward:
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'F', op.microbatch, op.pos));
          break;
        case OpKind::kBackward:
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'B', op.microbatch, op.pos));
          break;
        case OpKind::kBackwardInput:
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'b', op.microbatch, op.pos));
          break;
        case OpKind::kWeight:
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'W', op.microbatch, op.pos));
          break;
        case OpKind::kForwardBackward:
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'F', op.microbatch, op.pos));
          OCCAM_RETURN_IF_ERROR(check.Visit(d, idx, 'B', op.microbatch2, op.pos2));
          break;
      }
    }
  }
  return check.Complete();
}

bool BackwardBeforeLastForward(const Program& prog, std::string* where) {
  for (int32_t d = 0; d < prog.devices; ++d) {
    const auto& ops = prog.ops[d];
    size_t last_f = 0;
    bool any_f = false;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind == OpKind::kForward || ops[i].kind == OpKind::kForwardBackward) {
        last_f = i;
        any_f = true;
      }
    }
    if (!any_f) continue;
    for (size_t i = 0; i < last_f; ++i) {
      if (ops[i].kind == OpKind::kForward) continue;
      if (where) *where = OpName(prog, ops[i]) + " on device " + std::to_string(d);
      return true;
    }
    if (ops[last_f].kind == OpKind::kForwardBackward) {
      if (where) *where = OpName(prog, ops[last_f]) + " on device " + std::to_string(d);
      return true;
    }
  }
  return false;
}

std::string OpName(const Program& prog, const Op& op) {
  switch (op.kind) {
    case OpKind::kForward:
      return Part('F', prog, op.microbatch, op.pos);
    case OpKind::kBackward:
    case OpKind::kBackwardInput:
      return Part('B', prog, op.microbatch, op.pos);
    case OpKind::kWeight:
      return Part('W', prog, op.microbatch, op.pos);
    case OpKind::kForwardBackward:
      return Part('F', prog, op.microbatch, op.pos) + "+" +
             Part('B', prog, op.microbatch2, op.pos2);
  }
  return "?";
}

}  // namespace occam::sim
