#include "sim/engine.h"

#include <algorithm>
#include <utility>

namespace occam::sim {

// ------------------------------------------------------------ EventQueue ---

void EventQueue::Push(Seconds time, int64_t payload) {
  const uint64_t key = (next_seq_++ << 32) | static_cast<uint32_t>(payload);
  heap_.push_back(Slot{time.value(), key});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

EventQueue::Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Slot s = heap_.back();
  heap_.pop_back();
  return Event{Seconds(s.time), s.key >> 32, static_cast<int64_t>(s.key & 0xffffffffu)};
}

// ---------------------------------------------------------- StreamEngine ---

int32_t StreamEngine::AddStream(Order order) {
  streams_.push_back(Stream{});
  streams_.back().order = order;
  return static_cast<int32_t>(streams_.size()) - 1;
}

void StreamEngine::Reserve(size_t tasks, size_t /*dependencies*/) { t_.reserve(tasks); }

int32_t StreamEngine::AddTask(Seconds duration, int32_t stream, int32_t second) {
  const auto id = num_tasks();
  Links l;
  l.stream = stream;
  l.second = second;
  int32_t pending = 0;
  Stream& s = streams_[stream];
  const bool program = s.order == Order::kProgram;
  if (program) {
    // The program predecessor counts as one more dependency.
    if (s.last >= 0) {
      t_[s.last].l.next_in_stream = id;
      pending = 1;
    }
    s.last = id;
  }
  t_.push_back(Task{duration.value(), 0, pending, program ? 1 : 0, l});
  return id;
}

void StreamEngine::AddDependency(int32_t before, int32_t after) {
  ++t_[after].pending;
  int32_t* succ = t_[before].l.succ;
  if (succ[0] < 0) {
    succ[0] = after;
  } else if (succ[1] < 0) {
    succ[1] = after;
  } else {
    extra_edges_.emplace_back(before, after);
  }
}

void StreamEngine::BuildSuccessors() {
  succ_begin_.clear();
  succ_.clear();
  if (extra_edges_.empty()) return;
  const int32_t n = num_tasks();
  succ_begin_.assign(n + 1, 0);
  for (const auto& e : extra_edges_) ++succ_begin_[e.first + 1];
  for (int32_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(extra_edges_.size());
  // Fill with succ_begin_[before] as the cursor, then shift the starts back.
  for (const auto& [before, after] : extra_edges_) succ_[succ_begin_[before]++] = after;
  for (int32_t i = n; i > 0; --i) succ_begin_[i] = succ_begin_[i - 1];
  succ_begin_[0] = 0;
}

Status StreamEngine::Run() {
  const int32_t n = num_tasks();
  BuildSuccessors();
  work_.clear();
  finished_ = 0;
  makespan_ = 0;
  // Tasks without dependencies start at 0 (collected before resolving any,
  // which makes more tasks ready).
  std::vector<int32_t> roots;
  for (int32_t t = 0; t < n; ++t) {
    if (t_[t].pending == 0) roots.push_back(t);
  }
  for (const int32_t t : roots) {
    if (!t_[t].program) events_.Push(Seconds(0), t);
  }
  work_.reserve(static_cast<size_t>(n));
  for (const int32_t t : roots) {
    if (t_[t].program) Resolve(t);
  }
  while (!events_.empty()) Serve(static_cast<int32_t>(events_.Pop().payload));
  if (finished_ == n) return Status::Ok();
  return Internal("event engine deadlock: task " + std::to_string(FirstStuckTask()) +
                  " never ran (" + std::to_string(n - finished_) + " of " + std::to_string(n) +
                  " tasks stuck)");
}

int32_t StreamEngine::FirstStuckTask() const {
  for (int32_t t = 0; t < num_tasks(); ++t) {
    if (t_[t].pending != kDone) return t;
  }
  return -1;
}

// First come, first served: the stream(s) are reserved from when all are
// free. Called in ready-time order (the event queue), which is the order
// the transfers reach their queues.
void StreamEngine::Serve(int32_t task) {
  const Links& l = t_[task].l;
  Stream& s = streams_[l.stream];
  double start = std::max(t_[task].start, s.free_at);
  if (l.second != kNoStream) start = std::max(start, streams_[l.second].free_at);
  const double end = start + t_[task].duration;
  s.free_at = end;
  if (l.second != kNoStream) streams_[l.second].free_at = end;
  t_[task].start = start;
  Resolve(task);
}

void StreamEngine::Reached(int32_t task, double end) {
  t_[task].start = std::max(t_[task].start, end);
  if (--t_[task].pending != 0) return;
  if (t_[task].program) {
    // Its start is now known; resolve it without an event.
    t_[task].pending = kDone;
    ++finished_;
    work_.push_back(task);
  } else {
    events_.Push(Seconds(t_[task].start), task);
  }
}

// `task`'s start is final: tell its successors (and theirs, for program
// tasks resolved on the way) when it ends.
void StreamEngine::Resolve(int32_t task) {
  t_[task].pending = kDone;
  ++finished_;
  work_.push_back(task);
  while (!work_.empty()) {
    const int32_t id = work_.back();
    work_.pop_back();
    const double end = t_[id].start + t_[id].duration;
    makespan_ = std::max(makespan_, end);
    const Links& l = t_[id].l;
    if (l.succ[0] >= 0) Reached(l.succ[0], end);
    if (l.succ[1] >= 0) Reached(l.succ[1], end);
    if (!succ_begin_.empty()) {
      for (int32_t i = succ_begin_[id]; i < succ_begin_[id + 1]; ++i) Reached(succ_[i], end);
    }
    if (l.next_in_stream >= 0) Reached(l.next_in_stream, end);
  }
}

}  // namespace occam::sim
