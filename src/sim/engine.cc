#include "sim/engine.h"

#include <algorithm>
#include <utility>

namespace occam::sim {

// ------------------------------------------------------------ EventQueue ---

bool EventQueue::Later(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time > b.time;
  return a.seq > b.seq;
}

void EventQueue::Push(Seconds time, int64_t payload) {
  heap_.push_back(Event{time, next_seq_++, payload});
  std::push_heap(heap_.begin(), heap_.end(), Later);
}

EventQueue::Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later);
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

int32_t StreamEngine::AddTask(Seconds duration, int32_t stream, int32_t second) {
  const auto id = static_cast<int32_t>(duration_.size());
  duration_.push_back(duration);
  stream_.push_back(stream);
  second_.push_back(second);
  if (streams_[stream].order == Order::kProgram) streams_[stream].program.push_back(id);
  return id;
}

void StreamEngine::AddDependency(int32_t before, int32_t after) {
  edges_.emplace_back(before, after);
}

void StreamEngine::BuildSuccessors() {
  const int32_t n = num_tasks();
  pending_.assign(n, 0);
  succ_begin_.assign(n + 1, 0);
  for (const auto& [before, after] : edges_) {
    ++succ_begin_[before + 1];
    ++pending_[after];
  }
  for (int32_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(edges_.size());
  std::vector<int32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (const auto& [before, after] : edges_) succ_[fill[before]++] = after;
}

Status StreamEngine::Run() {
  const int32_t n = num_tasks();
  BuildSuccessors();
  start_.assign(n, Seconds(0));
  end_.assign(n, Seconds(0));
  deps_met_.assign(n, 0);
  done_.assign(n, 0);
  finished_ = 0;
  makespan_ = Seconds(0);
  for (int32_t t = 0; t < n; ++t) {
    if (pending_[t] == 0) OnReady(t, Seconds(0));
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
  for (int32_t t = 0; t < static_cast<int32_t>(done_.size()); ++t) {
    if (!done_[t]) return t;
  }
  return -1;
}

void StreamEngine::OnReady(int32_t task, Seconds now) {
  deps_met_[task] = 1;
  const int32_t s = stream_[task];
  if (streams_[s].order == Order::kReady) streams_[s].ready.push_back(task);
  TryStart(s, now);
}

void StreamEngine::TryStart(int32_t stream, Seconds now) {
  Stream& s = streams_[stream];
  if (s.busy) return;
  if (s.order == Order::kReady) {
    TryStartReady(stream, now);
    return;
  }
  if (s.next >= s.program.size()) return;
  const int32_t t = s.program[s.next];
  if (!deps_met_[t]) return;
  ++s.next;
  Start(t, now);
}

void StreamEngine::TryStartReady(int32_t stream, Seconds now) {
  Stream& s = streams_[stream];
  if (s.busy) return;
  for (auto it = s.ready.begin(); it != s.ready.end(); ++it) {
    const int32_t t = *it;
    const int32_t other = second_[t];
    if (other != kNoStream && streams_[other].busy) {
      auto& w = streams_[other].waiting;
      if (std::find(w.begin(), w.end(), stream) == w.end()) w.push_back(stream);
      continue;
    }
    s.ready.erase(it);
    Start(t, now);
    return;
  }
}

void StreamEngine::Start(int32_t task, Seconds now) {
  streams_[stream_[task]].busy = true;
  if (second_[task] != kNoStream) streams_[second_[task]].busy = true;
  start_[task] = now;
  events_.Push(now + duration_[task], task);
}

void StreamEngine::Finish(int32_t task, Seconds now) {
  end_[task] = now;
  done_[task] = 1;
  makespan_ = Max(makespan_, now);
  ++finished_;
  const int32_t s = stream_[task];
  const int32_t other = second_[task];
  streams_[s].busy = false;
  if (other != kNoStream) streams_[other].busy = false;
  for (int32_t i = succ_begin_[task]; i < succ_begin_[task + 1]; ++i) {
    const int32_t next = succ_[i];
    if (--pending_[next] == 0) OnReady(next, now);
  }
  TryStart(s, now);
  if (other != kNoStream) {
    TryStart(other, now);
    std::vector<int32_t> waiting;
    waiting.swap(streams_[other].waiting);
    for (int32_t w : waiting) TryStartReady(w, now);
  }
}

}  // namespace occam::sim
