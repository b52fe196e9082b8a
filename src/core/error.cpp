// SPDX-License-Identifier: MIT
#include "core/error.h"

#include <fmt/format.h>

namespace gpumeter {

Error invalid_option(std::string_view option, std::string_view why) {
  return invalid_input(fmt::format("{}: {}", option, why));
}

int exit_status(const Error& error) noexcept {
  switch (error.code) {
    case ErrorCode::library_not_found:
    case ErrorCode::driver_failed:
    case ErrorCode::invalid_input: return 2;
    default: return 1;
  }
}

}  // namespace gpumeter
