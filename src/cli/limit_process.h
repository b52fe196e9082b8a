// SPDX-License-Identifier: MIT
// The processes `gpumeter limit --pid PID` moves: PID and every live process below it, found
// by the parent links under <root>/proc (host/process_tree.h), once we know that we may.
#pragma once

#include <expected>
#include <filesystem>
#include <vector>

#include "core/error.h"
#include "core/model.h"

namespace gpumeter::cli {

// PID first, then its descendants, sorted. `euid` is our effective uid.
// Errors: invalid_input when <root>/proc/PID does not exist (no such process); no_permission
// when PID belongs to another user and `euid` is not root's, naming the owner and what is
// needed.
std::expected<std::vector<Pid>, Error> limit_targets(const std::filesystem::path& root, Pid pid,
                                                     unsigned euid);

}  // namespace gpumeter::cli
