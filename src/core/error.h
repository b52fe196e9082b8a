// SPDX-License-Identifier: MIT
// Anticipated failures that stop an operation (as opposed to one absent value): a missing
// driver, a malformed file, a refused permission. Carried in std::expected; exceptions never
// cross module, thread or C-ABI boundaries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace gpumeter {

enum class ErrorCode : std::uint8_t {
  library_not_found,  // the vendor library could not be loaded
  driver_failed,      // the library loaded, but initialising it failed
  no_permission,
  invalid_input,  // a bad option, config or scenario (the message names file and line)
  io,             // a file or socket operation failed
  internal,
};

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;  // one line, for a person: what happened and what to check
};

// An invalid_input error with `message` (a bad option, config or file: the message names it).
inline Error invalid_input(std::string message) {
  return Error{ErrorCode::invalid_input, std::move(message)};
}

// An invalid_input error about a command-line option: "--memory: not a size".
Error invalid_option(std::string_view option, std::string_view why);

// Process exit status for an error: 2 for every error a person can fix (missing driver,
// bad input), 1 for the rest.
int exit_status(const Error& error) noexcept;

}  // namespace gpumeter
