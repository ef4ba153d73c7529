// A deterministic discrete-event engine for tasks on streams.
//
// EventQueue: events ordered by time; events at the same time come out in
// the order they were pushed (a per-queue insertion counter breaks ties), so
// a run never depends on heap internals or floating-point luck.
//
// StreamEngine: tasks with a duration run on streams (a device's compute or
// send/recv engine) and wait for their dependencies. Two stream kinds:
//  - kProgram: tasks run one at a time in the order they were added (a CUDA
//    stream: the schedule fixes the order of a device's compute);
//  - kReady: tasks are served first come, first served in the order they
//    became ready (a DMA queue: transfers go out as their data is produced);
//    a ready task reserves the stream from max(now, stream free) on.
// A task may hold a second kReady stream for its whole duration (a transfer
// busies the sender's send stream and the receiver's recv stream at once);
// it then starts when both are free. A task starts at the earliest time at
// which all its dependencies have ended and its streams are free; Run()
// reports a deadlock (a dependency cycle, or program orders that wait on
// each other) as an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "occam/status.h"
#include "occam/units.h"

namespace occam::sim {

class EventQueue {
 public:
  struct Event {
    Seconds time;
    uint64_t seq = 0;     // insertion number: the tie-break
    int64_t payload = 0;  // what happens (owned by the caller)
  };

  void Push(Seconds time, int64_t payload);
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Removes and returns the earliest event. REQUIRES: !empty().
  Event Pop();

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time != b.time) return a.time > b.time;
      return a.seq > b.seq;
    }
  };
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

class StreamEngine {
 public:
  enum class Order { kProgram, kReady };
  static constexpr int32_t kNoStream = -1;

  int32_t AddStream(Order order);
  // Optional: room for this many tasks and dependencies.
  void Reserve(size_t tasks, size_t dependencies);
  // Appends a task; `second` (optional) must be a kReady stream when given,
  // and then `stream` must be kReady too. Returns the task id (0, 1, ...).
  int32_t AddTask(Seconds duration, int32_t stream, int32_t second = kNoStream);
  // `after` may not start before `before` has ended.
  void AddDependency(int32_t before, int32_t after);

  // Plays all tasks once. Error (Internal, naming a stuck task) on deadlock.
  // REQUIRES: called once per engine.
  Status Run();

  // The first task that never ran after a failed Run(), or -1.
  int32_t FirstStuckTask() const;
  int32_t num_tasks() const { return static_cast<int32_t>(tasks_.size()); }
  Seconds start(int32_t task) const { return tasks_[task].start; }
  Seconds end(int32_t task) const { return tasks_[task].end; }
  Seconds makespan() const { return makespan_; }

 private:
  struct Stream {
    Order order = Order::kProgram;
    bool busy = false;             // kProgram: a task is running
    Seconds free_at;               // kReady: end of the last reservation
    std::vector<int32_t> program;  // kProgram: tasks in order
    size_t next = 0;               // kProgram: index of the next task
  };

  struct Task {
    Seconds duration;
    Seconds start;
    Seconds end;
    int32_t stream = 0;
    int32_t second = kNoStream;
    int32_t pending = 0;  // unfinished dependencies
    bool deps_met = false;
    bool done = false;
  };

  void BuildSuccessors();
  void OnReady(int32_t task, Seconds now);
  void TryStart(int32_t stream, Seconds now);
  void Finish(int32_t task, Seconds now);

  std::vector<Stream> streams_;
  std::vector<Task> tasks_;
  std::vector<std::pair<int32_t, int32_t>> edges_;  // (before, after)
  std::vector<int32_t> succ_begin_;                 // CSR over edges_
  std::vector<int32_t> succ_;
  EventQueue events_;
  Seconds makespan_;
  int32_t finished_ = 0;
};

}  // namespace occam::sim
