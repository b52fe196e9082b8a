// SPDX-License-Identifier: MIT
// GET /api/v1/tasks?since=10m: the tasks that ended recently, each the task record that
// `gpumeter tasks --json` prints (docs/task-protocol.md):
// {"schema_version": 1, "tasks": [...]}, by end time; with open=1 also "open": the tasks
// still running, by begin time. The HTTP server sees every user's tasks (docs/http.md,
// "Security").
#pragma once

#include <functional>

#include "net/http_server.h"
#include "task/recent_results.h"

namespace gpumeter::net {

// The most tasks one answer holds (`limit`'s default and maximum); "next" pages to the rest.
inline constexpr std::size_t kMaxTasksPerPage = 1'000;

struct TasksSources {
  const task::RecentResults& results;
  std::function<TimeUs()> now_us;  // the wall clock
};

// Registers the route (token access); `since` defaults to every task kept. 400 for a bad
// `since`.
void add_tasks_route(HttpServer& server, TasksSources sources);

}  // namespace gpumeter::net
