// SPDX-License-Identifier: MIT
// Resetting a process's resident high-water mark (VmHWM), so that a later reading of the mark
// is the peak since the reset: what makes a task's peak resident memory its own instead of the
// highest mark of its process's whole life.
#pragma once

#include <filesystem>

#include "core/model.h"
#include "core/unavailable.h"

namespace gpumeter::host {

// Writes "5" to <root>/proc/<pid>/clear_refs (Linux 4.0 and later): the kernel sets the
// process's VmHWM to its current VmRSS. This also lowers what the process itself reads as its
// maximum resident size (getrusage's ru_maxrss, /proc/self/status). Errors: process_gone,
// no_permission (another user's process without CAP_SYS_ADMIN-like rights: the file is
// writable by its owner only), not_supported (a kernel that refuses the value), error.
Maybe<void> reset_peak_rss(const std::filesystem::path& root, Pid pid);

}  // namespace gpumeter::host
