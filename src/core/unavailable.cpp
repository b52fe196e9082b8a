// SPDX-License-Identifier: MIT
#include "core/unavailable.h"

namespace gpumeter {

std::string_view to_string(Unavailable reason) noexcept {
  switch (reason) {
    case Unavailable::not_supported: return "not_supported";
    case Unavailable::no_permission: return "no_permission";
    case Unavailable::gpu_lost: return "gpu_lost";
    case Unavailable::process_gone: return "process_gone";
    case Unavailable::error: return "error";
    case Unavailable::no_data: return "no_data";
    case Unavailable::mig: return "mig";
  }
  return "error";
}

}  // namespace gpumeter
