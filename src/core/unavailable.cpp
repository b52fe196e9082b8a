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

std::optional<Unavailable> unavailable_from_string(std::string_view word) noexcept {
  for (const Unavailable reason :
       {Unavailable::not_supported, Unavailable::no_permission, Unavailable::gpu_lost,
        Unavailable::process_gone, Unavailable::error, Unavailable::no_data, Unavailable::mig}) {
    if (to_string(reason) == word) return reason;
  }
  return std::nullopt;
}

}  // namespace gpumeter
