#include "sim/engine.h"

#include <algorithm>
#include <utility>

namespace occam::sim {

// ------------------------------------------------------------ EventQueue ---

void EventQueue::Push(Seconds time, int64_t payload) {
  heap_.push_back(Event{time, next_seq_++, payload});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

EventQueue::Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

// ---------------------------------------------------------- StreamEngine ---

int32_t StreamEngine::AddStream(Order order) {
  streams_.push_back(Stream{});
  streams_.back().order = order;
  return static_cast<int32_t>(streams_.size()) - 1;
}

void StreamEngine::Reserve(size_t tasks, size_t dependencies) {
  tasks_.reserve(tasks);
  edges_.reserve(dependencies);
}

int32_t StreamEngine::AddTask(Seconds duration, int32_t stream, int32_t second) {
  const auto id = static_cast<int32_t>(tasks_.size());
  Task t;
  t.duration = duration;
  t.stream = stream;
  t.second = second;
  tasks_.push_back(t);
  if (streams_[stream].order == Order::kProgram) streams_[stream].program.push_back(id);
  return id;
}

void StreamEngine::AddDependency(int32_t before, int32_t after) {
  edges_.emplace_back(before, after);
}

void StreamEngine::BuildSuccessors() {
  const int32_t n = num_tasks();
  succ_begin_.assign(n + 1, 0);
  for (const auto& [before, after] : edges_) {
    ++succ_begin_[before + 1];
    ++tasks_[after].pending;
  }
  for (int32_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(edges_.size());
  std::vector<int32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (const auto& [before, after] : edges_) succ_[fill[before]++] = after;
  edges_.clear();
  edges_.shrink_to_fit();
}

Status StreamEngine::Run() {
  const int32_t n = num_tasks();
  BuildSuccessors();
  finished_ = 0;
  makespan_ = Seconds(0);
  for (int32_t t = 0; t < n; ++t) {
    if (tasks_[t].pending == 0) OnReady(t, Seconds(0));
  }
  while (!events_.empty()) {
    const EventQueue::Event e = events_.Pop();
    Finish(static_cast<int32_t>(e.payload), e.time);
  }
  if (finished_ == n) return Status::Ok();
  return Internal("event engine deadlock: task " + std::to_string(FirstStuckTask()) +
                  " never ran (" + std::to_string(n - finished_) + " of " + std::to_string(n) +
                  " tasks stuck)");
}

int32_t StreamEngine::FirstStuckTask() const {
  for (int32_t t = 0; t < num_tasks(); ++t) {
    if (!tasks_[t].done) return t;
  }
  return -1;
}

void StreamEngine::OnReady(int32_t task, Seconds now) {
  Task& t = tasks_[task];
  t.deps_met = true;
  Stream& s = streams_[t.stream];
  if (s.order == Order::kProgram) {
    TryStart(t.stream, now);
    return;
  }
  // First come, first served: reserve the stream(s) from when all are free.
  Seconds start = Max(now, s.free_at);
  if (t.second != kNoStream) start = Max(start, streams_[t.second].free_at);
  s.free_at = start + t.duration;
  if (t.second != kNoStream) streams_[t.second].free_at = start + t.duration;
  t.start = start;
  events_.Push(start + t.duration, task);
}

void StreamEngine::TryStart(int32_t stream, Seconds now) {
  Stream& s = streams_[stream];
  if (s.busy || s.next >= s.program.size()) return;
  const int32_t t = s.program[s.next];
  if (!tasks_[t].deps_met) return;
  ++s.next;
  s.busy = true;
  tasks_[t].start = now;
  events_.Push(now + tasks_[t].duration, t);
}

void StreamEngine::Finish(int32_t task, Seconds now) {
  Task& t = tasks_[task];
  t.end = now;
  t.done = true;
  makespan_ = Max(makespan_, now);
  ++finished_;
  const bool program = streams_[t.stream].order == Order::kProgram;
  if (program) streams_[t.stream].busy = false;
  for (int32_t i = succ_begin_[task]; i < succ_begin_[task + 1]; ++i) {
    const int32_t next = succ_[i];
    if (--tasks_[next].pending == 0) OnReady(next, now);
  }
  if (program) TryStart(t.stream, now);
}

}  // namespace occam::sim
