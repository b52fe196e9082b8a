// SPDX-License-Identifier: MIT
// A directory only its owner can write to: where per-user runtime state such as GPU
// reservations lives. Secure by default: a directory that another user could have planted or
// can write to is refused, never used.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpumeter::host {

// The directories to create and check, outermost first, for per-user state under `leaf`:
// $XDG_RUNTIME_DIR/gpumeter/<leaf> when XDG_RUNTIME_DIR is set to an absolute path, else
// /tmp/gpumeter-<uid>/<leaf>. `xdg_runtime_dir` is the variable's value (null when unset).
std::vector<std::filesystem::path> default_state_directories(const char* xdg_runtime_dir,
                                                             unsigned uid, const std::string& leaf);

// The same for this process: its environment and effective uid.
std::vector<std::filesystem::path> default_state_directories(const std::string& leaf);

// Creates `dir` (mode 0700) unless it exists, then checks that it is a real directory (not a
// symbolic link), owned by the effective user and writable by nobody else.
// Errors: no_permission naming the directory and what is wrong with it; io when it cannot be
// created or examined.
std::expected<void, Error> ensure_private_directory(const std::filesystem::path& dir);

}  // namespace gpumeter::host
