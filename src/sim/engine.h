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
//
// How Run() plays it (same start times as a clock-driven simulation): a
// kProgram task has exactly one possible start, max(end of its stream
// predecessor, ends of its dependencies), so it is resolved as soon as those
// ends are known, without an event. Only kReady tasks compete for a stream;
// each waits in the EventQueue at its ready time, and popping them in time
// order (ties: insertion order) serves every kReady stream first come, first
// served. Flat arrays, no allocation after Reserve() but the successor index.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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

  // REQUIRES: 0 <= payload < 2^32, fewer than 2^32 pushes per queue.
  void Push(Seconds time, int64_t payload);
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Removes and returns the earliest event. REQUIRES: !empty().
  Event Pop();

 private:
  // 16 bytes: the insertion number in the high half of `key`, the payload
  // in the low half, so (time, key) orders by time, then insertion.
  struct Slot {
    double time;
    uint64_t key;
  };
  struct Later {
    bool operator()(const Slot& a, const Slot& b) const {
      if (a.time != b.time) return a.time > b.time;
      return a.key > b.key;
    }
  };
  std::vector<Slot> heap_;
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
  int32_t num_tasks() const { return static_cast<int32_t>(t_.size()); }
  Seconds start(int32_t task) const { return Seconds(t_[task].start); }
  Seconds end(int32_t task) const { return Seconds(t_[task].start + t_[task].duration); }
  Seconds makespan() const { return Seconds(makespan_); }

 private:
  static constexpr int32_t kDone = -1;  // Task::pending once resolved

  struct Stream {
    Order order = Order::kProgram;
    double free_at = 0;  // kReady: end of the last reservation
    int32_t last = -1;   // kProgram: the last task added (program order)
  };

  // One task, 48 bytes, in one array (the hot loop touches a successor's
  // start, pending and program; one cache line): seconds as plain doubles
  // inside the engine. The first two successors sit inline in Links (a
  // pipeline pass has at most two); more go to the CSR index over
  // extra_edges_.
  struct Links {
    int32_t stream = 0;
    int32_t second = kNoStream;
    int32_t next_in_stream = -1;  // kProgram: the task after this one
    int32_t succ[2] = {-1, -1};
  };

  void BuildSuccessors();
  void Reached(int32_t task, double end);  // one dependency of `task` ended at `end`
  void Resolve(int32_t task);              // start known: propagate its end
  void Serve(int32_t task);                // kReady task popped at its ready time

  std::vector<Stream> streams_;
  struct Task {
    double duration = 0;
    double start = 0;     // until resolved: the latest end of a finished dependency
    int32_t pending = 0;  // unresolved dependencies (+1 for a program predecessor)
    int32_t program = 0;  // 1: on a kProgram stream
    Links l;
  };
  std::vector<Task> t_;
  std::vector<std::pair<int32_t, int32_t>> extra_edges_;  // (before, after) past two
  std::vector<int32_t> succ_begin_;                       // CSR over extra_edges_
  std::vector<int32_t> succ_;
  std::vector<int32_t> work_;  // resolved tasks whose successors are not yet told
  EventQueue events_;
  double makespan_ = 0;
  int32_t finished_ = 0;
};

}  // namespace occam::sim
