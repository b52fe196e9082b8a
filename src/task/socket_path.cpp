// SPDX-License-Identifier: MIT
#include "task/socket_path.h"

#include <unistd.h>

#include <cstdlib>

namespace gpumeter::task {

SocketEnvironment socket_environment() noexcept {
  return SocketEnvironment{std::getenv("GPUMETER_SOCKET"), std::getenv("XDG_RUNTIME_DIR"),
                           ::geteuid() == 0};
}

std::expected<std::filesystem::path, Error> default_socket_path(const SocketEnvironment& env) {
  const auto set = [](const char* value) { return value != nullptr && *value != '\0'; };
  if (set(env.gpumeter_socket)) return std::filesystem::path(env.gpumeter_socket);
  if (env.root) return std::filesystem::path(kSystemSocketDirectory) / "gpumeter.sock";
  if (set(env.xdg_runtime_dir)) return std::filesystem::path(env.xdg_runtime_dir) / "gpumeter.sock";
  return std::unexpected(Error{ErrorCode::invalid_input,
                               "XDG_RUNTIME_DIR is not set: pass --socket PATH or set "
                               "GPUMETER_SOCKET to choose where the task socket lives"});
}

}  // namespace gpumeter::task
