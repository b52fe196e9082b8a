// SPDX-License-Identifier: MIT
#include "task/recent_results.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpumeter::task {

RecentResults::RecentResults(std::size_t capacity, ResultSink* next, std::size_t max_bytes)
    : capacity_(std::max<std::size_t>(capacity, 1)), max_bytes_(max_bytes), next_(next) {}

void RecentResults::opened(const Task& task) {
  keep_running(task);
}

void RecentResults::ending(const Task& task) {
  keep_running(task);
}

void RecentResults::keep_running(const Task& task) {
  const std::lock_guard lock(mutex_);
  forget_running(task.id);  // an ending task replaces its open copy
  running_bytes_ += footprint(task);
  running_.emplace(task.id, task);
  trim();
}

void RecentResults::settled(const Task& task) {
  {
    const std::lock_guard lock(mutex_);
    forget_running(task.id);
    tasks_.push_back(task);
    bytes_ += footprint(task);
    trim();
  }
  if (next_ != nullptr) next_->settled(task);
}

void RecentResults::forget_running(TaskId id) {
  const auto found = running_.find(id);
  if (found == running_.end()) return;
  running_bytes_ -= std::min(running_bytes_, footprint(found->second));
  running_.erase(found);
}

void RecentResults::trim() {
  // As the registry does: running tasks count towards the bytes, and the oldest retained
  // ones make room for them. The registry refuses running tasks past the same budget, so
  // dropping retained ones always suffices.
  while (tasks_.size() > 1 && (tasks_.size() > capacity_ || bytes_ + running_bytes_ > max_bytes_)) {
    bytes_ -= std::min(bytes_, footprint(tasks_.front()));
    tasks_.pop_front();
  }
}

bool TaskFilter::matches(const Task& task) const {
  if (name && task.name != *name) return false;
  if (user && task.user != *user) return false;
  if (label) {
    const auto found = task.labels.find(label->first);
    if (found == task.labels.end() || found->second != label->second) return false;
  }
  return true;
}

RecentResults::Page RecentResults::ended_since(TimeUs since_us, std::size_t limit,
                                               std::optional<QueryCursor> before,
                                               const TaskFilter& filter) const {
  const auto at = [](const Task& task) { return QueryCursor{task.end_us.value_or(0), task.id}; };
  Page page;
  const std::lock_guard lock(mutex_);
  std::vector<const Task*> matched;
  for (const Task& task : tasks_) {
    if (at(task).end_us < since_us || !filter.matches(task)) continue;
    ++page.matched;
    if (!before || at(task) < *before) matched.push_back(&task);
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

RecentResults::Running RecentResults::running(std::size_t limit, const TaskFilter& filter) const {
  Running out;
  const std::lock_guard lock(mutex_);
  std::vector<const Task*> matched;
  for (const auto& [id, task] : running_) {
    if (filter.matches(task)) matched.push_back(&task);
  }
  out.matched = matched.size();  // in id order: the order they began, as the registry's query
  const std::size_t first = matched.size() > limit ? matched.size() - limit : 0;
  out.truncated = first > 0;
  for (std::size_t i = first; i < matched.size(); ++i) out.tasks.push_back(*matched[i]);
  return out;
}

namespace {

// Adds a task's known SM busy time and energy over its GPUs; false when its figures are not
// known (not measured yet, or failed).
bool add_figures(const Task& task, NameTotals& totals) {
  if (!task.figures) return false;
  for (const GpuUsage& gpu : task.figures->usage.gpus) {
    if (const Maybe<double>& busy = gpu[Engine::sm].busy_seconds; busy)
      totals.sm_busy_seconds += *busy;
    if (gpu.energy.processes_joules) totals.energy_joules += *gpu.energy.processes_joules;
  }
  return true;
}

}  // namespace

std::vector<NameTotals> RecentResults::totals_by_name(TimeUs since_us,
                                                      const TaskFilter& filter) const {
  std::map<std::string, NameTotals, std::less<>> by_name;
  const std::lock_guard lock(mutex_);
  for (const Task& task : tasks_) {
    if (task.end_us.value_or(0) < since_us || !filter.matches(task)) continue;
    NameTotals& totals = by_name[task.name];
    totals.name = task.name;
    ++totals.tasks;
    if (task.end_us)
      totals.duration_seconds += static_cast<double>(*task.end_us - task.begin_us) / 1e6;
    if (add_figures(task, totals)) ++totals.known;
  }
  std::vector<NameTotals> out;
  out.reserve(by_name.size());
  for (auto& [name, totals] : by_name) out.push_back(std::move(totals));
  return out;
}

}  // namespace gpumeter::task
