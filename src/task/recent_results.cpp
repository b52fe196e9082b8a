#include "task/recent_results.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace gpumeter::task {

RecentResults::RecentResults(std::size_t capacity, ResultSink* next, std::size_t max_bytes)
    : capacity_(std::max<std::size_t>(capacity, 1)), max_bytes_(max_bytes), next_(next) {}

void RecentResults::settled(const Task& task) {
  {
    const std::lock_guard lock(mutex_);
    tasks_.push_back(task);
    bytes_ += footprint(task);
    while (tasks_.size() > 1 && (tasks_.size() > capacity_ || bytes_ > max_bytes_)) {
      bytes_ -= std::min(bytes_, footprint(tasks_.front()));
      tasks_.pop_front();
    }
  }
  if (next_ != nullptr) next_->settled(task);
}

RecentResults::Page RecentResults::ended_since(TimeUs since_us, std::size_t limit,
                                               std::optional<QueryCursor> before) const {
  const auto at = [](const Task& task) { return QueryCursor{task.end_us.value_or(0), task.id}; };
  Page page;
  const std::lock_guard lock(mutex_);
  std::vector<const Task*> matched;
  for (const Task& task : tasks_) {
    if (at(task).end_us >= since_us && (!before || at(task) < *before)) matched.push_back(&task);
  }
  // Tasks settle in about the order they end, not exactly: a task waits for its samples.
  std::ranges::stable_sort(matched, [&](const Task* a, const Task* b) { return at(*a) < at(*b); });
  std::size_t first = 0;
  if (matched.size() > limit) {
    page.truncated = true;
    first = matched.size() - limit;
    if (limit > 0) page.next = at(*matched[first]);
  }
  for (std::size_t i = first; i < matched.size(); ++i) page.tasks.push_back(*matched[i]);
  return page;
}

}  // namespace gpumeter::task
