// SPDX-License-Identifier: MIT
// JSON of a task record and of its figures, as docs/task-protocol.md describes them. Internal
// to src/task: the protocol's reply writers put these objects into replies.
#pragma once

#include <nlohmann/json.hpp>

#include "task/task.h"

namespace gpumeter::task {

// The task record: id, name, labels, owner, state, times, usage.
nlohmann::json task_json(const Task& task);

// The "usage" object of an ended task.
nlohmann::json figures_json(const TaskFigures& figures);

// "open", "ending", "ended".
std::string_view to_string(TaskState state) noexcept;

}  // namespace gpumeter::task
