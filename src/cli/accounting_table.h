// SPDX-License-Identifier: MIT
// The human output of `gpumeter accounting status` and `gpumeter accounting show`.
#pragma once

#include <string>

#include "core/model.h"
#include "view/accounting_json.h"

namespace gpumeter::cli {

// One row per GPU: index, accounting mode, buffer size, records held, persistence mode.
std::string render_accounting_status(const Snapshot& snapshot, bool color);

// One row per record of every GPU whose mode is enabled: GPU, pid, user, command, lifetime
// GPU and memory utilization, peak memory, run time, start time (local), running or exited.
// A running process's run time is its time so far. GPUs with accounting off get one line
// each below the table saying so.
std::string render_accounting_records(const Snapshot& snapshot,
                                      const view::KnownProcessLookup& lookup, bool color);

}  // namespace gpumeter::cli
