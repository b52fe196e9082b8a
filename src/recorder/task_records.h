// SPDX-License-Identifier: MIT
// A settled task (src/task) as the history keeps it (store::TaskRecord).
#pragma once

#include "store/task_record.h"
#include "task/task.h"

namespace gpumeter::recorder {

// The task's fields and, when it has them, its figures (store::set_figures); a task without
// figures keeps the reason in usage_error. Precondition: the task has ended (end_us set).
store::TaskRecord task_record(const task::Task& task);

}  // namespace gpumeter::recorder
