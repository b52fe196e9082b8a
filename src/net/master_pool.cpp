#include "net/master_pool.h"

#include <algorithm>
#include <latch>
#include <utility>

namespace gpumeter::net {

WorkerPool::WorkerPool(std::size_t threads) {
  threads_.reserve(std::max<std::size_t>(threads, 1));
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
    threads_.emplace_back([this](const std::stop_token& stop) { work(stop); });
  }
}

WorkerPool::~WorkerPool() {
  for (std::jthread& thread : threads_) thread.request_stop();
  wake_.notify_all();
  threads_.clear();  // joins
}

void WorkerPool::run(std::vector<std::function<void()>> jobs) {
  if (jobs.empty()) return;
  std::latch finished(static_cast<std::ptrdiff_t>(jobs.size()));
  {
    const std::lock_guard lock(mutex_);
    for (std::function<void()>& job : jobs) {
      queue_.emplace_back([&finished, job = std::move(job)] {
        job();
        finished.count_down();
      });
    }
  }
  wake_.notify_all();
  finished.wait();
}

void WorkerPool::work(const std::stop_token& stop) {
  while (true) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      if (!wake_.wait(lock, stop, [this] { return !queue_.empty(); })) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace gpumeter::net
