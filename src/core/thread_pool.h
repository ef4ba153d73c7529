// A fixed set of worker threads that run index-parallel loops. Owned by the
// caller (no global pool); the calling thread works too. Which thread runs
// which index is unspecified, so callers write results by index and merge
// them in index order to stay deterministic.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace occam {

class ThreadPool {
 public:
  // threads <= 0: one per hardware thread. The pool starts threads - 1
  // workers; the caller of ParallelFor is the last one.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls body(i) once for every i in [0, n) and returns when all are done.
  // REQUIRES: body does not throw; not called concurrently on one pool.
  void ParallelFor(int64_t n, const std::function<void(int64_t)>& body);

 private:
  void WorkerLoop();
  void RunShare();  // takes indices until none are left

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  const std::function<void(int64_t)>* body_ = nullptr;  // guarded by mu_
  int64_t n_ = 0;                                       // guarded by mu_
  int64_t next_ = 0;                                    // guarded by mu_
  int64_t generation_ = 0;                              // guarded by mu_
  int busy_ = 0;                                        // guarded by mu_
  bool stop_ = false;                                   // guarded by mu_
};

}  // namespace occam
