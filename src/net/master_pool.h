// A fixed set of threads for the master's polls: run() hands out a batch of jobs and returns
// when every one has finished, so a round of polls takes about as long as its slowest poll
// (when there are at least as many threads as jobs), not the sum of them.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace gpumeter::net {

class WorkerPool {
 public:
  // Starts `threads` threads (at least 1).
  explicit WorkerPool(std::size_t threads);
  // Stops and joins the threads; jobs still queued are dropped.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs the jobs on the pool's threads and waits for all of them. Jobs must not throw.
  // Batches from several callers may overlap.
  void run(std::vector<std::function<void()>> jobs);

  std::size_t threads() const noexcept { return threads_.size(); }

 private:
  void work(const std::stop_token& stop);

  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::jthread> threads_;
};

}  // namespace gpumeter::net
