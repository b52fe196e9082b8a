// SPDX-License-Identifier: MIT
#include "view/sm_unknown.h"

#include "core/model.h"

namespace gpumeter::view {

std::string sm_unknown_text(const std::optional<std::string>& reason) {
  if (reason == to_string(Unavailable::mig)) return std::string(kMigNoProcessUtilization);
  if (reason == to_string(Unavailable::not_supported)) {
    return "the GPU keeps no per-process utilisation (a Jetson board)";
  }
  return "the driver reported no per-process utilisation";
}

}  // namespace gpumeter::view
