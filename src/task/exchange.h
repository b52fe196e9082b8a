// SPDX-License-Identifier: MIT
// One request and its reply over the task socket, for command-line tools (`gpumeter tasks`).
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpumeter::task {

// Sends `request` (one JSON line, without its newline) and returns the reply line, without its
// newline. Errors: io when nothing listens on `socket` ("no gpumeter daemon is running"), when
// the daemon closes the connection early, or when no reply comes within `timeout`.
std::expected<std::string, Error> exchange(const std::filesystem::path& socket,
                                           std::string_view request,
                                           std::chrono::seconds timeout = std::chrono::seconds(30));

}  // namespace gpumeter::task
