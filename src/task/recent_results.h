// SPDX-License-Identifier: MIT
// The results of recently settled tasks, and the tasks still running, for readers on other
// threads (the HTTP server): the task service is single-threaded, so its registry cannot be
// read from elsewhere. A ResultSink that keeps the last N settled tasks and a copy of the open
// and ending ones under a lock, and passes each settled one on to the next sink (the history
// recorder), if any. The registry's limits bound the running ones (open and ending tasks are
// refused past them), so the copy holds no more than the registry does.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "task/limits.h"
#include "task/protocol.h"
#include "task/registry.h"
#include "task/result_sink.h"

namespace gpumeter::task {

// Which tasks a reader wants: each given field must match exactly.
struct TaskFilter {
  std::optional<std::string> name;
  std::optional<std::string> user;
  std::optional<std::pair<std::string, std::string>> label;  // key, value

  bool matches(const Task& task) const;
};

// What the tasks of one name used together: for the dashboard's totals per task name.
struct NameTotals {
  std::string name;
  std::size_t tasks = 0;
  double duration_seconds = 0;  // of the ended ones
  // Summed over the tasks and their GPUs whose figures are known; `known` counts the tasks
  // whose figures are (the others were still being measured, or could not be).
  double sm_busy_seconds = 0;
  double energy_joules = 0;
  std::size_t known = 0;
};

class RecentResults final : public ResultSink {
 public:
  // Keeps the last `capacity` (at least 1) settled tasks, fewer when their footprint
  // (registry.h) and that of the running tasks together would pass `max_bytes`, the oldest
  // dropped first; `next`, when given, must outlive this object.
  explicit RecentResults(std::size_t capacity, ResultSink* next = nullptr,
                         std::size_t max_bytes = Limits{}.task_bytes);

  void opened(const Task& task) override;
  void ending(const Task& task) override;
  void settled(const Task& task) override;

  struct Page {
    std::vector<Task> tasks;  // by end time, then id
    bool truncated = false;   // more tasks matched than `limit`: the latest `limit` are kept
    std::optional<QueryCursor> next;  // when truncated: `before` for the older ones
    std::size_t matched = 0;          // every kept task since `since_us` that `filter` takes
  };
  // The kept tasks that ended at or after `since_us` and before `before` and that `filter`
  // takes; the latest `limit` of them. Only those are copied.
  Page ended_since(TimeUs since_us, std::size_t limit,
                   std::optional<QueryCursor> before = std::nullopt,
                   const TaskFilter& filter = {}) const;

  struct Running {
    std::vector<Task> tasks;  // in the order they began (by id)
    bool truncated = false;   // more tasks matched than `limit`: the latest begun are kept
    std::size_t matched = 0;  // every open or ending task that `filter` takes
  };
  // The tasks open or ending now that `filter` takes; the latest begun `limit` of them.
  Running running(std::size_t limit, const TaskFilter& filter = {}) const;

  // Per task name, what the kept tasks that ended at or after `since_us` and that `filter`
  // takes used, by name.
  std::vector<NameTotals> totals_by_name(TimeUs since_us, const TaskFilter& filter = {}) const;

 private:
  void keep_running(const Task& task);
  void forget_running(TaskId id);
  // Drops the oldest settled tasks past `capacity_`, or while all kept tasks together hold
  // more than `max_bytes_`.
  void trim();

  std::size_t capacity_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;          // the footprint of the settled tasks kept
  std::size_t running_bytes_ = 0;  // of the running ones
  ResultSink* next_;
  mutable std::mutex mutex_;
  std::deque<Task> tasks_;  // in the order they settled
  std::map<TaskId, Task> running_;
};

}  // namespace gpumeter::task
