// SPDX-License-Identifier: MIT
#include "recorder/task_records.h"

namespace gpumeter::recorder {

store::TaskRecord task_record(const task::Task& task) {
  store::TaskRecord record{.id = task.id,
                           .name = task.name,
                           .labels = task.labels,
                           .owner = task.owner,
                           .uid = task.uid,
                           .user = task.user,
                           .begin_us = task.begin_us,
                           .end_us = task.end_us.value_or(task.begin_us),
                           .abandoned = task.abandoned,
                           .usage_error = task.figures_error};
  if (task.figures) store::set_figures(record, task.figures->usage, task.figures->gpu_uuids);
  return record;
}

}  // namespace gpumeter::recorder
