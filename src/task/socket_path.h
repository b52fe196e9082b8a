// SPDX-License-Identifier: MIT
// Where the task socket lives when no --socket is given: GPUMETER_SOCKET if set; else
// /run/gpumeter/gpumeter.sock for root, $XDG_RUNTIME_DIR/gpumeter.sock for anyone else.
#pragma once

#include <expected>
#include <filesystem>

#include "core/error.h"

namespace gpumeter::task {

struct SocketEnvironment {
  const char* gpumeter_socket = nullptr;  // GPUMETER_SOCKET
  const char* xdg_runtime_dir = nullptr;  // XDG_RUNTIME_DIR
  bool root = false;                      // the effective uid is 0
};

// The environment of this process.
SocketEnvironment socket_environment() noexcept;

// Errors: invalid_input when a user has no XDG_RUNTIME_DIR (the message says to pass
// --socket or set GPUMETER_SOCKET).
std::expected<std::filesystem::path, Error> default_socket_path(const SocketEnvironment& env);

// The directory root's default socket lives in; the daemon creates it (mode 0755) if missing.
inline constexpr const char* kSystemSocketDirectory = "/run/gpumeter";

}  // namespace gpumeter::task
