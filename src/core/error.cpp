#include "core/error.h"

namespace gpumeter {

int exit_status(const Error& error) noexcept {
  switch (error.code) {
    case ErrorCode::library_not_found:
    case ErrorCode::driver_failed:
    case ErrorCode::invalid_input: return 2;
    default: return 1;
  }
}

}  // namespace gpumeter
