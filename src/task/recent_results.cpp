#include "task/recent_results.h"

#include <algorithm>
#include <utility>

namespace gpumeter::task {

RecentResults::RecentResults(std::size_t capacity, ResultSink* next)
    : capacity_(std::max<std::size_t>(capacity, 1)), next_(next) {}

void RecentResults::settled(const Task& task) {
  {
    const std::lock_guard lock(mutex_);
    tasks_.push_back(task);
    if (tasks_.size() > capacity_) tasks_.pop_front();
  }
  if (next_ != nullptr) next_->settled(task);
}

RecentResults::Page RecentResults::ended_since(TimeUs since_us, std::size_t limit) const {
  Page page;
  {
    const std::lock_guard lock(mutex_);
    std::ranges::copy_if(tasks_, std::back_inserter(page.tasks), [since_us](const Task& task) {
      return task.end_us.value_or(0) >= since_us;
    });
  }
  // Tasks settle in about the order they end, not exactly: a task waits for its samples.
  std::ranges::stable_sort(page.tasks, [](const Task& a, const Task& b) {
    return std::pair(a.end_us.value_or(0), a.id) < std::pair(b.end_us.value_or(0), b.id);
  });
  if (page.tasks.size() > limit) {
    page.truncated = true;
    page.tasks.erase(page.tasks.begin(), page.tasks.end() - static_cast<std::ptrdiff_t>(limit));
  }
  return page;
}

}  // namespace gpumeter::task
