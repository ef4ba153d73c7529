#include "core/thread_pool.h"

namespace occam {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  workers_.reserve(static_cast<size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::RunShare() {
  std::unique_lock<std::mutex> lock(mu_);
  while (body_ != nullptr && next_ < n_) {
    const int64_t i = next_++;
    const auto* body = body_;
    lock.unlock();
    (*body)(i);
    lock.lock();
  }
}

void ThreadPool::WorkerLoop() {
  int64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    ++busy_;
    lock.unlock();
    RunShare();
    lock.lock();
    if (--busy_ == 0) done_cv_.notify_all();
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t)>& body) {
  if (n <= 0) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = &body;
    n_ = n;
    next_ = 0;
    ++generation_;
  }
  start_cv_.notify_all();
  RunShare();
  std::unique_lock<std::mutex> lock(mu_);
  // Every index has been handed out; wait for the workers still running one.
  done_cv_.wait(lock, [&] { return busy_ == 0 && next_ >= n_; });
  body_ = nullptr;
}

}  // namespace occam
