// SPDX-License-Identifier: MIT
// errno as a std::error_code, for the host's system calls.
#pragma once

#include <cerrno>
#include <system_error>

namespace gpumeter::host {

// The error of the system call that just failed: read before anything else can change errno.
inline std::error_code last_os_error() noexcept {
  return {errno, std::generic_category()};
}

}  // namespace gpumeter::host
