// SPDX-License-Identifier: MIT
// Where tasks go besides the registry: the daemon hands settled ones to its history recorder,
// which keeps them in the database, and every change of state to the copy its HTTP API reads
// (task/recent_results.h). An interface, so that the task service depends on neither.
#pragma once

#include "task/task.h"

namespace gpumeter::task {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // A task was opened (state open), or ended and now waits for its figures (state ending,
  // end_us set; abandoned ones too). Called in the service's thread, as settled is. The
  // history keeps settled tasks only, so these do nothing unless a sink shows running tasks.
  virtual void opened(const Task& /*task*/) {}
  virtual void ending(const Task& /*task*/) {}
  // A task whose figures are final (or known to be impossible): state ended, end_us set.
  // Called in the service's thread; keep it short (queue the task, write it elsewhere).
  virtual void settled(const Task& task) = 0;
};

}  // namespace gpumeter::task
