// SPDX-License-Identifier: MIT
// The human output of `gpumeter tasks`: one row per task of a query reply (ended tasks
// first, oldest end first, then the open ones), from the reply's JSON as the protocol
// defines it (docs/task-protocol.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// Columns: task, name, labels, pid, user, started, duration, GPU, SM average, GPU memory
// peak, energy, CPU time, flags. `now_us` gives open tasks their duration so far. A reply
// that does not have the protocol's shape renders what it can; missing values print N/A.
// Without any task: "No tasks." on one line.
std::string render_tasks_table(const nlohmann::json& reply, TimeUs now_us, bool color);

}  // namespace gpumeter::cli
