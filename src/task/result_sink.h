// SPDX-License-Identifier: MIT
// Where settled tasks go besides the registry's bounded ring: the daemon hands them to its
// history recorder, which keeps them in the database. An interface, so that the task service
// does not depend on the store.
#pragma once

#include "task/task.h"

namespace gpumeter::task {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // A task whose figures are final (or known to be impossible): state ended, end_us set.
  // Called in the service's thread; keep it short (queue the task, write it elsewhere).
  virtual void settled(const Task& task) = 0;
};

}  // namespace gpumeter::task
